"""How many ways a draw of cards makes each value by ranks alone, counted in closed form.

Drawing cards from a pool onto kept cards makes a 5-card hand; its value by ranks alone
(`bots.probability` adds the flushes) depends only on how many cards of each rank it has.
Each shape of hand (four, full, three, two pairs, pair, five different ranks) is counted
with a product of binomials times an elementary symmetric polynomial of the pool's rank
counts (the ways to fill the single cards), so every value costs a few integer operations
where listing the draws costs thousands. The counts are exact integers, the same as listing
the draws would give. Pure and deterministic; it knows nothing of bots or events.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from arena import hands
from arena.hands import Category, Value

RANKS = range(13)
"""Rank indexes, 0 for a two up to 12 for an ace."""
NONE = -1
"""The claim index of a value no hand has (a high card below a seven)."""


@dataclass(frozen=True, slots=True)
class ShapeValues:
    """The claim index of each shape by its ranks: `pair[r]`, `three[r]`, `four[r]`,
    `two_pair[high][low]`, `full[three][pair]`, and by top rank `straight[top]` (3 is the
    wheel) and `high[top]` (NONE where no such value exists)."""

    size: int
    pair: tuple[int, ...]
    three: tuple[int, ...]
    four: tuple[int, ...]
    two_pair: tuple[tuple[int, ...], ...]
    full: tuple[tuple[int, ...], ...]
    straight: tuple[int, ...]
    high: tuple[int, ...]


@cache
def shape_values(straight_over_full: bool) -> ShapeValues:
    """Build (once per claim order) the claim index of every shape."""
    space = hands.claim_space(hands.CARDS, straight_over_full)

    def index(category: Category, *ranks: int) -> int:
        return space.index.get(Value(category, tuple(r + 2 for r in ranks), straight_over_full),
                               NONE)

    return ShapeValues(
        len(space),
        tuple(index(Category.PAIR, r) for r in RANKS),
        tuple(index(Category.THREE, r) for r in RANKS),
        tuple(index(Category.FOUR, r) for r in RANKS),
        tuple(tuple(index(Category.TWO_PAIR, a, b) if a > b else NONE for b in RANKS)
              for a in RANKS),
        tuple(tuple(index(Category.FULL, a, b) if a != b else NONE for b in RANKS)
              for a in RANKS),
        tuple(index(Category.STRAIGHT, top) for top in RANKS),
        tuple(index(Category.HIGH, top) for top in RANKS),
    )


_WAYS = tuple(tuple(tuple(math.comb(n, m - k) if m >= k else 0 for m in range(5))
                    for k in range(5)) for n in range(5))
"""_WAYS[n][k][m]: ways to hold m cards of a rank when k are kept and n are in the pool."""
_ENDING = tuple(
    ((top, tuple(range(top - 4, top + 1))),) * (top >= 4) + ((3, (12, 0, 1, 2, 3)),) * (top == 12)
    for top in RANKS
)
"""The straights whose highest card has each rank, as (their top, their ranks): the wheel,
A-2-3-4-5, has the five for its top."""


def _symmetric(factors: Sequence[int], degree: int) -> list[int]:
    """Elementary symmetric polynomials e_0..e_degree of the factors: the ways to take one
    card from each of i different ranks, for each i."""
    e = [1] + [0] * degree
    for n in factors:
        if n:
            for i in range(degree, 0, -1):
                e[i] += n * e[i - 1]
    return e


def _without(e: Sequence[int], n: int) -> list[int]:
    """The symmetric polynomials with one factor n taken out again (exact: no division)."""
    out = [1]
    for i in range(1, len(e)):
        out.append(e[i] - n * out[i - 1])
    return out


@lru_cache(maxsize=8192)
def rank_counts(straight_over_full: bool, kept: tuple[int, ...],
                pool: tuple[int, ...]) -> tuple[int, ...]:
    """Ways to draw 5 - sum(kept) cards from the pool that make each value (claim index) by
    ranks alone, with the kept cards; `kept` and `pool` count cards by rank."""
    values = shape_values(straight_over_full)
    counts = [0] * values.size
    held = [r for r in RANKS if kept[r]]
    heavy = [r for r in held if kept[r] > 1]  # a kept pair or more cannot be a single card
    free = [0 if k else n for k, n in zip(kept, pool, strict=True)]  # a card of a new rank
    ways = [_WAYS[n][k] for n, k in zip(pool, kept, strict=True)]
    e = _symmetric(free, 4)
    if len(heavy) < 2:
        _add_one_rank(counts, values, kept, held, heavy or RANKS, e, free, ways)
    _add_two_ranks(counts, values, held, heavy, e[1], free, ways)
    if not heavy:
        _add_different(counts, values, held, free)
    return tuple(counts)


def _add_one_rank(counts: list[int], values: ShapeValues, kept: Sequence[int],
                  held: Sequence[int], ranks: Sequence[int], e: Sequence[int],
                  free: Sequence[int], ways: Sequence[Sequence[int]]) -> None:
    """Add pairs, threes and fours of these ranks, then single cards of other ranks."""
    shapes = ((2, values.pair, 3), (3, values.three, 2), (4, values.four, 1))
    for r in ranks:
        hold = ways[r]
        others = len(held) - (kept[r] > 0)  # kept ranks that must be single cards
        rest = _without(e, free[r]) if free[r] else e
        for size, index, singles in shapes:
            if hold[size] and singles >= others:
                counts[index[r]] += hold[size] * rest[singles - others]


def _add_two_ranks(counts: list[int], values: ShapeValues, held: Sequence[int],
                   heavy: Sequence[int], e1: int, free: Sequence[int],
                   ways: Sequence[Sequence[int]]) -> None:
    """Add full houses (nothing beside them) and two pairs (one single card beside)."""
    kept = [0] * 13  # 1 for a kept rank, 2 for a kept pair or more
    for r in held:
        kept[r] = 1
    for r in heavy:
        kept[r] = 2
    flagged = len(held) + len(heavy)
    pairs = [r for r in RANKS if ways[r][2]]
    for a in pairs:
        row, wa, fa = values.two_pair[a], ways[a][2], e1 - free[a]
        for b in pairs:
            if b >= a:
                break
            outside = flagged - kept[a] - kept[b]  # kept ranks beside the pairs, heavy twice
            if outside == 0:
                counts[row[b]] += wa * ways[b][2] * (fa - free[b])
            elif outside == 1:
                counts[row[b]] += wa * ways[b][2]
    for a in RANKS:
        if ways[a][3]:
            row, wa = values.full[a], ways[a][3]
            for b in pairs:
                if a != b and flagged == kept[a] + kept[b]:
                    counts[row[b]] += wa * ways[b][2]


def _add_different(counts: list[int], values: ShapeValues, held: Sequence[int],
                   free: Sequence[int]) -> None:
    """Add the hands of five different ranks: straights by their top, the rest high cards."""
    single = [1 if r in held else free[r] for r in RANKS]
    lowest_top = held[-1] if held else 0
    below = [1, 0, 0, 0, 0]  # symmetric polynomials of the free ranks below `top`
    held_below = 0
    for top in RANKS:
        if top >= lowest_top and single[top] and held_below <= 4:
            different = single[top] * below[4 - held_below]
            for window_top, window in _ENDING[top]:
                if all(h in window for h in held):
                    straight = math.prod([single[r] for r in window])
                    counts[values.straight[window_top]] += straight
                    different -= straight
            if different:
                counts[values.high[top]] += different
        if free[top]:
            for i in range(4, 0, -1):
                below[i] += free[top] * below[i - 1]
        elif top in held:
            held_below += 1
