"""The entrant pages of the report: one section, shown at report.html#entrant=<name> and
filled in the page by entrant.js from what the page already holds (the games' JSON, the
faults and bluffing tables' rows of that entrant), so a hundred entrants add nothing per
entrant to the page.

This module must not read files: it writes the section the script fills.
"""

from __future__ import annotations

__all__ = [
    "entrant_section",
]

BEST_GAMES = 5
"""Games shown in each of an entrant's best and worst lists."""


def entrant_section(back: str = "standings", title: str = "Standings") -> str:
    """The section an entrant's page is drawn in, hidden until the address names one; its
    first link leads back to the section `back` (a ladder's is its ranking)."""
    return (
        f'<section id="entrant" hidden data-best="{BEST_GAMES}">'
        f'<p class="crumbs"><a href="#{back}">← {title}</a> · '
        '<a id="e-games" href="#games">its games</a></p>'
        '<h2 id="e-name"></h2><p id="e-summary" class="meta-line"></p>'
        '<h3>Against each opponent</h3><div class="scroll"><table class="record data">'
        "<thead><tr><th>Opponent</th><th class=num>Games</th><th class=num>Wins</th>"
        "<th class=num>Win rate</th><th class=num>Mean place</th></tr></thead>"
        '<tbody id="e-record"></tbody></table></div>'
        '<p class="note">Wins: games it placed first at a table where that opponent sat; '
        "mean place: its own place in those games. Each row opens those games.</p>"
        '<h3>Best games</h3><ol id="e-best" class="picks"></ol>'
        '<h3>Worst games</h3><ol id="e-worst" class="picks"></ol>'
        '<p class="note">Best: its wins by the widest margin over the runner-up (then the '
        "shortest). Worst: games where it faulted, then its lowest places, by the widest "
        "margin to the winner (then the shortest).</p>"
        '<h3>Faults</h3><div id="e-faults"></div>'
        '<h3>Bluffing</h3><div id="e-bluffing" class="scroll"></div>'
        "</section>\n"
    )
