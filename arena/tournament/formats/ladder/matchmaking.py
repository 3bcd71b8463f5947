"""A ladder's matchmaking: which players sit together in the next batch of tables.

Pure: it reads only its arguments (never a clock, a file or the global random generator);
ties are broken by a `random.Random` seeded from the seed and the batch number, so the same
field, settings and seed always give the same tables. The runner (arena/tournament/
ladder.py) builds the field from the log and plays each table at every cyclic rotation of
one deal, which balances the seats per table.

It seats the least certain players first; within the top band it seats the closest ratings
together, and elsewhere the opponents each player met least, so that the field's games
spread as a round robin's do (a batch fit's order depends on whom each player met when
strengths are not transitive, and neighbours-only games bias it). It makes its coverage
guarantees true by construction: a starvation floor of `floor_seats` seats for the players
who waited longest, one band table a batch rotating through the top band's pairs, and
provisional players before ranked ones; docs/matchmaking.md states the bounds.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from arena.ratings.elo import Z95, EloRating
from arena.seeds import derive_seed

__all__ = ["UNRATED_ERROR", "Field", "Player", "Settings", "band_pairs", "field_of",
           "floor_seats", "next_tables", "starvation_window"]

UNRATED_ERROR = 350.0
"""The standard error, in Elo points, of a player with no game."""

BAND_REPEAT = 300.0
"""Within the top band: Elo points a pair's meetings cost, per game of the seated player."""
FIELD_GAP = 0.3
"""Elsewhere: the weight of the rating gap, small beside the repeats below."""
FIELD_REPEAT = 3000.0
"""Elsewhere: Elo points a pair's meetings cost, per game of the seated player."""
FAULT_COST = 800.0
"""Elo points a newcomer's fault rate costs (1.0: every game faulted)."""


@dataclass(frozen=True, slots=True)
class Player:
    """One active player as matchmaking sees it."""

    name: str
    games: int
    faults: int
    """Games in which it faulted."""
    rating: float
    """Elo; 0.0 when it has no game."""
    error: float
    """Standard error of `rating`, in Elo points."""
    last_batch: int
    """The last batch it sat in (0: never)."""

    @property
    def fault_rate(self) -> float:
        """Faults per game, shrunk towards 0 so one early fault does not condemn."""
        return self.faults / (self.games + 2)

    @property
    def faulting(self) -> bool:
        """Whether it keeps faulting: then it gets only the starvation floor."""
        return self.fault_rate >= 0.5


@dataclass(frozen=True, slots=True)
class Field:
    """The active players, who has met whom, and which batch is being planned."""

    players: tuple[Player, ...]
    meetings: Mapping[tuple[str, str], int]
    """(a, b) with a < b: games they sat at one table."""
    batch: int


@dataclass(frozen=True, slots=True)
class Settings:
    """The shape of a batch and the ladder's coverage settings."""

    seats: int
    tables: int
    min_games: int
    band: int


def floor_seats(settings: Settings) -> int:
    """Seats a batch reserves for the players who waited longest, so nobody starves."""
    return max(1, settings.tables * settings.seats // 4)


def starvation_window(players: int, settings: Settings) -> int:
    """W: every player sits at least once in every W consecutive batches."""
    if players < settings.tables * settings.seats:
        return 1
    return -(-players // floor_seats(settings))


def band_pairs(field: Field, settings: Settings) -> tuple[tuple[str, str], ...]:
    """The top band's pairs in rotation order; one of them shares a table each batch."""
    ranked = sorted((p for p in field.players
                     if p.games >= settings.min_games and not p.faulting),
                    key=lambda p: (-p.rating, p.name))
    band = sorted(p.name for p in ranked[: settings.band])
    return tuple(combinations(band, 2))


def next_tables(field: Field, settings: Settings, seed: int) -> tuple[tuple[str, ...], ...]:
    """The batch's tables, each a seating (seat 0 first) of `seats` distinct players."""
    if len(field.players) < settings.seats or settings.tables < 1:
        return ()
    rng = random.Random(derive_seed(seed, f"matchmaking-{field.batch}"))
    draw = {p.name: rng.random() for p in field.players}
    by_name = {p.name: p for p in field.players}
    pair = _band_pair(field, settings)
    costs = _Costs(by_name, field.meetings,
                   frozenset(name for names in band_pairs(field, settings) for name in names))
    counts = _seat_counts(field, settings, draw, pair)
    order = sorted(by_name, key=lambda n: _priority(by_name[n], settings, draw[n]))
    tables: list[tuple[str, ...]] = []
    for index in range(settings.tables):
        left = settings.tables - index
        forced = [n for n in order if counts[n] == left]
        start = [n for n in (pair or ()) if counts[n] > 0] if index == 0 else []
        if len(set(forced) | set(start)) > settings.seats:
            start = []
        table = _fill(start + [n for n in forced if n not in start], order, counts,
                      costs, settings.seats, draw)
        for name in table:
            counts[name] -= 1
        tables.append(tuple(table))
    return tuple(tables)


def _band_pair(field: Field, settings: Settings) -> tuple[str, str] | None:
    """This batch's band pair, or None when there is no band or no room for it."""
    pairs = band_pairs(field, settings)
    if not pairs or settings.seats < 2:
        return None
    if settings.tables * settings.seats < floor_seats(settings) + 2:
        return None
    return pairs[field.batch % len(pairs)]


def _priority(player: Player, settings: Settings, draw: float) -> tuple[object, ...]:
    """Sort key: provisional (fewest games) first, then least certain, then waited longest."""
    provisional = player.games < settings.min_games
    return (player.faulting, not provisional, player.games if provisional else 0,
            -player.error, player.last_batch, draw)


def _seat_counts(field: Field, settings: Settings, draw: Mapping[str, float],
                 pair: tuple[str, str] | None) -> dict[str, int]:
    """How many seats each player gets this batch: the floor, the band pair, then priority."""
    seats = settings.tables * settings.seats
    players = field.players
    ranked = sorted(players, key=lambda p: _priority(p, settings, draw[p.name]))
    if len(players) < seats:
        counts = {p.name: seats // len(players) for p in players}
        for p in ranked[: seats % len(players)]:
            counts[p.name] += 1
        return counts
    waited = sorted(players, key=lambda p: (p.last_batch, draw[p.name]))
    chosen = [p.name for p in waited[: floor_seats(settings)]]
    chosen += [n for n in (pair or ()) if n not in chosen]
    chosen += [p.name for p in ranked if p.name not in chosen]
    picked = set(chosen[:seats])
    return {p.name: int(p.name in picked) for p in players}


def _fill(start: list[str], order: Sequence[str], counts: Mapping[str, int], costs: _Costs,
          seats: int, draw: Mapping[str, float]) -> list[str]:
    """One table: the start players, the first in priority order, then the cheapest."""
    table = list(start)
    if not table:
        table.append(next(n for n in order if counts[n] > 0))
    while len(table) < seats:
        free = [n for n in order if counts[n] > 0 and n not in table]
        table.append(min(free, key=lambda n: (sum(costs.of(m, n) for m in table), draw[n])))
    return table


@dataclass(frozen=True, slots=True)
class _Costs:
    """What seating one player beside another costs, in Elo points (docs/matchmaking.md)."""

    players: Mapping[str, Player]
    meetings: Mapping[tuple[str, str], int]
    band: frozenset[str]

    def of(self, seated: str, newcomer: str) -> float:
        """Within the top band, the closest game; elsewhere, the opponent met least, so
        each player's games spread over the field as a round robin's do."""
        a, b = self.players[seated], self.players[newcomer]
        share = self.meetings.get((min(a.name, b.name), max(a.name, b.name)), 0) / max(1, a.games)
        gap = abs(a.rating - b.rating)
        if a.name in self.band and b.name in self.band:
            return gap + BAND_REPEAT * share + FAULT_COST * b.fault_rate
        return FIELD_GAP * gap + FIELD_REPEAT * share + FAULT_COST * b.fault_rate


def field_of(ratings: Mapping[str, EloRating], faulted: Mapping[str, int],
             meetings: Mapping[tuple[str, str], int], active: Sequence[str],
             last_batch: Mapping[str, int], batch: int) -> Field:
    """The field of the active players, from the ladder's running state: each one's Elo
    (absent: no game yet), games it faulted in, and the games each pair shared."""
    players = []
    for name in sorted(active):
        fit = ratings.get(name)
        rated = fit is not None and fit.rating is not None and fit.low is not None \
            and fit.high is not None
        players.append(Player(
            name, fit.games if fit is not None else 0, faulted.get(name, 0),
            fit.rating if fit is not None and fit.rating is not None else 0.0,
            (fit.high - fit.low) / (2 * Z95) if rated else UNRATED_ERROR,  # type: ignore[union-attr,operator]
            last_batch.get(name, 0)))
    wanted = set(active)
    shared = {pair: games for pair, games in meetings.items()
              if pair[0] < pair[1] and pair[0] in wanted and pair[1] in wanted}
    return Field(tuple(players), shared, batch)
