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


_TAKE = tuple(tuple(math.comb(n, want) if want >= 0 else 0 for want in range(-4, 5))
              for n in range(5))
"""_TAKE[n][want + 4]: ways to take `want` cards of a rank from n (none for a negative want)."""
_SHAPES = ((2, "pair", 3), (3, "three", 2), (4, "four", 1))
"""Each shape of one rank: its cards, its values, and the single cards beside it."""


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
    free = [0 if kept[r] else pool[r] for r in RANKS]  # ways to add one card of a new rank
    e = _symmetric(free, 4)
    ways = [[_TAKE[pool[r]][m - kept[r] + 4] for m in range(5)] for r in RANKS]
    _add_one_rank(counts, values, held, heavy, e, free, ways)
    _add_two_ranks(counts, values, held, heavy, e[1], free, ways)
    if not heavy:
        _add_different(counts, values, kept, pool, free)
    return tuple(counts)


def _add_one_rank(counts: list[int], values: ShapeValues, held: Sequence[int],
                  heavy: Sequence[int], e: Sequence[int], free: Sequence[int],
                  ways: Sequence[Sequence[int]]) -> None:
    """Add pairs, threes and fours: the rank's cards, then single cards of other ranks."""
    for r in RANKS:
        if any(h != r for h in heavy):
            continue
        others = len(held) - (r in held)  # kept ranks that must be single cards
        rest = _without(e, free[r])
        for size, shape, singles in _SHAPES:
            if ways[r][size] and singles >= others:
                counts[getattr(values, shape)[r]] += ways[r][size] * rest[singles - others]


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


def _add_different(counts: list[int], values: ShapeValues, kept: Sequence[int],
                   pool: Sequence[int], free: Sequence[int]) -> None:
    """Add the hands of five different ranks: straights by their top, the rest high cards."""
    single = [1 if kept[r] else pool[r] for r in RANKS]
    top_held = max((r for r in RANKS if kept[r]), default=-1)
    below = [1, 0, 0, 0, 0]  # symmetric polynomials of the free ranks below `top`
    held_below = 0
    for top in RANKS:
        if top >= top_held and single[top]:
            different = single[top] * below[4 - held_below] if held_below <= 4 else 0
            for window_top, window in _windows_ending(top):
                if all(kept[r] == 0 or r in window for r in RANKS):
                    straight = math.prod(single[r] for r in window)
                    counts[values.straight[window_top]] += straight
                    different -= straight
            if different:
                counts[values.high[top]] += different
        if kept[top]:
            held_below += 1
        else:
            for i in range(4, 0, -1):
                below[i] += free[top] * below[i - 1]


def _windows_ending(top: int) -> list[tuple[int, range | tuple[int, ...]]]:
    """The straights whose highest card has this rank: (their top, their ranks)."""
    windows: list[tuple[int, range | tuple[int, ...]]] = []
    if top >= 4:
        windows.append((top, range(top - 4, top + 1)))
    if top == 12:
        windows.append((3, (12, 0, 1, 2, 3)))  # the wheel: A-2-3-4-5, topped by the five
    return windows
