// arena report: a ladder's rating over time. Picking a name in the legend (or hovering it, or
// a line) shows that player's 95% band and its rating now, and dims the other lines; picking
// it again lets go. Everything drawn is in the page already (arena/report/ladder/chart.py).
(function () {
  "use strict";
  const chart = document.querySelector(".ld-chart svg");
  if (!chart) return;
  const drawn = [...chart.querySelectorAll("g.ld-player")];
  const groups = new Map(drawn.map((group) => [group.dataset.player, group]));
  const keys = [...document.querySelectorAll("button.ld-key")];
  const caption = document.getElementById("ld-picked");
  let picked = null;

  function show(player) {
    for (const [name, group] of groups) group.classList.toggle("shown", name === player);
    chart.classList.toggle("has-pick", player !== null);
    const group = player === null ? null : groups.get(player);
    caption.textContent = group ? group.dataset.now : "";
  }

  function pick(player) {
    picked = picked === player ? null : player;
    for (const key of keys) key.setAttribute("aria-pressed", String(key.dataset.player === picked));
    show(picked);
  }

  for (const key of keys) {
    key.addEventListener("click", () => pick(key.dataset.player));
    key.addEventListener("mouseenter", () => show(key.dataset.player));
    key.addEventListener("mouseleave", () => show(picked));
  }
  for (const [name, group] of groups) {
    group.addEventListener("mouseenter", () => show(name));
    group.addEventListener("mouseleave", () => show(picked));
    group.addEventListener("click", () => pick(name));
  }
})();
