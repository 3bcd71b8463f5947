"""The ratings and standings as text: ratings.json, standings.csv, standings.md and
crosstable.csv, byte for byte.

JSON and CSV numbers are rounded to 6 decimals (a sign of zero never changes the bytes),
keys and rows come in a fixed order, so the same games always give the same files; the
Markdown table is for people (at most 120 columns), with one line saying what orders it.
Every CSV is written by `sheet`, whose name cells are made safe for a spreadsheet
(`sheet_cell`); the numbers arena computes (`-0.5` too) are not user input and stay as
they are.

It must stay pure: renderers return strings (the tournament layer writes files
atomically); it computes no rating and no rank.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence

from arena.ratings.elo import EloRating
from arena.ratings.games import FAULT_KINDS
from arena.ratings.standings import DECIMALS, FaultCounts, StandingRow
from arena.ratings.summary import CrossRow, OpenSkillRating


def _rounded(value: float | None) -> float | None:
    # Adding 0.0 turns -0.0 into 0.0, so a sign of zero never changes the bytes.
    return None if value is None else round(value, DECIMALS) + 0.0


def _fixed(value: float | None) -> str:
    return "" if value is None else f"{_rounded(value):.{DECIMALS}f}"


def ratings_json(openskill: Sequence[OpenSkillRating], elo: Sequence[EloRating]) -> str:
    """Render both rating systems as JSON keyed by entrant, sorted keys, 6 decimals."""
    by_name = {row.entrant: row for row in elo}
    document = {
        "interval": 0.95,
        "entrants": {
            row.entrant: {
                "games": row.games,
                "openskill": {
                    "mu": _rounded(row.mu),
                    "sigma": _rounded(row.sigma),
                    "ordinal": _rounded(row.ordinal),
                    "low": _rounded(row.low),
                    "high": _rounded(row.high),
                },
                "elo": _elo_json(by_name.get(row.entrant)),
            }
            for row in openskill
        },
    }
    return json.dumps(document, sort_keys=True, indent=2, allow_nan=False) + "\n"


def _elo_json(row: EloRating | None) -> dict[str, float | None] | None:
    if row is None or row.rating is None:
        return None
    return {"rating": _rounded(row.rating), "low": _rounded(row.low), "high": _rounded(row.high)}


_STANDING_COLUMNS: tuple[str, ...] = (
    "rank", "entrant", "games", "wins", "win_rate", "win_low", "win_high", "mean_placement",
    "rating", "mu", "sigma", "elo", "elo_low", "elo_high", *FAULT_KINDS, "tied",
)  # fmt: skip
"""`rating` is the OpenSkill ordinal; `tied` is 1 when the row's 95% Elo interval overlaps
the one above."""


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""How a cell a spreadsheet would run as a formula begins (OWASP, "CSV injection")."""
SHEET_QUOTE = "'"
"""What makes a spreadsheet show such a cell as text."""


def sheet_cell(text: str) -> str:
    """A name as a spreadsheet shows it and never runs it: a cell that begins with a formula's
    start gets a leading quote, and so does one that begins with a quote (so `sheet_text`
    gives every name back as it was)."""
    return SHEET_QUOTE + text if text.startswith((*FORMULA_STARTS, SHEET_QUOTE)) else text


def sheet_text(cell: str) -> str:
    """The name a `sheet_cell` holds, for a reader of arena's CSV files."""
    return cell[1:] if cell.startswith(SHEET_QUOTE) else cell


class _Lines(list[str]):
    """Rows a csv writer ends in CR LF (so it quotes a cell holding a lone CR, which would
    end the row for a reader), each kept ending in LF as arena's files do."""

    def write(self, line: str) -> None:
        self.append(line.removesuffix("\r\n") + "\n")


def sheet(header: Sequence[str], rows: Iterable[Sequence[object]], names: Sequence[str]) -> str:
    """A CSV file arena writes: the header and the cells of the `names` columns (text a user
    chose) through `sheet_cell`, arena's own figures as they are."""
    quoted = {header.index(name) for name in names}
    lines = _Lines()
    writer = csv.writer(lines, lineterminator="\r\n")
    writer.writerow([sheet_cell(cell) for cell in header])
    writer.writerows([sheet_cell(str(cell)) if column in quoted else cell
                      for column, cell in enumerate(row)] for row in rows)
    return "".join(lines)


def standings_csv(rows: Sequence[StandingRow]) -> str:
    """Render the standings as CSV, one column per stat and per fault kind."""
    return sheet(_STANDING_COLUMNS, (_standing_cells(row) for row in rows), ("entrant",))


def _standing_cells(row: StandingRow) -> list[object]:
    floats = (
        row.win_rate, row.win_low, row.win_high, row.mean_placement,
        row.rating, row.mu, row.sigma, row.elo, row.elo_low, row.elo_high,
    )  # fmt: skip
    faults = [getattr(row.faults, kind) for kind in FAULT_KINDS]
    rank = "" if row.rank is None else row.rank
    tied = int(row.tied) if row.rank is not None else ""
    return [rank, row.entrant, row.games, row.wins, *(_fixed(v) for v in floats), *faults, tied]


def crosstable_csv(rows: Sequence[CrossRow]) -> str:
    """Render the crosstable as CSV, one line per ordered pair."""
    header = ("entrant", "opponent", "games", "above", "below", "ties")
    return sheet(header, ((r.entrant, r.opponent, r.games, r.above, r.below, r.ties)
                         for r in rows), ("entrant", "opponent"))


_MD_HEADER: tuple[str, ...] = (
    "#", "entrant", "games", "wins", "win rate (CI)", "place", "Elo ±95%", "OpenSkill", "faults",
)  # fmt: skip
_MD_LEFT = frozenset({"entrant", "faults"})
_TIE_MARK = "~"
MD_NOTE = (
    "Ranked by Elo (Bradley-Terry over all games, ±95% CI); ~: CI overlaps the one above, a tie. "
    "OpenSkill: mu - 3 sigma."
)
MD_BRACKET_NOTE = (
    "Ranked by the bracket: champion first, then by round reached, then by the match lost "
    "(games won in it). Elo (±95% CI) and OpenSkill (mu - 3 sigma): columns."
)
MD_CHAMPIONS_NOTE = (
    "Champions, not ranked: every challenger played them, they never played each other "
    "(with grades, the graded bots are among them):"
)
MD_SWISS_NOTE = (
    "Ranked by Swiss score (each round 0 to 1, a bye 1), then Buchholz, then Elo, then name; "
    "stages.json has every round's scores. Elo (±95% CI) and OpenSkill (mu - 3 sigma): columns."
)


def standings_md(
    rows: Sequence[StandingRow],
    *,
    bracket: bool = False,
    swiss: bool = False,
    champions: Sequence[str] = (),
) -> str:
    """Render the standings as an aligned Markdown table that also reads well in a terminal
    (at most 120 columns for entrant names of up to 24 characters), with one line saying
    what orders it: Elo and its ties, an elimination's `bracket`, or a `swiss`'s scores;
    a gauntlet's `champions`, never ranked against each other, in a table of their own."""
    note = MD_SWISS_NOTE if swiss else MD_BRACKET_NOTE if bracket else MD_NOTE
    apart = [row for row in rows if row.entrant in champions]
    text = _md_table([row for row in rows if row.entrant not in champions]) + f"\n{note}\n"
    return text + (f"\n{MD_CHAMPIONS_NOTE}\n\n{_md_table(apart)}" if apart else "")


def _md_table(rows: Sequence[StandingRow]) -> str:
    """The rows as an aligned Markdown table."""
    table = [list(_MD_HEADER), *(_md_cells(row) for row in rows)]
    # At least three wide, so every rule cell holds a hyphen as Markdown requires.
    widths = [max(3, *(len(line[col]) for line in table)) for col in range(len(_MD_HEADER))]
    left = [name in _MD_LEFT for name in _MD_HEADER]
    rule = [
        "-" * w if is_left else "-" * (w - 1) + ":" for w, is_left in zip(widths, left, strict=True)
    ]
    lines = [_md_line(line, widths, left) for line in table]
    lines.insert(1, "| " + " | ".join(rule) + " |")
    return "\n".join(lines) + "\n"


def _md_line(cells: Sequence[str], widths: Sequence[int], left: Sequence[bool]) -> str:
    padded = (
        cell.ljust(width) if is_left else cell.rjust(width)
        for cell, width, is_left in zip(cells, widths, left, strict=True)
    )
    return "| " + " | ".join(padded) + " |"


def _md_cells(row: StandingRow) -> list[str]:
    rank = "-" if row.rank is None else (_TIE_MARK if row.tied else "") + str(row.rank)
    return [
        rank,
        row.entrant,
        str(row.games),
        str(row.wins),
        _md_win_rate(row),
        "-" if row.mean_placement is None else f"{row.mean_placement:.2f}",
        _md_elo(row),
        "-" if row.rating is None else f"{_rounded(row.rating):.2f}",
        _md_faults(row.faults),
    ]


def _md_faults(faults: FaultCounts) -> str:
    """The total and its kind, or `mixed`: one short cell however many kinds occurred (each
    kind has its own column in standings.csv)."""
    if not faults.total:
        return "-"
    kinds = [kind for kind in FAULT_KINDS if getattr(faults, kind)]
    return f"{faults.total} {kinds[0] if len(kinds) == 1 else 'mixed'}"


def _md_win_rate(row: StandingRow) -> str:
    if row.win_rate is None or row.win_low is None or row.win_high is None:
        return "-"
    return f"{100 * row.win_rate:.1f}% ({100 * row.win_low:.0f}-{100 * row.win_high:.0f})"


def _md_elo(row: StandingRow) -> str:
    if row.elo is None or row.elo_low is None or row.elo_high is None:
        return "-"
    half = (row.elo_high - row.elo_low) / 2  # a Fisher interval is symmetric
    return f"{round(row.elo) + 0:+d} ±{half:.0f}"
