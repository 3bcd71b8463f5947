"""How many ways a draw of cards makes each value by ranks alone, counted in closed form.

Drawing cards from a pool onto kept cards makes a 5-card hand; its value by ranks alone
(`arena.odds.probability` adds the flushes) depends only on how many cards of each rank it has.
Each shape of hand (four, full, three, two pairs, pair, five different ranks) is counted
with a product of binomials times an elementary symmetric polynomial of the pool's rank
counts (the ways to fill the single cards), so every value costs a few integer operations
where listing the draws costs thousands. The counts are exact integers, the same as listing
the draws would give. Pure and deterministic; it knows nothing of bots or events.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Sequence
from functools import cache, lru_cache

from arena import hands
from arena.hands import Category, Value

RANKS = range(13)
"""Rank indexes, 0 for a two up to 12 for an ace."""
TOPS = {Category.HIGH: range(5, 13), Category.STRAIGHT: range(3, 13),
        Category.FLUSH: range(5, 13), Category.STRAIGHT_FLUSH: range(3, 13)}
"""The top ranks each category of one top rank has (a seven-high is the lowest high card,
the wheel A-2-3-4-5 the lowest straight)."""
_WAYS = tuple(tuple(tuple(math.comb(n, m - k) if m >= k else 0 for m in range(5))
                    for k in range(5)) for n in range(5))
"""_WAYS[n][k][m]: ways to hold m cards of a rank when k are kept and n are in the pool."""
_STRAIGHTS = tuple((operator.itemgetter(*ranks), frozenset(ranks)) for ranks in
                   [(12, 0, 1, 2, 3)] + [tuple(range(top - 4, top + 1)) for top in range(4, 13)])
"""The ranks of each straight in claim order (a getter of them from a list by rank, and their
set): the wheel (A-2-3-4-5) first, the ace-high last."""


def _ranks_of(category: Category) -> list[tuple[int, ...]]:
    """The ranks of each value of a category, in claim order (lowest first)."""
    if category in TOPS:
        return [(top,) for top in TOPS[category]]
    if category == Category.TWO_PAIR:
        return [(a, b) for a in RANKS for b in range(a)]
    if category == Category.FULL:
        return [(a, b) for a in RANKS for b in RANKS if b != a]
    return [(r,) for r in RANKS]


@cache
def categories(straight_over_full: bool) -> tuple[Category, ...]:
    """The categories in claim order; each holds a run of claim indexes laid out as
    `_ranks_of` lists them (checked here against the claim space, once)."""
    space = hands.claim_space(hands.CARDS, straight_over_full)
    order = tuple(dict.fromkeys(claim.category for claim in space.claims))
    laid_out = [
        space.index[Value(category, tuple((5 if r == 3 and category in TOPS else r + 2)
                                          if category in TOPS else r + 2 for r in ranks),
                          straight_over_full)]
        for category in order for ranks in _ranks_of(category)
    ]
    if laid_out != list(range(len(space))):
        raise AssertionError("the claim space is not laid out as rank_counts counts it")
    return order


def _symmetric(factors: Sequence[int]) -> list[tuple[int, int, int, int, int]]:
    """Elementary symmetric polynomials e_0..e_4 of the first i factors, for i = 0..len: the
    ways to take one card from each of j different ranks among the first i."""
    e1 = e2 = e3 = e4 = 0
    out = [(1, 0, 0, 0, 0)]
    for n in factors:
        if n:  # highest degree first, so each uses the others' values before this factor
            e4 += n * e3
            e3 += n * e2
            e2 += n * e1
            e1 += n
        out.append((1, e1, e2, e3, e4))
    return out


@lru_cache(maxsize=1024)
def rank_counts(straight_over_full: bool, kept: tuple[int, ...],
                pool: tuple[int, ...]) -> tuple[int, ...]:
    """Ways to draw 5 - sum(kept) cards from the pool that make each value (claim index) by
    ranks alone, with the kept cards; `kept` and `pool` count cards by rank."""
    held = [r for r in RANKS if kept[r]]
    heavy = [r for r in held if kept[r] > 1]  # a kept pair or more cannot be a single card
    free = [0 if k else n for k, n in zip(kept, pool, strict=True)]  # a card of a new rank
    ways = [_WAYS[n][k] for n, k in zip(pool, kept, strict=True)]
    flags = [(k > 0) + (k > 1) for k in kept]  # 1 for a kept rank, 2 for a kept pair or more
    below = _symmetric(free)  # below[r]: the polynomials of the free ranks under r
    e = below[-1]
    blocks = {Category.FLUSH: [0] * 8, Category.STRAIGHT_FLUSH: [0] * 10}
    blocks[Category.PAIR], blocks[Category.THREE], blocks[Category.FOUR] = _one_rank(
        held, heavy, e, free, ways)
    blocks[Category.TWO_PAIR] = _two_pairs(flags, held, e[1], free, ways)
    blocks[Category.FULL] = _full_houses(flags, held, ways)
    blocks[Category.HIGH], blocks[Category.STRAIGHT] = _different(
        flags, held, free, below) if not heavy else ([0] * 8, [0] * 10)
    return tuple(itertools.chain.from_iterable(
        map(blocks.__getitem__, categories(straight_over_full))))


_TWO_PAIRS = tuple((a, b) for a in RANKS for b in range(a))
"""(high, low) ranks of every two pairs, in claim order."""
_FULL_HOUSES = tuple((a, b) for a in RANKS for b in RANKS if b != a)
"""(three, pair) ranks of every full house, in claim order."""
_TWO_PAIR_HIGH = operator.itemgetter(*(a for a, _ in _TWO_PAIRS))
_TWO_PAIR_LOW = operator.itemgetter(*(b for _, b in _TWO_PAIRS))
"""Each two pairs' high and low rank picked out of a list by rank, in claim order (C speed)."""
_FULL_THREE = operator.itemgetter(*(a for a, _ in _FULL_HOUSES))
_FULL_PAIR = operator.itemgetter(*(b for _, b in _FULL_HOUSES))
"""Each full house's three and pair rank picked out of a list by rank, in claim order."""
_TWO_PAIRS_WITH = tuple(tuple((i, a, b) for i, (a, b) in enumerate(_TWO_PAIRS) if r in (a, b))
                        for r in RANKS)
"""The two pairs with each rank in them: (place in claim order, high, low)."""
_FULL_WITH = tuple(tuple((i, a, b) for i, (a, b) in enumerate(_FULL_HOUSES) if r in (a, b))
                   for r in RANKS)
"""The full houses with each rank in them: (place in claim order, three, pair)."""


def _one_rank(held: Sequence[int], heavy: Sequence[int], e: Sequence[int],
              free: Sequence[int], ways: Sequence[Sequence[int]]) -> list[list[int]]:
    """Pairs, threes and fours by rank: the rank's cards, then single cards of other ranks
    (every kept rank but this one must be one of them)."""
    if len(heavy) > 1:
        return [[0] * 13 for _ in range(3)]  # two kept pairs leave no room for one shape
    rest = [[1] * 13]  # rest[j][r]: e_j of the free ranks but r
    for j in range(1, 4):  # e_j - n * e_(j-1), rank by rank (map: C speed)
        rest.append(list(map(operator.sub, itertools.repeat(e[j], 13),
                             map(operator.mul, free, rest[-1]))))
    out = []
    for size, singles in ((2, 3), (3, 2), (4, 1)):
        beside = singles - len(held)  # single cards of free ranks, beside a free rank's shape
        if beside >= 0 and not heavy:
            block = list(map(operator.mul, map(operator.itemgetter(size), ways), rest[beside]))
        else:
            block = [0] * 13
        for r in heavy or held:  # a kept rank's shape: one kept rank fewer beside it
            if beside + 1 >= 0:
                block[r] = ways[r][size] * rest[beside + 1][r]
        out.append(block)
    return out


def _two_pairs(flags: Sequence[int], held: Sequence[int], e1: int, free: Sequence[int],
               ways: Sequence[Sequence[int]]) -> list[int]:
    """Two pairs by (high, low) rank and the one single card beside them: any free rank's
    when every kept rank is in the pairs, else the one kept rank left over."""
    two = [w[2] for w in ways]
    left = sum(flags)  # kept ranks, a kept pair or more counted twice
    if not left:
        pairs = map(operator.mul, _TWO_PAIR_HIGH(two), _TWO_PAIR_LOW(two))
        singles = map(e1.__sub__, map(operator.add, _TWO_PAIR_HIGH(free), _TWO_PAIR_LOW(free)))
        return list(map(operator.mul, pairs, singles))  # the single: a free rank of neither
    if left == 1:
        block = list(map(operator.mul, _TWO_PAIR_HIGH(two), _TWO_PAIR_LOW(two)))
    else:
        block = [0] * len(_TWO_PAIRS)
    for r in held:  # only the pairs holding a kept rank differ from that
        for i, a, b in _TWO_PAIRS_WITH[r]:
            inside = flags[a] + flags[b]
            block[i] = two[a] * two[b] * (e1 - free[a] - free[b] if inside == left else
                                          inside == left - 1)
    return block


def _full_houses(flags: Sequence[int], held: Sequence[int],
                 ways: Sequence[Sequence[int]]) -> list[int]:
    """Full houses by (three, pair) rank: every kept rank must be one of the two."""
    if not held:
        threes, pairs = [w[3] for w in ways], [w[2] for w in ways]
        return list(map(operator.mul, _FULL_THREE(threes), _FULL_PAIR(pairs)))
    block = [0] * len(_FULL_HOUSES)
    if len(held) == 1:  # every full house with the kept rank holds all the kept ranks
        for i, a, b in _FULL_WITH[held[0]]:
            block[i] = ways[a][3] * ways[b][2]
    elif len(held) == 2:
        for i, a, b in _FULL_WITH[held[0]]:
            if (flags[a] > 0) + (flags[b] > 0) == len(held):
                block[i] = ways[a][3] * ways[b][2]
    return block


def _different(flags: Sequence[int], held: Sequence[int], free: Sequence[int],
               below: Sequence[Sequence[int]]) -> tuple[list[int], list[int]]:
    """Hands of five different ranks: straights, then high cards by their top (the top's
    card and 4 of the ranks under it, every kept rank among them)."""
    single = [1 if f else n for f, n in zip(flags, free, strict=True)]
    kept = set(held)
    straight = [math.prod(window(single)) if kept <= ranks else 0
                for window, ranks in _STRAIGHTS]
    high = []
    for top in TOPS[Category.HIGH]:
        under = 4 - len(held) + (flags[top] > 0)  # free ranks to take under the top
        if under < 0 or not single[top] or (held and top < held[-1]):
            high.append(0)
            continue
        ending = straight[top - 3] + (straight[0] if top == 12 else 0)  # the wheel's ace
        high.append(single[top] * below[top][under] - ending)
    return high, straight
