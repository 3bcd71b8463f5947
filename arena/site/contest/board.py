"""The leaderboard's rows, read from the results folder the season writes: a ladder's
ladder.json `ranking` (rating with its interval, games, faults, provisional, rank, tied), or
for a class each version's grades.json (results/versions/<bot>@<n>/). `leaderboard` is the
one reader; until the season's own (arena.site.season.standings) is merged, it is this."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.site.contest.contest import Contest
from arena.tournament import safe_read

__all__ = ["Board", "Row", "board", "leaderboard"]

LADDER_FILE = "ladder.json"
GRADES_FILE = "grades.json"
VERSIONS = "versions"
"""A class's results folder: one folder a version, each its own gauntlet's results."""


@dataclass(frozen=True, slots=True)
class Row:
    """One player of the leaderboard: a bot (its file's stem) at one version."""

    bot: str
    version: int
    rank: int
    tied: bool
    elo: float | None
    low: float | None
    high: float | None
    games: int
    faults: int
    provisional: bool
    grade: str | None = None

    @property
    def key(self) -> str:
        """The bot's name case-folded, as the site's bot names are unique."""
        return self.bot.casefold()

    @property
    def margin(self) -> int | None:
        """Half the interval's width, rounded: the `±` of the rating."""
        if self.low is None or self.high is None:
            return None
        return round((self.high - self.low) / 2)


@dataclass(frozen=True, slots=True)
class Board:
    """What the leaderboard shows: ranked rows, provisional rows apart, and any problem."""

    ranked: tuple[Row, ...]
    provisional: tuple[Row, ...]
    problem: str = ""


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else None


def _ladder_row(item: Any) -> Row:
    """A ranking entry of ladder.json as a row (a wrong entry: Unreadable)."""
    if not isinstance(item, dict) or not isinstance(item.get("entrant"), str):
        raise safe_read.Unreadable(f"{LADDER_FILE}: a ranking entry without its entrant")
    return Row(bot=item["entrant"], version=int(item.get("version") or 0),
               rank=int(item.get("rank") or 0), tied=bool(item.get("tied")),
               elo=_number(item.get("elo")), low=_number(item.get("low")),
               high=_number(item.get("high")), games=int(item.get("games") or 0),
               faults=int(item.get("faults") or 0), provisional=bool(item.get("provisional")))


def _ladder(results: Path) -> list[Row]:
    path = results / LADDER_FILE
    if not path.exists():
        return []
    document = safe_read.json_file(path, follow=False)
    ranking = document.get("ranking") if isinstance(document, dict) else None
    if not isinstance(ranking, list):
        raise safe_read.Unreadable(f"{path}: no ranking")
    return [_ladder_row(item) for item in ranking]


def _graded(results: Path, grades: tuple[tuple[str, str], ...]) -> list[Row]:
    """A class: each bot's newest graded version, highest grade first."""
    newest: dict[str, Row] = {}
    folder = results / VERSIONS
    for path in sorted(folder.glob(f"*@*/{GRADES_FILE}")) if folder.is_dir() else []:
        bot, _, number = path.parent.name.rpartition("@")
        document = safe_read.json_file(path, follow=False)
        for graded in document.get("graded", []) if isinstance(document, dict) else []:
            games = sum(int(m.get("games") or 0) for m in graded.get("against", []))
            reached = graded.get("reached")
            row = Row(bot=bot, version=int(number) if number.isdigit() else 0, rank=0,
                      tied=False, elo=None, low=None, high=None, games=games, faults=0,
                      provisional=False, grade=reached if isinstance(reached, str) else None)
            if bot not in newest or row.version > newest[bot].version:
                newest[bot] = row
    order = [name for name, _ in grades]
    return sorted(newest.values(), key=lambda row: (
        -(order.index(row.grade) + 1 if row.grade in order else 0), row.key))


def leaderboard(contest: Contest) -> list[Row]:
    """The leaderboard's rows as the results folder has them now (Unreadable if it lies)."""
    if contest.graded:
        return _graded(contest.results, contest.config.grades)
    return _ladder(contest.results)


def board(contest: Contest, shown: frozenset[str] | None) -> Board:
    """The leaderboard for one reader: every row, or (`shown`) only those bots' rows."""
    try:
        rows = leaderboard(contest)
    except safe_read.Unreadable as exc:
        return Board((), (), f"The leaderboard cannot be read now: {exc}")
    if shown is not None:
        rows = [row for row in rows if row.key in shown]
    return Board(tuple(r for r in rows if not r.provisional),
                 tuple(r for r in rows if r.provisional))
