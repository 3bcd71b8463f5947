"""The leaderboard's rows, read from the results folder the season writes: a ladder's
ladder.json `ranking` (rating with its interval, games, faults, provisional, rank, tied), or
for a class each student's active version's grades, both as arena.site.contest.standings (the
one reader of those files) has them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.site.contest import standings
from arena.site.contest.contest import Contest
from arena.tournament.run import safe_read

__all__ = ["Board", "Row", "board", "leaderboard"]

LADDER_FILE = "ladder.json"


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


def _graded(contest: Contest) -> list[Row]:
    """A class: each student's active version, highest grade first."""
    order = [name for name, _ in contest.config.grades]
    rows = []
    for found in standings.grades(contest):
        number = str(found["player"]).rpartition("@")[2]
        games = sum(int(m.get("games") or 0) for m in found["against"])
        reached = found["reached"]
        rows.append(Row(bot=found["student"], version=int(number) if number.isdigit() else 0,
                        rank=0, tied=False, elo=None, low=None, high=None, games=games,
                        faults=0, provisional=False,
                        grade=reached if isinstance(reached, str) else None))
    return sorted(rows, key=lambda row: (
        -(order.index(row.grade) + 1 if row.grade in order else 0), row.key))


def leaderboard(contest: Contest) -> list[Row]:
    """The leaderboard's rows as the results folder has them now (Unreadable if it lies)."""
    if contest.graded:
        return _graded(contest)
    return [_ladder_row(item) for item in standings.ranking(contest)]


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
