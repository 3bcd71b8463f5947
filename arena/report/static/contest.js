// arena report: the "find an entrant" boxes (above the standings, and above a big
// crosstable). Typing part of a name in either keeps, in every table of entrants
// (standings, spread, head to head, bluffing), the rows whose name holds it, and marks the
// crosstable's columns of those names; the boxes show the same text. No network.
(function () {
  "use strict";
  const inputs = [...document.querySelectorAll("input.find")];
  if (!inputs.length) return;
  const counts = [...document.querySelectorAll(".find-count")];
  const rows = [...document.querySelectorAll(
    "#standings tr[data-entrant], #spread [data-entrant], #bluffing tr[data-entrant]," +
    " #faults tr[data-entrant]," +
    " #crosstable tbody tr[data-name]")];
  const columns = [...document.querySelectorAll("#crosstable th.col[data-name]")];
  const total = document.querySelectorAll("#standings tr[data-entrant]").length;

  function nameOf(node) {
    return (node.dataset.entrant || node.dataset.name || "").toLowerCase();
  }

  function find(event) {
    const typed = event ? event.target.value : inputs[0].value;
    for (const input of inputs) if (input.value !== typed) input.value = typed;
    const text = typed.trim().toLowerCase();
    for (const row of rows) row.hidden = Boolean(text) && !nameOf(row).includes(text);
    for (const col of columns) {
      col.classList.toggle("found", Boolean(text) && nameOf(col).includes(text));
    }
    const kept = document.querySelectorAll("#standings tr[data-entrant]:not([hidden])").length;
    for (const count of counts) count.textContent = text ? kept + " of " + total + " entrants" : "";
  }

  for (const input of inputs) {
    input.addEventListener("input", find);
    input.closest(".finder").hidden = false;
  }
  find();
})();
