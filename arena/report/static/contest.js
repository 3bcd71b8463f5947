// arena report: the "find an entrant" box. Typing part of a name keeps, in every table of
// entrants (standings, spread, head to head, bluffing), the rows whose name holds it, and
// marks the crosstable's columns of those names. No framework, no network.
(function () {
  "use strict";
  const input = document.getElementById("find");
  if (!input) return;
  const count = document.getElementById("find-count");
  const rows = [...document.querySelectorAll(
    "#standings tr[data-entrant], #spread [data-entrant], #bluffing tr[data-entrant]," +
    " #crosstable tbody tr[data-name]")];
  const columns = [...document.querySelectorAll("#crosstable th.col[data-name]")];
  const total = document.querySelectorAll("#standings tr[data-entrant]").length;

  function nameOf(node) {
    return (node.dataset.entrant || node.dataset.name || "").toLowerCase();
  }

  function find() {
    const text = input.value.trim().toLowerCase();
    for (const row of rows) row.hidden = Boolean(text) && !nameOf(row).includes(text);
    for (const col of columns) col.classList.toggle("found", Boolean(text) && nameOf(col).includes(text));
    const kept = document.querySelectorAll("#standings tr[data-entrant]:not([hidden])").length;
    count.textContent = text ? kept + " of " + total + " entrants" : "";
  }

  input.addEventListener("input", find);
  find();
})();
