"""A ladder's matchmaking: which players sit together in the next batch of tables.

Pure: it reads only its arguments (never a clock, a file or the global random generator);
ties are broken by a `random.Random` seeded from the seed and the batch number, so the same
field, settings and seed always give the same tables. The runner (arena/tournament/
ladder.py) builds the field from the log and plays each table at every cyclic rotation of
one deal, which balances the seats.

This first version seats the players with the fewest games first, each against the
players closest to it in rating; docs/matchmaking.md says what it guarantees.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.ratings.elo import Z95
from arena.ratings.summary import Summary
from arena.seeds import derive_seed

__all__ = ["UNRATED_ERROR", "Field", "Player", "Settings", "field_of", "next_tables"]

UNRATED_ERROR = 350.0
"""The standard error, in Elo points, of a player with no game."""


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


def next_tables(field: Field, settings: Settings, seed: int) -> tuple[tuple[str, ...], ...]:
    """The batch's tables, each a seating (seat 0 first) of `seats` distinct players."""
    if len(field.players) < settings.seats:
        return ()
    rng = random.Random(derive_seed(seed, f"matchmaking-{field.batch}"))
    draw = {p.name: rng.random() for p in field.players}
    games = {p.name: p.games for p in field.players}
    rating = {p.name: p.rating for p in field.players}
    tables: list[tuple[str, ...]] = []
    for _ in range(settings.tables):
        focal = min(games, key=lambda name: (games[name], draw[name]))
        others = sorted((name for name in games if name != focal),
                        key=lambda name: (abs(rating[name] - rating[focal]), draw[name]))
        table = (focal, *others[: settings.seats - 1])
        for name in table:
            games[name] += settings.seats
        tables.append(table)
    return tuple(tables)


def field_of(summary: Summary, active: Sequence[str], last_batch: Mapping[str, int],
             batch: int) -> Field:
    """The field of the active players, from a summary of every game of the ladder."""
    elo = {row.entrant: row for row in summary.elo()}
    rows = {row.entrant: row for row in summary.standings()}
    players = []
    for name in sorted(active):
        fit = elo[name]
        rated = fit.rating is not None and fit.low is not None and fit.high is not None
        players.append(Player(
            name, fit.games, min(fit.games, rows[name].faults.total),
            fit.rating if fit.rating is not None else 0.0,
            (fit.high - fit.low) / (2 * Z95) if rated else UNRATED_ERROR,  # type: ignore[operator]
            last_batch.get(name, 0)))
    wanted = set(active)
    meetings = {(row.entrant, row.opponent): row.games for row in summary.crosstable()
                if row.entrant < row.opponent and row.entrant in wanted
                and row.opponent in wanted}
    return Field(tuple(players), meetings, batch)
