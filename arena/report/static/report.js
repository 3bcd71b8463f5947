// arena report: the games list (filtered, sorted and paged from the JSON embedded in the
// page, its filter kept in the address: report.html#games&entrant=...&opponent=...), and
// which sections an address shows (#entrant=<name>: that entrant's page, entrant.js).
// No framework, no network.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("games-data").textContent);
  const PAGE = 50;
  const table = document.querySelector("table.games");
  const kinds = table.dataset.kinds.split(" ");
  const rows = document.getElementById("g-rows");
  const controls = {
    entrant: document.getElementById("f-entrant"),
    opponent: document.getElementById("f-opponent"),
    result: document.getElementById("f-result"),
    fault: document.getElementById("f-fault"),
    stage: document.getElementById("f-stage"),
    id: document.getElementById("f-id"),
  };
  const count = document.getElementById("g-count");
  const prev = document.getElementById("g-prev");
  const next = document.getElementById("g-next");
  const pageLabel = document.getElementById("g-page");
  const nameIndex = new Map(data.names.map((name, i) => [name, i]));
  const stageIndex = new Map(data.stages.map((name, i) => [name, i]));
  let sort = "";
  let page = 0;
  let shown = data.games;

  function ordinal(n) {
    const tens = n % 100;
    if (tens >= 11 && tens <= 13) return n + "th";
    return n + ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  }

  function option(select, value, label) {
    const node = document.createElement("option");
    node.value = value;
    node.textContent = label;
    select.appendChild(node);
  }

  data.names.forEach((name) => {
    option(controls.entrant, name, name);
    option(controls.opponent, name, name);
  });
  data.stages.forEach((name) => option(controls.stage, name, name || "(none)"));
  if (data.stages.length < 2) {
    controls.stage.closest("label").hidden = true;
    table.classList.add("one-stage"); // a phone then leaves its stage column out
  }
  const seats = data.games.reduce((most, g) => Math.max(most, g[4].length), 0);
  for (let k = 1; k <= seats; k++) option(controls.result, "placed-" + k, "placed " + k);

  // --- the address: #games&<URLSearchParams> ---------------------------------------------

  function listParams() {
    const params = new URLSearchParams();
    for (const [key, control] of Object.entries(controls)) {
      const value = control.value.trim();
      if (value) params.set(key, value);
    }
    if (sort) params.set("sort", sort);
    if (page > 0) params.set("page", String(page + 1));
    return params;
  }

  function listHash() {
    const query = listParams().toString();
    return "games" + (query ? "&" + query : "");
  }

  function setControl(control, value) {
    control.value = value || "";
    if (control.value !== (value || "")) control.value = ""; // not a choice of this page
  }

  function restore(params) {
    for (const [key, control] of Object.entries(controls)) setControl(control, params.get(key));
    sort = params.get("sort") || "";
    page = Math.max(0, (Number(params.get("page")) || 1) - 1);
    filter(page);
  }

  function remember() {
    history.replaceState(null, "", "#" + listHash());
  }

  // --- which games are shown ----------------------------------------------------------------

  function faultsOf(game, seat) {
    const faults = game[9] || [];
    return seat < 0 ? faults : faults.filter((f) => f[0] === seat);
  }

  function matcher() {
    const who = nameIndex.has(controls.entrant.value) ? nameIndex.get(controls.entrant.value) : -1;
    const against = nameIndex.has(controls.opponent.value)
      ? nameIndex.get(controls.opponent.value) : -1;
    const result = who >= 0 ? controls.result.value : "";
    const fault = controls.fault.value;
    const stage = stageIndex.has(controls.stage.value) ? stageIndex.get(controls.stage.value) : -1;
    const text = controls.id.value.trim().toLowerCase();
    return (g) => {
      const seat = who >= 0 ? g[3].indexOf(who) : -1;
      if (who >= 0 && seat < 0) return false;
      if (against >= 0 && (against === who || !g[3].includes(against))) return false;
      if (stage >= 0 && g[1] !== stage) return false;
      if (text && !g[0].toLowerCase().includes(text)) return false;
      if (result) {
        const place = g[4][seat];
        if (result === "won" ? place !== 1
          : result === "lost" ? place === 1
          : "placed-" + place !== result) return false;
      }
      if (fault) {
        const faults = faultsOf(g, seat);
        if (fault === "any" ? !faults.length
          : fault === "none" ? faults.length
          : !faults.some((f) => kinds[f[1]] === fault)) return false;
      }
      return true;
    };
  }

  function sortKey(key) {
    const who = nameIndex.has(controls.entrant.value) ? nameIndex.get(controls.entrant.value) : -1;
    if (key === "game") return (g) => g[0];
    if (key === "stage") return (g) => g[1] * 1e6 + g[2];
    if (key === "decisions") return (g) => g[7];
    if (key === "faults") return (g) => g[6];
    if (key === "place") {
      return who >= 0 ? (g) => g[4][g[3].indexOf(who)]
        : (g) => data.names[g[3][g[4].indexOf(1)]] || "";
    }
    return null;
  }

  function sorted(games) {
    const key = sortKey(sort.replace(/^-/, ""));
    if (!key) return games;
    const sign = sort.startsWith("-") ? -1 : 1;
    return games.slice().sort((a, b) => {
      const x = key(a), y = key(b);
      return x < y ? -sign : x > y ? sign : 0; // stable: ties stay in log order
    });
  }

  function filter(keepPage) {
    controls.result.disabled = !controls.entrant.value;
    shown = sorted(data.games.filter(matcher()));
    page = keepPage || 0;
    render();
  }

  // --- drawing ------------------------------------------------------------------------------

  function viewerLink(game, fault, back) {
    let address = "viewer.html#game=" + encodeURIComponent(game[0]) + "&pack=" + game[8];
    if (fault !== null && fault !== undefined) address += "&fault=" + fault;
    return address + "&back=" + encodeURIComponent(back);
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
    const order = game[3].map((who, seat) => seat);
    order.sort((a, b) => game[4][a] - game[4][b] || a - b);
    for (const seat of order) {
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

  function faultCell(game, back) {
    if (!game[6]) return "–";
    const faults = game[9] || [];
    const named = [...new Set(faults.map((f) => kinds[f[1]] || "other"))].join(", ");
    const text = game[6] + (named ? " " + named : "");
    if (game[8] < 0) return text;
    const who = nameIndex.get(controls.entrant.value);
    const own = faults.findIndex((f) => game[3][f[0]] === who);
    const link = document.createElement("a");
    link.href = viewerLink(game, own >= 0 ? own : 0, back);
    link.textContent = text;
    link.title = "open the viewer at this fault";
    return link;
  }

  function gameRow(game, back) {
    const tr = document.createElement("tr");
    tr.dataset.game = game[0];
    let name = game[0];
    if (game[8] >= 0) {
      name = document.createElement("a");
      name.href = viewerLink(game, null, back);
      name.textContent = game[0];
    }
    cell(tr, name, "name");
    cell(tr, (data.stages[game[1]] || "") + (game[2] ? " · table " + game[2] : ""));
    cell(tr, result(game));
    cell(tr, game[7].toLocaleString("en"), "num");
    cell(tr, faultCell(game, back), game[6] ? "num warn" : "num");
    return tr;
  }

  function render() {
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(Math.max(0, page), pages - 1);
    const back = listHash();
    rows.textContent = "";
    for (const game of shown.slice(page * PAGE, page * PAGE + PAGE)) {
      rows.appendChild(gameRow(game, back));
    }
    if (!shown.length) {
      const td = cell(rows.appendChild(document.createElement("tr")), "No game matches.", "dim");
      td.colSpan = 5;
      td.parentNode.className = "none";
    }
    const first = shown.length ? page * PAGE + 1 : 0;
    const last = Math.min(shown.length, (page + 1) * PAGE);
    count.dataset.shown = String(shown.length);
    count.textContent = shown.length.toLocaleString("en") + " of " +
      data.games.length.toLocaleString("en") + " games" +
      (shown.length > PAGE ? " · showing " + first.toLocaleString("en") + "–" +
        last.toLocaleString("en") : "") + " · scores in " + data.score;
    pageLabel.textContent = "page " + (page + 1) + " of " + pages;
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
    for (const th of table.querySelectorAll("th[data-sort]")) {
      const key = th.dataset.sort;
      th.setAttribute("aria-sort", sort === key ? "ascending"
        : sort === "-" + key ? "descending" : "none");
    }
  }

  function changed() {
    filter(0);
    remember();
  }

  for (const control of Object.values(controls)) {
    control.addEventListener(control.tagName === "INPUT" ? "input" : "change", changed);
  }
  document.getElementById("f-clear").addEventListener("click", () => {
    for (const control of Object.values(controls)) control.value = "";
    sort = "";
    changed();
  });
  for (const th of table.querySelectorAll("th[data-sort]")) {
    th.querySelector("button").addEventListener("click", () => {
      const key = th.dataset.sort;
      sort = sort === key ? "-" + key : sort === "-" + key ? "" : key;
      changed();
    });
  }
  prev.addEventListener("click", () => { page -= 1; render(); remember(); });
  next.addEventListener("click", () => { page += 1; render(); remember(); });

  // --- which sections the address shows -----------------------------------------------------

  const entrantSection = document.getElementById("entrant");
  const report = window.arenaReport = {
    data: data, kinds: kinds, ordinal: ordinal, viewerLink: viewerLink, renderEntrant: null,
  };

  function route(scroll) {
    const address = location.hash.slice(1);
    const hash = address.split("&")[0].split("=")[0]; // "games", "entrant", a section
    const entrant = hash === "entrant" ? new URLSearchParams(address).get("entrant") : null;
    const known = entrant !== null && nameIndex.has(entrant) && report.renderEntrant;
    for (const section of document.querySelectorAll("main > section")) {
      section.hidden = known ? section !== entrantSection : section === entrantSection;
    }
    if (known) {
      report.renderEntrant(entrant);
      if (scroll) window.scrollTo(0, 0);
      return;
    }
    if (hash === "games") {
      restore(new URLSearchParams(address.slice("games".length)));
      if (scroll) document.getElementById("games").scrollIntoView();
    }
  }

  window.addEventListener("hashchange", () => route(true));
  window.addEventListener("popstate", () => route(false));
  document.addEventListener("DOMContentLoaded", () => { filter(0); route(true); });
})();
