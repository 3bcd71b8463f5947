// arena report: one entrant's page (report.html#entrant=<name>), drawn from what the page
// holds already: the games' JSON (its record and its best and worst games) and its rows of
// the faults and bluffing tables. No framework, no network.
(function () {
  "use strict";
  const report = window.arenaReport;
  const data = report.data;
  const section = document.getElementById("entrant");
  const BEST = Number(section.dataset.best);

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  function gamesHash(params) {
    return "#games&" + new URLSearchParams(params).toString();
  }

  function pct(part, whole) {
    return whole ? (100 * part / whole).toFixed(1) + "%" : "–";
  }

  function record(who) {
    const against = new Map();
    const own = { games: 0, wins: 0, places: 0, faults: 0 };
    const mine = [];
    for (const game of data.games) {
      const seat = game[3].indexOf(who);
      if (seat < 0) continue;
      const place = game[4][seat];
      const faults = (game[9] || []).filter((f) => f[0] === seat).length;
      mine.push({ game, seat, place, faults });
      own.games += 1; own.wins += place === 1; own.places += place; own.faults += faults;
      for (const other of new Set(game[3])) {
        if (other === who) continue;
        const row = against.get(other) || { games: 0, wins: 0, places: 0 };
        row.games += 1; row.wins += place === 1; row.places += place;
        against.set(other, row);
      }
    }
    return { own, against, mine };
  }

  function recordRows(name, against) {
    const body = document.getElementById("e-record");
    body.textContent = "";
    data.names.forEach((other, i) => {
      const row = against.get(i);
      if (!row) return;
      const tr = el("tr");
      tr.dataset.opponent = other;
      const link = el("a", other);
      link.href = gamesHash({ entrant: name, opponent: other });
      tr.appendChild(el("td", null, "name")).appendChild(link);
      tr.appendChild(el("td", row.games.toLocaleString("en"), "num"));
      tr.appendChild(el("td", row.wins.toLocaleString("en"), "num"));
      tr.appendChild(el("td", pct(row.wins, row.games), "num"));
      tr.appendChild(el("td", (row.places / row.games).toFixed(2), "num"));
      body.appendChild(tr);
    });
  }

  function scoreOf(entry, place) {
    const seat = entry.game[4].indexOf(place);
    return seat < 0 ? null : entry.game[5][seat];
  }

  function margin(entry) {
    // a win: over the runner-up; otherwise: to the winner (points or chips alike)
    const other = scoreOf(entry, entry.place === 1 ? 2 : 1);
    return other === null ? 0 : Math.abs(entry.game[5][entry.seat] - other);
  }

  function picks(mine) {
    const best = mine.filter((e) => e.place === 1 && !e.faults)
      .sort((a, b) => margin(b) - margin(a) || a.game[7] - b.game[7]);
    const worst = mine.filter((e) => e.faults || e.place !== 1)
      .sort((a, b) => (b.faults > 0) - (a.faults > 0) || b.place - a.place ||
        margin(b) - margin(a) || a.game[7] - b.game[7]);
    return { best: best.slice(0, BEST), worst: worst.slice(0, BEST) };
  }

  function pickItem(entry, back) {
    const game = entry.game;
    const li = el("li");
    li.dataset.game = game[0];
    const title = game[8] >= 0 ? el("a", game[0]) : el("span", game[0]);
    if (game[8] >= 0) {
      const fault = (game[9] || []).findIndex((f) => f[0] === entry.seat);
      title.href = report.viewerLink(game, fault >= 0 ? fault : null, back);
    }
    li.appendChild(title);
    const others = game[3].filter((w, s) => s !== entry.seat).map((w) => data.names[w]);
    const faults = (game[9] || []).filter((f) => f[0] === entry.seat)
      .map((f) => report.kinds[f[1]] || "other");
    const words = [
      report.ordinal(entry.place) + " of " + game[3].length,
      "against " + others.join(", "),
      "margin " + margin(entry) + " " + (margin(entry) === 1 ? data.score.replace(/s$/, "") : data.score),
      game[7].toLocaleString("en") + " decisions",
    ];
    if (faults.length) words.push(faults.length + " " + [...new Set(faults)].join(", "));
    li.appendChild(document.createTextNode(" · " + words.join(" · ")));
    if (faults.length) li.classList.add("faulted");
    return li;
  }

  function pickList(id, entries, back, none) {
    const list = document.getElementById(id);
    list.textContent = "";
    for (const entry of entries) list.appendChild(pickItem(entry, back));
    if (!entries.length) list.appendChild(el("li", none, "dim"));
  }

  function cloneRow(tableSelector, name, back) {
    // its row of a table the page has, under that table's heads; links come back here
    const source = document.querySelector(tableSelector);
    const row = source && source.querySelector("tbody tr[data-entrant=\"" + CSS.escape(name) + "\"]");
    if (!row) return null;
    const copy = el("table");
    copy.className = source.className;
    copy.appendChild(source.tHead.cloneNode(true));
    copy.appendChild(el("tbody")).appendChild(row.cloneNode(true));
    for (const link of copy.querySelectorAll("a[href^='viewer.html']")) {
      link.href = link.getAttribute("href").replace(/&back=[^&]*/, "") + "&back=" +
        encodeURIComponent(back);
    }
    return copy;
  }

  function faultList(name, back) {
    // its counts by kind, then its examples of each kind (from the faults table's row)
    const copy = cloneRow("table.faults", name, back);
    if (!copy) return null;
    const heads = [...copy.tHead.rows[0].cells].map((th) => th.textContent);
    const cells = [...copy.tBodies[0].rows[0].cells];
    const box = el("div");
    const counts = el("p", null, "counts");
    cells.forEach((td, i) => {
      if (i === 0 || i === cells.length - 1 || !Number(td.textContent)) return;
      const item = el("span", td.textContent + " " + heads[i], "count-" + heads[i]);
      if (counts.childNodes.length) counts.appendChild(document.createTextNode(" · "));
      counts.appendChild(item);
    });
    if (!counts.childNodes.length) return el("p", "No faults.", "ok");
    box.appendChild(counts);
    box.appendChild(cells[cells.length - 1].querySelector("ul.examples"));
    return box;
  }

  function place(id, node, none) {
    const box = document.getElementById(id);
    box.textContent = "";
    box.appendChild(node || el("p", none, "note"));
  }

  report.renderEntrant = function (name) {
    const who = data.names.indexOf(name);
    const back = "entrant=" + encodeURIComponent(name);
    const { own, against, mine } = record(who);
    section.dataset.entrant = name;
    document.getElementById("e-name").textContent = name;
    document.getElementById("e-games").href = gamesHash({ entrant: name });
    document.getElementById("e-summary").textContent = own.games.toLocaleString("en") +
      " games · " + own.wins.toLocaleString("en") + " wins (" + pct(own.wins, own.games) +
      ") · mean place " + (own.games ? (own.places / own.games).toFixed(2) : "–") + " · " +
      (own.faults ? own.faults.toLocaleString("en") + (own.faults === 1 ? " fault" : " faults")
        : "no faults");
    recordRows(name, against);
    const chosen = picks(mine);
    pickList("e-best", chosen.best, back, "No win without a fault.");
    pickList("e-worst", chosen.worst, back, "No loss and no fault.");
    place("e-faults", faultList(name, back), "No faults.");
    place("e-bluffing", cloneRow("table.bluff", name, back),
      "No bluffing statistics (they need replay files).");
  };
})();
