// arena report: the games list, filtered and paged from the JSON embedded in the page.
// No framework, no network.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("games-data").textContent);
  const PAGE = 50;
  const rows = document.getElementById("g-rows");
  const entrantSelect = document.getElementById("f-entrant");
  const stageSelect = document.getElementById("f-stage");
  const idInput = document.getElementById("f-id");
  const count = document.getElementById("g-count");
  const prev = document.getElementById("g-prev");
  const next = document.getElementById("g-next");
  const pageLabel = document.getElementById("g-page");
  let page = 0;
  let shown = data.games;

  function ordinal(n) {
    return n + ({ 1: "st", 2: "nd", 3: "rd" }[n] || "th");
  }

  function option(select, value, label) {
    const node = document.createElement("option");
    node.value = value;
    node.textContent = label;
    select.appendChild(node);
  }

  data.names.forEach((name, i) => option(entrantSelect, String(i), name));
  data.stages.forEach((name, i) => option(stageSelect, String(i), name || "(none)"));
  if (data.stages.length < 2) stageSelect.closest("label").hidden = true;

  function filter() {
    const who = entrantSelect.value === "" ? -1 : Number(entrantSelect.value);
    const stage = stageSelect.value === "" ? -1 : Number(stageSelect.value);
    const text = idInput.value.trim().toLowerCase();
    shown = data.games.filter((g) =>
      (who < 0 || g[3].includes(who)) &&
      (stage < 0 || g[1] === stage) &&
      (!text || g[0].toLowerCase().includes(text)));
    page = 0;
    render();
  }

  function cell(tr, content, className) {
    const td = document.createElement("td");
    if (className) td.className = className;
    if (typeof content === "string") td.textContent = content;
    else td.appendChild(content);
    tr.appendChild(td);
    return td;
  }

  function result(game) {
    const span = document.createElement("span");
    const seats = game[3].map((who, seat) => seat);
    seats.sort((a, b) => game[4][a] - game[4][b] || a - b);
    for (const seat of seats) {
      const item = document.createElement("span");
      item.className = "seat" + (game[4][seat] === 1 ? " first" : "");
      const place = document.createElement("span");
      place.className = "place";
      place.textContent = ordinal(game[4][seat]);
      item.appendChild(place);
      item.appendChild(document.createTextNode(
        data.names[game[3][seat]] + " (" + game[5][seat] + ")"));
      span.appendChild(item);
    }
    return span;
  }

  function render() {
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(Math.max(0, page), pages - 1);
    rows.textContent = "";
    for (const game of shown.slice(page * PAGE, page * PAGE + PAGE)) {
      const tr = document.createElement("tr");
      tr.dataset.game = game[0];
      let name;
      if (game[8] >= 0) {
        name = document.createElement("a");
        name.href = "viewer.html#game=" + encodeURIComponent(game[0]) + "&pack=" + game[8];
        name.textContent = game[0];
      } else {
        name = game[0];
      }
      cell(tr, name, "name");
      cell(tr, (data.stages[game[1]] || "") + (game[2] ? " · table " + game[2] : ""));
      cell(tr, result(game));
      cell(tr, game[7].toLocaleString("en"), "num");
      cell(tr, game[6] ? String(game[6]) : "–", game[6] ? "num warn" : "num");
      rows.appendChild(tr);
    }
    const first = shown.length ? page * PAGE + 1 : 0;
    const last = Math.min(shown.length, (page + 1) * PAGE);
    count.textContent = "showing " + first.toLocaleString("en") + "–" +
      last.toLocaleString("en") + " of " + shown.length.toLocaleString("en") + " games" +
      " (scores in " + data.score + ")";
    pageLabel.textContent = "page " + (page + 1) + " of " + pages;
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  }

  entrantSelect.addEventListener("change", filter);
  stageSelect.addEventListener("change", filter);
  idInput.addEventListener("input", filter);
  prev.addEventListener("click", () => { page -= 1; render(); });
  next.addEventListener("click", () => { page += 1; render(); });
  render();
})();
