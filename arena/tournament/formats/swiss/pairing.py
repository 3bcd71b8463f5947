"""One Swiss round's pairing: who sits out with a bye, and who sits at which table.

Guarantees (pinned by tests/tournament/test_swiss.py):

- `pair_round` takes the players in standing order (best first) and seats every one of
  them exactly once: at one of len(order) // seats tables of `seats`, or on a bye.
- Byes come first: the len(order) mod seats players with the fewest byes so far, among
  them the lowest placed. So nobody has a second bye while someone has none. Byes are
  chosen before the tables, even where another choice would avoid a repeat meeting: a fair
  bye weighs more than a fresh opponent.
- Tables are filled top-down: the best-placed player left opens a table and is joined by
  the best-placed players left whom no one at the table has met. A table's cost is the
  number of earlier meetings among its players (each pair once per round they shared a
  table); the search is a depth-first branch and bound over tables in that order, which
  returns the first repeat-free pairing in top-down order whenever one exists and is
  found within `SEARCH_BUDGET` steps (always for fields of a few dozen), else the
  cheapest pairing it has seen (its first, greedy one at worst).
- Deterministic: the same arguments give the same pairing; the budget counts steps,
  never time.

This module is pure: no I/O, no clocks, no random draws at all, no games, no rule of the
game known. The rounds around it (scores, Buchholz, games) are
arena/tournament/formats/swiss/rounds.py.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["SEARCH_BUDGET", "Pairing", "pair_key", "pair_round", "table_cost"]

SEARCH_BUDGET = 200_000
"""Candidate seats the search may try before it settles for the cheapest pairing seen."""

Meetings = Mapping[tuple[int, int], int]
"""(a, b) with a < b: in how many earlier rounds they shared a table."""


@dataclass(frozen=True, slots=True)
class Pairing:
    """One round's seating: tables (each in standing order), byes, and their repeat cost."""

    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...]
    repeats: int
    """Earlier meetings among the players of each table, summed over the tables."""


def pair_key(a: int, b: int) -> tuple[int, int]:
    """The key of a pair in a meetings mapping: the smaller index first."""
    return (a, b) if a < b else (b, a)


def table_cost(table: Sequence[int], met: Meetings) -> int:
    """How many earlier meetings the players of one table bring to it."""
    return sum(
        met.get(pair_key(a, b), 0) for i, a in enumerate(table) for b in table[i + 1 :]
    )


def pair_round(
    order: Sequence[int],
    seats: int,
    met: Meetings,
    byes: Mapping[int, int],
    budget: int = SEARCH_BUDGET,
) -> Pairing:
    """Seat one round: byes to the least-byed lowest-placed, tables top-down avoiding
    repeats (see the module docstring)."""
    if seats < 2 or len(order) < seats:
        raise ValueError(f"{len(order)} players cannot fill a table of {seats} seats")
    if len(set(order)) != len(order):
        raise ValueError(f"order={list(order)!r}: a player appears twice")
    met_items = tuple(sorted((k, v) for k, v in met.items() if v))
    bye_items = tuple(sorted((k, v) for k, v in byes.items() if v))
    return _pair(tuple(order), seats, met_items, bye_items, budget)


@functools.lru_cache(maxsize=256)
def _pair(
    order: tuple[int, ...],
    seats: int,
    met_items: tuple[tuple[tuple[int, int], int], ...],
    bye_items: tuple[tuple[int, int], ...],
    budget: int,
) -> Pairing:
    """The pairing itself, cached: a plan replays every round each time it is asked."""
    had = dict(bye_items)
    position = {p: i for i, p in enumerate(order)}
    count = len(order) % seats
    resting = sorted(order, key=lambda p: (had.get(p, 0), -position[p]))[:count]
    byes = tuple(sorted(resting, key=position.__getitem__))
    players = tuple(p for p in order if p not in set(byes))
    search = _Search(dict(met_items), seats, budget)
    search.run(players, (), 0)
    assert search.best is not None  # the first leaf is always reached
    return Pairing(search.best, byes, search.best_cost)


class _Search:
    """Depth-first branch and bound over tables, the cheapest first at every choice."""

    def __init__(self, met: dict[tuple[int, int], int], seats: int, budget: int) -> None:
        self.met, self.seats, self.budget = met, seats, budget
        self.steps = 0
        self.best: tuple[tuple[int, ...], ...] | None = None
        self.best_cost = 0

    def done(self) -> bool:
        """Stop at a repeat-free pairing, or when the budget is spent and one was found."""
        return self.best is not None and (self.best_cost == 0 or self.steps >= self.budget)

    def run(self, rest: tuple[int, ...], tables: tuple[tuple[int, ...], ...], cost: int) -> None:
        if not rest:
            if self.best is None or cost < self.best_cost:
                self.best, self.best_cost = tables, cost
            return
        first, others = rest[0], rest[1:]
        for tail, added in self._tails((first,), others, self.seats - 1, cost):
            if self.done():
                return
            seated = set(tail)
            left = tuple(p for p in others if p not in seated)
            self.run(left, (*tables, (first, *tail)), cost + added)

    def _tails(
        self, table: tuple[int, ...], pool: tuple[int, ...], need: int, cost: int
    ) -> Iterator[tuple[tuple[int, ...], int]]:
        """The ways to fill a table's `need` seats from `pool` (in standing order), each
        player after the last one taken, the cheapest addition first, then the best placed."""
        if need == 0:
            yield (), 0
            return
        options = []
        for i in range(len(pool) - need + 1):
            self.steps += 1
            added = sum(self.met.get(pair_key(pool[i], p), 0) for p in table)
            options.append((added, i))
        options.sort()
        for added, i in options:
            if self.best is not None and cost + added >= self.best_cost:
                break  # sorted: every later option costs as much or more
            if self.done():
                return
            player = pool[i]
            deeper = self._tails((*table, player), pool[i + 1 :], need - 1, cost + added)
            for tail, more in deeper:
                yield (player, *tail), added + more
