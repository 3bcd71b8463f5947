"""Tournament schedules: who sits where in which game, and with which seed; here the game
spec, the round robin and its balanced tables above a cap.

A schedule turns a tournament's format settings into `GameSpec`s for the tournament runner.
Entrants are indexes 0..n-1 into the config's entrant list; seat 0 is listed first. The
other schedules live beside this one: the gauntlet (gauntlet.py) and the elimination state
machine (elimination.py); they share `GameSpec` and the argument checks below.

This module is pure. It must not do I/O, read clocks, use the global random generator, play
games or know a rule of the game. Where a schedule draws, it uses a `random.Random` seeded
from its arguments, so the same arguments always give the same games, and a resumed
tournament rebuilds exactly the games it started with.

Guarantees (each one pinned by tests/tournament/test_schedule.py):

- Ids are unique, zero-padded to widths fixed by the settings, and sort in schedule order.
  Game, table, match and stage numbers count from 1.
- A game's seed is `derive_seed(root, game.id)`; the games of a duplicate group share
  `derive_seed(root, game.group)`. A seed depends on nothing else, so adding, removing or
  replaying other games never changes it.
- `round_robin`: every k-subset of the entrants (`itertools.combinations` order) at each of
  its k cyclic seat rotations, `games` times (repetition is the outer loop, so a tournament
  cut short after r repetitions is still complete r times). Cyclic rotations put every
  entrant of the subset in every seat once while keeping who sits to whose left, which is
  what a rotation must preserve in a game where the cup passes left; all k! orders
  (`rotations="all"`) also vary the neighbours, at k!/k times the cost (120x for k=6).
  Count: C(n, k) * k * games (k! for "all"). Games of one rotation set share `table`.
- When that count exceeds `cap`, `round_robin` returns `balanced_tables(n, k, cap, seed)`
  instead: exactly `cap` games, in which
    * every entrant plays floor(cap*k/n) or ceil(cap*k/n) games (all the same when n
      divides cap*k),
    * every entrant sits at every seat floor(cap/n) or ceil(cap/n) times,
    * every pair meets about cap*C(k,2)/C(n,2) times: pair balance is greedy, not proven;
      the tests bound max - min pair meetings on several (n, k, cap).
  Construction: blocks of n games in which each seat runs through all n entrants once
  (a cyclic Latin rectangle: game j puts entrant sigma[(j + o_s) % n] in seat s); the last
  block, of cap mod n games, uses offsets o_s = floor(s*n/k), which spread its seats evenly.
  Each block's sigma is chosen greedily, then improved by swaps, to minimise the sum of
  squared pair meetings. Cost: about cap * n * k^2 steps.
"""

from __future__ import annotations

import itertools
import math
import operator
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from arena.seeds import derive_seed

__all__ = [
    "GameSpec",
    "Rotations",
    "balanced_tables",
    "check_count",
    "check_seats",
    "id_width",
    "round_robin",
    "round_robin_count",
    "seatings",
]

Rotations = Literal["cyclic", "all"]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game to play: who sits where, under which seed."""

    id: str
    stage: str
    table: int
    seats: tuple[int, ...]
    seed: int
    group: str | None = None


# ---------------------------------------------------------------------------- checks


def check_count(name: str, value: int, least: int) -> None:
    """Refuse a schedule argument that is not an integer of at least `least`."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name}={value!r}: must be an integer >= {least}")


def check_seats(n_entrants: int, seats: int) -> None:
    """Refuse a table size that the number of entrants cannot fill."""
    check_count("n_entrants", n_entrants, 2)
    check_count("seats", seats, 2)
    if seats > n_entrants:
        raise ValueError(f"seats={seats} is more than n_entrants={n_entrants}")


def id_width(largest: int, least: int) -> int:
    """Digits of a zero-padded id number, fixed by the settings so ids sort in order."""
    return max(least, len(str(largest)))


# ---------------------------------------------------------------------------- round robin


def round_robin_count(
    n_entrants: int, seats: int, games: int, rotations: Rotations = "cyclic"
) -> int:
    """Count a full round robin's games without building it (to compare with a cap)."""
    check_seats(n_entrants, seats)
    check_count("games", games, 1)
    per_subset = _rotation_count(seats, rotations)
    return math.comb(n_entrants, seats) * per_subset * games


def _rotation_count(seats: int, rotations: str) -> int:
    if rotations == "cyclic":
        return seats
    if rotations == "all":
        return math.factorial(seats)
    raise ValueError(f"rotations={rotations!r}: must be 'cyclic' or 'all'")


def seatings(subset: Sequence[T], rotations: str = "cyclic") -> Iterable[tuple[T, ...]]:
    """A table's seat orders: its cyclic rotations (each seat once for every player), or
    every permutation with "all"."""
    subset = tuple(subset)
    if rotations == "all":
        return itertools.permutations(subset)
    return (subset[r:] + subset[:r] for r in range(len(subset)))


def round_robin(
    n_entrants: int,
    seats: int,
    games: int,
    seed: int,
    cap: int | None = None,
    rotations: Rotations = "cyclic",
) -> list[GameSpec]:
    """Every table of `seats` entrants at every rotation, or balanced tables above `cap`."""
    total = round_robin_count(n_entrants, seats, games, rotations)
    if cap is not None:
        check_count("cap", cap, 1)
        if total > cap:
            return balanced_tables(n_entrants, seats, cap, seed)
    width = id_width(total, 6)
    specs: list[GameSpec] = []
    table = 0
    for _ in range(games):
        for subset in itertools.combinations(range(n_entrants), seats):
            table += 1
            for seating in seatings(subset, rotations):
                game_id = f"rr-{len(specs) + 1:0{width}d}"
                specs.append(GameSpec(game_id, "main", table, seating, derive_seed(seed, game_id)))
    return specs


# ---------------------------------------------------------------------------- balanced tables


def balanced_tables(n_entrants: int, seats: int, total: int, seed: int) -> list[GameSpec]:
    """Exactly `total` games with even play, seat and pair counts (see the module docstring)."""
    check_seats(n_entrants, seats)
    check_count("total", total, 1)
    rng = random.Random(derive_seed(seed, "balanced-tables"))
    meetings = [[0] * n_entrants for _ in range(n_entrants)]
    blocks, rest = divmod(total, n_entrants)
    full = _block_rows(n_entrants, _spread_offsets(n_entrants, seats), n_entrants)
    tables: list[tuple[int, ...]] = []
    for _ in range(blocks):
        tables.extend(_deal_block(full, meetings, rng))
    if rest:
        even = [s * n_entrants // seats for s in range(seats)]
        tables.extend(_deal_block(_block_rows(n_entrants, even, rest), meetings, rng))
    width = id_width(total, 6)
    ids = [f"rr-{i:0{width}d}" for i in range(1, total + 1)]
    return [
        GameSpec(game_id, "main", i, table, derive_seed(seed, game_id))
        for i, (game_id, table) in enumerate(zip(ids, tables, strict=True), 1)
    ]


def _block_rows(n: int, offsets: Sequence[int], count: int) -> list[tuple[int, ...]]:
    # Game j seats the entrants at positions j + o_s: distinct offsets make distinct seats,
    # and over j = 0..n-1 every seat runs through every position once.
    return [tuple((j + o) % n for o in offsets) for j in range(count)]


def _spread_offsets(n: int, seats: int) -> list[int]:
    # Offsets whose pairwise differences collide least (a greedy Sidon set mod n): a
    # difference d that occurs c times makes pairs at distance d meet c times per block.
    offsets = [0]
    collisions: dict[int, int] = {}
    for _ in range(seats - 1):
        best: tuple[int, int, dict[int, int]] | None = None
        for candidate in range(1, n):
            if candidate in offsets:
                continue
            trial = dict(collisions)
            for o in offsets:
                for d in ((candidate - o) % n, (o - candidate) % n):
                    trial[d] = trial.get(d, 0) + 1
            cost = sum(c * c for c in trial.values())
            if best is None or cost < best[0]:
                best = (cost, candidate, trial)
        assert best is not None  # seats <= n leaves a free offset
        offsets.append(best[1])
        collisions = best[2]
    return offsets


def _deal_block(
    rows: list[tuple[int, ...]], meetings: list[list[int]], rng: random.Random
) -> list[tuple[int, ...]]:
    """Place entrants on a block's positions so its pairs are the least-met ones."""
    n = len(meetings)
    partners = _position_partners(rows, n)
    if n < 8 * max(sum(at.values()) for at in partners):  # dense: plain loops are quicker
        sigma = _greedy_sigma(partners, meetings, rng)
        _improve_by_swaps(sigma, partners, meetings)
    else:  # each position has few partners (2 seats: 2 of n): the same choices made in C
        sigma = _greedy_sigma(partners, meetings, rng, sparse=True)
        _improve_sparse(sigma, partners, meetings)
    tables = [tuple(sigma[p] for p in row) for row in rows]
    for table in tables:
        for a, b in itertools.combinations(table, 2):
            meetings[a][b] += 1
            meetings[b][a] += 1
    return tables


def _position_partners(rows: list[tuple[int, ...]], n: int) -> list[dict[int, int]]:
    partners: list[dict[int, int]] = [{} for _ in range(n)]
    for row in rows:
        for p, q in itertools.permutations(row, 2):
            partners[p][q] = partners[p].get(q, 0) + 1
    return partners


def _greedy_sigma(
    partners: list[dict[int, int]], meetings: list[list[int]], rng: random.Random,
    sparse: bool = False,
) -> list[int]:
    """Each position in turn gets the free entrant who met its placed partners least."""
    free = list(range(len(meetings)))
    rng.shuffle(free)  # ties go to a seeded draw
    least_met = _least_met_sparse if sparse else _least_met
    sigma: list[int] = []
    for p in range(len(meetings)):
        placed = [(sigma[q], w) for q, w in partners[p].items() if q < p]
        best = least_met(free, meetings, placed)
        free.remove(best)
        sigma.append(best)
    return sigma


def _least_met(free: list[int], meetings: list[list[int]],
               placed: list[tuple[int, int]]) -> int:
    """The first free entrant of least cost, as min() picks, in plain loops (200 entrants'
    20,000 games ran 4x longer in sum())."""
    best, least = free[0], -1
    for entrant in free:
        met, cost = meetings[entrant], 0
        for f, w in placed:
            cost += w * met[f]
        if least < 0 or cost < least:
            best, least = entrant, cost
    return best


def _least_met_sparse(free: list[int], meetings: list[list[int]],
                      placed: list[tuple[int, int]]) -> int:
    """`_least_met`'s pick, every entrant's cost at once (meetings are symmetric: a row is
    a column), summed row by row in C: quicker where a position has few partners."""
    costs = _weighted_rows(meetings, placed)
    return min(free, key=costs.__getitem__) if costs else free[0]


def _weighted_rows(rows: list[list[int]], weights: Iterable[tuple[int, int]]) -> list[int]:
    """The sum of w * rows[i] over (i, w), element by element (empty: no weights)."""
    total: list[int] = []
    for i, w in weights:
        row = rows[i] if w == 1 else [w * x for x in rows[i]]
        total = list(map(operator.add, total, row)) if total else list(row)
    return total


def _improve_by_swaps(
    sigma: list[int], partners: list[dict[int, int]], meetings: list[list[int]]
) -> None:
    # One pass of first-improvement swaps; more passes cost time and rarely gain. The costs
    # summed in plain loops, not sum() of generators: 200 entrants' 20,000 games (issue 34's
    # field) took 7.4 s of CPU, 2.5 s so, the same integers compared in the same order.
    links = [tuple(at.items()) for at in partners]
    for p, q in itertools.combinations(range(len(sigma)), 2):
        if _swap_gains(sigma, links, meetings, p, q):
            sigma[p], sigma[q] = sigma[q], sigma[p]


def _improve_sparse(
    sigma: list[int], partners: list[dict[int, int]], meetings: list[list[int]]
) -> None:
    """_improve_by_swaps's pass over a sparse block, its swaps found in C.

    A swap of the entrants a at p and b at q, p and q never at one table, costs
    before = cost[p] + cost[q] (each position's pair meetings with its partners) and
    after = near_p[b] + (a's meetings with q's partners), near_p the meetings of every
    entrant with p's partners: each q's test is then a few list lookups, done in C for
    all q > p at once, and the first q that gains found with `itertools.compress`. The
    partners of p are tried one by one (a swap moves one of their own partners). Only a
    taken swap (about 1 in a block of 200 positions) changes what the tests read, so the
    pass takes the swaps the plain loops took: issue 34's 200 entrants, 20,000 games took
    1.9 s of CPU in plain loops, 0.8 s so."""
    n = len(sigma)
    links = [tuple(at.items()) for at in partners]
    width = max(sum(w for _, w in at) for at in links)
    met = [[*row, 0] for row in meetings] + [[0] * (n + 1)]  # entrant n: an empty partner
    # slots[q]: q's partners, one per meeting (a weight w listed w times), padded with n
    slots = [[r for r, w in at for _ in range(w)] for at in links]
    slots = [at + [n] * (width - len(at)) for at in slots]
    placed = [*sigma, n]
    near = [[placed[at[j]] for at in slots] for j in range(width)]  # near[j][q]: entrant
    cost = [sum(met[sigma[q]][near[j][q]] for j in range(width)) for q in range(n)]
    p, q0 = 0, 1
    while p < n - 1:
        q = _first_swap(sigma, links, met, near, cost, p, q0)
        if q is None:
            p, q0 = p + 1, p + 2
            continue
        sigma[p], sigma[q] = sigma[q], sigma[p]
        _moved(sigma, links, met, slots, near, cost, (p, q))
        q0 = q + 1
        if q0 == n:
            p, q0 = p + 1, p + 2


def _first_swap(
    sigma: list[int],
    links: list[tuple[tuple[int, int], ...]],
    met: list[list[int]],
    near: list[list[int]],
    cost: list[int],
    p: int,
    q0: int,
) -> int | None:
    """The first q >= q0 whose swap with p lowers the sum of squared pair meetings."""
    tail = sigma[q0:]
    met_a = met[sigma[p]]
    after = map(sum, zip(*[map(met[column[p]].__getitem__, tail) for column in near],
                         *[map(met_a.__getitem__, column[q0:]) for column in near], strict=True))
    gains = map(operator.lt, after, map(cost[p].__add__, cost[q0:]))
    close = {r for r, _ in links[p]}
    adjacent = sorted(r for r in close if r >= q0)
    for q in itertools.compress(itertools.count(q0), gains):
        while adjacent and adjacent[0] <= q:  # their figures took p's own partner for a
            r = adjacent.pop(0)
            if _swap_gains(sigma, links, met, p, r):
                return r
        if q not in close:
            return q
    for r in adjacent:
        if _swap_gains(sigma, links, met, p, r):
            return r
    return None


def _swap_gains(
    sigma: list[int], links: list[tuple[tuple[int, int], ...]], met: list[list[int]],
    p: int, q: int,
) -> bool:
    """Whether swapping the entrants at p and q lowers their positions' pair meetings."""
    a, b = sigma[p], sigma[q]
    met_a, met_b = met[a], met[b]
    before = after = 0
    for r, w in links[p]:
        before += w * met_a[sigma[r]]
    for r, w in links[q]:
        before += w * met_b[sigma[r]]
    sigma[p], sigma[q] = b, a
    for r, w in links[p]:
        after += w * met_b[sigma[r]]
    for r, w in links[q]:
        after += w * met_a[sigma[r]]
    sigma[p], sigma[q] = a, b
    return after < before


def _moved(
    sigma: list[int],
    links: list[tuple[tuple[int, int], ...]],
    met: list[list[int]],
    slots: list[list[int]],
    near: list[list[int]],
    cost: list[int],
    swapped: tuple[int, int],
) -> None:
    """Bring the partners' entrants and the costs up to date after a swap."""
    touched = set(swapped)
    for s in swapped:
        touched.update(r for r, _ in links[s])
    for q in touched:
        for j, r in enumerate(slots[q]):
            near[j][q] = sigma[r] if r < len(sigma) else r
        cost[q] = sum(met[sigma[q]][near[j][q]] for j in range(len(near)))
