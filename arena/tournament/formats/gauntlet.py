"""The gauntlet schedule: every challenger against every champion equally often.

Guarantees (pinned by tests/test_schedule.py; ids and seeds as in
arena/tournament/formats/schedule.py):

- `gauntlet`: champions never meet; every challenger (a non-champion) faces every champion
  in the same number of rotation sets. A rotation set is the k cyclic rotations of a
  table (champion first, then k-1 challengers); its k games share one deal (`group`).
  Per repetition and champion the challengers, in a seeded shuffle, are repeated
  lcm(m, k-1)/m times and cut into tables of k-1, so each meets the champion
  (k-1)/gcd(m, k-1) times per repetition (once when k=2 or k-1 divides m).

This module is pure: no I/O, no clocks, no global random generator (its shuffles draw from
a `random.Random` seeded from its arguments), no games played, no rule of the game known.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from arena.seeds import derive_seed
from arena.tournament.formats.schedule import GameSpec, check_count, check_seats, id_width

__all__ = ["gauntlet"]


def gauntlet(
    champions: Sequence[int], n_entrants: int, seats: int, games: int, seed: int
) -> list[GameSpec]:
    """Every challenger against every champion equally often, in duplicate rotation sets."""
    check_seats(n_entrants, seats)
    check_count("games", games, 1)
    _check_entrants("champions", champions, n_entrants)
    challengers = sorted(set(range(n_entrants)) - set(champions))
    if len(challengers) < seats - 1:
        raise ValueError(
            f"seats={seats} needs at least {seats - 1} challengers, got {len(challengers)}"
        )
    tables = [
        (champion, *chunk)
        for repetition in range(games)
        for champion in champions
        for chunk in _challenger_tables(challengers, seats - 1, seed, repetition, champion)
    ]
    set_width, rot_width = id_width(len(tables), 5), id_width(seats, 2)
    specs: list[GameSpec] = []
    for number, table in enumerate(tables, 1):
        group = f"gt-{number:0{set_width}d}"
        for r in range(seats):
            game_id = f"{group}-{r + 1:0{rot_width}d}"
            seating = table[r:] + table[:r]
            specs.append(
                GameSpec(game_id, "main", number, seating, derive_seed(seed, group), group)
            )
    return specs


def _challenger_tables(
    challengers: list[int], size: int, seed: int, repetition: int, champion: int
) -> list[tuple[int, ...]]:
    order = list(challengers)
    random.Random(derive_seed(seed, "gauntlet", repetition, champion)).shuffle(order)
    passes = math.lcm(len(order), size) // len(order)
    # Consecutive entries of a cyclic order of m >= size distinct challengers are distinct.
    cycle = order * passes
    return [tuple(cycle[i : i + size]) for i in range(0, len(cycle), size)]


def _check_entrants(name: str, entrants: Sequence[int], n_entrants: int) -> None:
    if not entrants:
        raise ValueError(f"{name}=[]: needs at least one entrant")
    for e in entrants:
        if isinstance(e, bool) or not isinstance(e, int) or not 0 <= e < n_entrants:
            raise ValueError(f"{name}: {e!r} is not an entrant index 0..{n_entrants - 1}")
    if len(set(entrants)) != len(entrants):
        raise ValueError(f"{name}={list(entrants)!r}: an entrant appears twice")

