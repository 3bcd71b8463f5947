"""The leaderboard's rows, read from the results folder the season writes: a ladder's
ladder.json `ranking` (rating with its interval, games, faults, provisional, rank, tied), or
for a class each student's active version's grades, both as arena.site.contest.standings (the
one reader of those files) has them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from django.db.models import Count

from arena.site.contest import standings
from arena.site.contest.contest import Contest
from arena.site.contest.models import Bot, Seat
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
    pages: frozenset[str] = frozenset()
    """The rows' bots that have a page (the participants'; a house entrant has none)."""


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


def _faults(found: list[dict[str, Any]]) -> dict[str, int]:
    """A class's faults by player, counted in the games index: a student's version's in its
    gauntlet, a house student's in the demo class."""
    players = [row["player"] for row in found if not row["house"]]
    house = [row["player"] for row in found if row["house"]]
    faulty = Seat.objects.exclude(fault="")
    counted = list(faulty.filter(version__player__in=players).values_list("version__player")
                   .annotate(n=Count("id")).order_by())
    counted += faulty.filter(version=None, entrant__in=house).values_list("entrant").annotate(
        n=Count("id")).order_by()
    return {str(player): int(n) for player, n in counted}


def _graded(contest: Contest) -> list[Row]:
    """A class: each student's active version, highest grade first."""
    order = [name for name, _ in contest.config.grades]
    rows = []
    found_rows = standings.grades(contest)
    faults = _faults(found_rows)
    for found in found_rows:
        number = str(found["player"]).rpartition("@")[2]
        games = sum(int(m.get("games") or 0) for m in found["against"])
        reached = found["reached"]
        rows.append(Row(bot=found["student"], version=int(number) if number.isdigit() else 0,
                        rank=0, tied=False, elo=None, low=None, high=None, games=games,
                        faults=faults.get(str(found["player"]), 0), provisional=False,
                        grade=reached if isinstance(reached, str) else None))
    return _ranked_by_grade(rows, order)


def _ranked_by_grade(rows: list[Row], order: list[str]) -> list[Row]:
    """Highest grade first, by name within a grade; the same grade is the same rank (a
    class's rows differ by grade only, never by name)."""
    def level(row: Row) -> int:
        return order.index(row.grade) + 1 if row.grade in order else 0

    ranked: list[Row] = []
    for row in sorted(rows, key=lambda row: (-level(row), row.key)):
        same = bool(ranked) and level(ranked[-1]) == level(row)
        ranked.append(replace(row, rank=ranked[-1].rank if same else len(ranked) + 1))
    return ranked


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
    pages = Bot.objects.filter(key__in=[row.key for row in rows]).values_list("key", flat=True)
    return Board(tuple(r for r in rows if not r.provisional),
                 tuple(r for r in rows if r.provisional), pages=frozenset(pages))
