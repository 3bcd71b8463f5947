"""A Swiss's rounds in the report: every round's tables with each player's round score,
its byes and repeat meetings, and the final standings with the tie-breaks that decided
them (score, Buchholz, Elo), all read from stages.json.

This module only renders what stages.json says (arena/tournament/formats/swiss/stages.py writes
it); it never pairs, scores or rates anything, and reads no other file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.report.markup import escape
from arena.report.tables import entrant_link

__all__ = ["rounds_section"]

def rounds_section(stages: Mapping[str, Any]) -> str:
    """The rounds as a table, one row a round, and the final standings, so a reader sees
    why each round was seated as it was and how ties were broken."""
    rows = "".join(_round_row(stage) for stage in stages.get("stages", ()))
    table = (
        '<div class="scroll box"><table class="data rounds"><thead><tr><th>Round</th>'
        "<th>Tables (round score)</th><th>Bye</th><th class=num>Repeats</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></div>"
    )
    final = _final(stages.get("standings") or ())
    note = (
        '<p class="note">A game gives a seat (k − place) / (k − 1) points at a table of k; '
        "Buchholz sums the scores of the table mates met, a bye counting as table mates "
        "with the player's own score; repeats: earlier meetings among table mates.</p>"
    )
    return table + final + note


def _round_row(stage: Mapping[str, Any]) -> str:
    tables = "<br>".join(_table(t) for t in stage.get("tables", ()))
    byes = ", ".join(escape(name) for name in stage.get("byes") or ()) or "–"
    state = "" if stage.get("complete") else ' <small class="dim">(playing)</small>'
    return (
        f"<tr><td>{escape(stage.get('name', ''))}{state}</td><td>{tables}</td>"
        f"<td>{byes}</td><td class=num>{escape(stage.get('repeats', 0))}</td></tr>"
    )


def _table(table: Mapping[str, Any]) -> str:
    names: Sequence[str] = table.get("entrants") or ()
    scores: Sequence[float] = table.get("scores") or ()
    seated = [
        entrant_link(name) + (f" <b>{_score(scores[i])}</b>" if scores else "")
        for i, name in enumerate(names)
    ]
    return f"{escape(table.get('table', ''))}: " + " · ".join(seated)


def _final(rows: Sequence[Mapping[str, Any]]) -> str:
    if not rows:
        return ""
    body = "".join(
        f"<tr><td class=num>{i}</td><td>{entrant_link(row['entrant'])}</td>"
        f"<td class=num>{_score(row['score'])}</td><td class=num>{_score(row['buchholz'])}</td>"
        f"<td class=num>{escape(row.get('byes', 0))}</td>"
        f"<td class=num>{_elo(row.get('elo'))}</td></tr>"
        for i, row in enumerate(rows, 1)
    )
    return (
        '<h3>Final standings</h3><div class="scroll box"><table class="data rounds"><thead>'
        "<tr><th class=num>#</th><th>Entrant</th><th class=num>Score</th>"
        "<th class=num>Buchholz</th><th class=num>Byes</th><th class=num>Elo</th></tr></thead>"
        f"<tbody>{body}</tbody></table></div>"
    )


def _elo(value: float | None) -> str:
    return "–" if value is None else f"{value:+.0f}"


def _score(value: float) -> str:
    """A score as short as it is exact enough: 2, 1.5, 0.333."""
    return f"{value:.3f}".rstrip("0").rstrip(".")
