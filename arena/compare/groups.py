"""The duplicate groups of `arena compare`: what a comparison plays, group by group.

A comparison plays *groups* of games that share one seed (see docs/compare.md). This module
says what fixes those games (`Setup`), plans each group's tables (who sits where, on which
seed), turns a group into the tournament's scheduled games, and reads a group's paired score
difference and faults back from its played games.

It must not play games, print, parse command lines, or look at the sequential tests: the
games are played by `arena.compare.run`, the verdict is `arena.compare.verdict`'s.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, TypeVar

from arena.bot import Limits
from arena.entrants import EntrantError, Reference
from arena.seeds import derive_seed

DEFAULT_MAX_GROUPS = 15_000
"""Without a game limit: 15 000 groups, 30 000 games for two seats (3-5x the expected length)."""
DEFAULT_SEED = 1


class CompareError(EntrantError):
    """A comparison that cannot start: unknown bot, bad option, seat count or bounds."""


Entrant = Reference
"""A bot as named by the user: its reference, bot options and mode (arena.entrants)."""


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything that fixes which games a comparison plays."""

    candidate: Entrant
    baseline: Entrant
    rules: str = "dice"
    seats: int = 2
    field: tuple[Entrant, ...] = ()
    options: tuple[tuple[str, Any], ...] = ()
    seed: int = DEFAULT_SEED
    limits: Limits = dataclasses.field(default_factory=Limits)
    duplicate: bool = True
    """False gives every game its own seed: unpaired play, for measuring what pairing saves."""

    @property
    def group_games(self) -> int:
        """Games in one group: the pair for two seats, two per rotation for more."""
        return 2 if self.seats == 2 else 2 * self.seats

    def default_max_games(self) -> int:
        """The game limit when none is given: DEFAULT_MAX_GROUPS groups."""
        return DEFAULT_MAX_GROUPS * self.group_games


@dataclass(frozen=True, slots=True)
class Table:
    """One game of a group: its seed, the bot in each seat, and the seats being compared."""

    seed: int
    seats: tuple[Entrant, ...]
    candidate_seat: int | None
    baseline_seat: int | None


def group_seed(setup: Setup, index: int) -> int:
    """The seed every game of group `index` shares."""
    return derive_seed(setup.seed, "compare", index)


def plan_group(setup: Setup, index: int) -> tuple[Table, ...]:
    """The games of one group, in the order they are played.

    Two seats: the pair, candidate in seat 0 then in seat 1, the baseline opposite. More
    seats: for each rotation s, the candidate in seat s with the field after it (seats s+1,
    s+2, ... wrapping, so neighbours never change), then the same table with the baseline.
    """
    seed = group_seed(setup, index)

    def seed_of(game: int) -> int:
        return seed if setup.duplicate else derive_seed(seed, "unpaired", game)

    cand, base = setup.candidate, setup.baseline
    if setup.seats == 2:
        return (Table(seed_of(0), (cand, base), 0, 1), Table(seed_of(1), (base, cand), 1, 0))
    tables: list[Table] = []
    for s in range(setup.seats):
        for role, bot in (("candidate", cand), ("baseline", base)):
            seats = _seat_field(setup.seats, s, bot, setup.field)
            tested = (s, None) if role == "candidate" else (None, s)
            tables.append(Table(seed_of(len(tables)), seats, *tested))
    return tuple(tables)


_Seated = TypeVar("_Seated")
"""What a table's seats hold: entrants, or their indexes in a scheduled game."""


def _seat_field(seats: int, tested: int, bot: _Seated,
                others: tuple[_Seated, ...]) -> tuple[_Seated, ...]:
    """Put `bot` in seat `tested` and the field in the seats after it, in order."""
    table: list[_Seated] = [bot] * seats
    for i, other in enumerate(others):
        table[(tested + 1 + i) % seats] = other
    return tuple(table)


def seat_score(placements: tuple[int, ...], seat: int) -> float:
    """Share of the other seats this seat beat, ties counting half: 1 first, 0 last."""
    mine = placements[seat]
    others = [p for i, p in enumerate(placements) if i != seat]
    beaten = sum(1.0 if p > mine else 0.5 if p == mine else 0.0 for p in others)
    return beaten / len(others)


@dataclass(frozen=True, slots=True)
class GroupResult:
    """One group's outcome: the paired score difference and the faults of each side."""

    index: int
    diff: float
    games: int
    candidate_faults: int = 0
    baseline_faults: int = 0


def compare_games(setup: Setup, index: int) -> tuple[Any, ...]:
    """Group `index` as scheduled games (GameSpec): entrant indexes as in `game_setup`."""
    from arena.tournament.formats.schedule import GameSpec

    field = tuple(range(2, 2 + len(setup.field)))
    games = []
    for number, table in enumerate(plan_group(setup, index)):
        seats: tuple[int, ...]
        if setup.seats == 2:
            seats = (0, 1) if table.candidate_seat == 0 else (1, 0)
        elif table.candidate_seat is not None:
            seats = _seat_field(setup.seats, table.candidate_seat, 0, field)
        else:
            assert table.baseline_seat is not None
            seats = _seat_field(setup.seats, table.baseline_seat, 1, field)
        games.append(GameSpec(f"compare-{index:06d}-{number}", "compare", index, seats,
                              table.seed, str(index)))
    return tuple(games)


def group_result(setup: Setup, index: int, played: list[Any]) -> GroupResult:
    """A group's paired score difference and faults from its played games, in plan order."""
    import json

    total = 0.0
    faults = [0, 0]
    for table, game in zip(plan_group(setup, index), played, strict=True):
        seat_faults = [f["seat"] for f in json.loads(game.line)["faults"]]
        for side, seat, sign in ((0, table.candidate_seat, 1), (1, table.baseline_seat, -1)):
            if seat is not None:
                total += sign * seat_score(game.placements, seat)
                faults[side] += seat_faults.count(seat)
    diff = max(-1.0, min(1.0, total / setup.seats))  # clamp: float sums may stray by 1 ulp
    return GroupResult(index, diff, len(played), faults[0], faults[1])
