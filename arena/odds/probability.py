"""Exact probability tables, for the built-in bots and the report's chances: what 5 dice or 5
cards are worth, what a reroll, an exchange or a set of unseen cards can turn into, and what a
claim says about a hand.

Pure and deterministic: no I/O, no clocks, no random numbers. Tables are built once per claim
order (normal, or straight over full) and then only read; `warm_up` builds a claim space's
(the built-in bots' constructor), or each is built the first time it is needed.
Draws of 4 or 5 cards are counted in closed form (`arena.odds.rank_counts`), fewer by listing them;
both give the same integer counts. Caches hold only functions of their arguments. Values are
indexes into the rule set's claim space, distributions are tuples of floats over those
indexes. This module knows nothing of bots, events or observations.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TypeVar

from arena import hands
from arena.hands import Category, ClaimSpace, Value
from arena.odds.rank_counts import rank_counts

FACES = hands.DIE_RANKS
DECK = frozenset(range(52))
HONEST_SLIP = 0.02
"""How often the 'honest' claim model allows a claim other than the claimant's true value."""
NOISE_STEP = 0.6
"""The 'noise' claim model: half geometric steps up from the lowest legal claim, half uniform."""
CLOSED_FORM = 2
"""Onto fewer kept cards than this, draws are counted in closed form (`arena.odds.rank_counts`):
faster than listing the thousands of draws of 4 or 5 cards; for the 455 draws of 3, listing
costs about as much (a belief's counts: 1% fewer instructions in dice-cards, 4% more in
cards, by callgrind), and a reroll's score by listing stays the very same float sum."""
HONESTY_LIMIT = 4.0
"""Largest log-odds the honesty of a claimant may reach either way (belief stays revisable)."""


def claim_index(space: ClaimSpace, claim: Value) -> int:
    """Return the index of a claim in a claim space, whatever order the claim was built with."""
    index = space.index.get(claim)
    if index is None:
        index = space.position(Value(claim.category, claim.ranks, space.straight_over_full))
    return index


def at_least(distribution: Sequence[float], index: int) -> float:
    """Probability that a value is at least the claim at `index`."""
    return math.fsum(distribution[index:])


def strength_table(fresh: Sequence[float]) -> tuple[float, ...]:
    """Mid-rank percentile of each value among fresh hands: how hard it is to beat, in [0, 1]."""
    below, out = 0.0, []
    for p in fresh:
        out.append(below + p / 2)
        below += p
    return tuple(out)


# --- dice -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DiceTables:
    """Every dice table for one claim order.

    `value`: claim index of each sorted 5-dice multiset (252). `outcome[kept]`: the value
    distribution after rolling the dice not kept (462 kept multisets, sizes 0-5). `fresh`:
    the distribution of one roll of 5 dice. `strength`: percentile of each value in `fresh`.
    `reach[kept][m]`: P(value >= m) after the reroll; `edge[kept][m]`: the expected strength
    of the outcomes that reach m (0 for the others).
    """

    space: ClaimSpace
    value: dict[tuple[int, ...], int]
    outcome: dict[tuple[int, ...], tuple[float, ...]]
    fresh: tuple[float, ...]
    strength: tuple[float, ...]
    reach: dict[tuple[int, ...], tuple[float, ...]]
    edge: dict[tuple[int, ...], tuple[float, ...]]

    def hand_value(self, dice: Iterable[int]) -> int:
        """Claim index of 5 dice given as ranks 9..14."""
        return self.value[tuple(sorted(dice))]


@cache
def dice_tables(straight_over_full: bool = False, dice: int = 5, faces: int = 6) -> DiceTables:
    """Build (once) the dice tables for one claim order and game size (fewer `dice` or
    `faces` in a reduced game: the same tables over its smaller hands)."""
    space = hands.claim_space(hands.DICE, straight_over_full, dice, faces)
    ranks = space.ranks
    n = len(space)
    value: dict[tuple[int, ...], int] = {
        roll: space.index[hands.dice_value(roll, straight_over_full)]
        for roll in itertools.combinations_with_replacement(ranks, dice)
    }
    outcome: dict[tuple[int, ...], tuple[float, ...]] = {}
    for size in range(dice + 1):
        rolls = len(ranks) ** (dice - size)
        sorted_rolls = [(roll, _orderings(roll)) for roll in
                        itertools.combinations_with_replacement(ranks, dice - size)]
        for kept in itertools.combinations_with_replacement(ranks, size):
            counts = [0] * n
            for roll, ways in sorted_rolls:
                counts[value[tuple(sorted(kept + roll))]] += ways
            outcome[kept] = tuple(c / rolls for c in counts)
    fresh = outcome[()]
    strength = strength_table(fresh)
    reach = {kept: _suffix_sums(dist) for kept, dist in outcome.items()}
    edge = {
        kept: _suffix_sums(map(operator.mul, dist, strength))  # (both one a claim value)
        for kept, dist in outcome.items()
    }
    return DiceTables(space, value, outcome, fresh, strength, reach, edge)


def _orderings(roll: tuple[int, ...]) -> int:
    """How many ordered rolls sort to this one (a multinomial): the dice tables count each
    sorted roll once with this weight, 252 of them for 5 dice instead of 7,776 rolls (the
    same whole counts, so the same tables; a bot's start built them in 30 ms of CPU)."""
    ways = math.factorial(len(roll))
    for _, same in itertools.groupby(roll):
        ways //= math.factorial(len(list(same)))
    return ways


def _suffix_sums(values: Iterable[float]) -> tuple[float, ...]:
    """Each value's sum with all after it, and a last 0.0: added from the end, one value at a
    time (`accumulate`'s loop in C, the same floats as a Python loop's, in a tenth of the time)."""
    return tuple(reversed(list(itertools.accumulate(reversed(list(values)), initial=0.0))))


# --- cards ------------------------------------------------------------------------------------

_RANKS = 13
_CODE = tuple(5**r for r in range(_RANKS))  # a rank multiset as base-5 digit counts
_CARD_CODE = tuple(_CODE[card >> 2] for card in range(52))  # the code of each card's rank
_WINDOWS = tuple(
    (top, frozenset(range(top - 4, top + 1)) if top >= 4 else frozenset((12, 0, 1, 2, 3)))
    for top in range(3, _RANKS)
)  # straights by top rank index (3 is the wheel A-2-3-4-5)


@dataclass(frozen=True, slots=True)
class CardPool:
    """Cards that may be drawn (or be face down unseen), with their counts by rank and suit."""

    cards: tuple[int, ...]
    per_rank: tuple[int, ...]
    suits: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, cards: Iterable[int]) -> CardPool:
        """Build a pool from card numbers."""
        cards = tuple(sorted(cards))
        per_rank = [0] * _RANKS
        suits: list[list[int]] = [[], [], [], []]
        for card in cards:
            per_rank[card >> 2] += 1
            suits[card & 3].append(card >> 2)
        return cls(cards, tuple(per_rank), tuple(tuple(s) for s in suits))


@dataclass(frozen=True, slots=True)
class CardTables:
    """Every card table for one claim order.

    `rank_value[code]`: claim index of 5 cards of different suits, by rank multiset code.
    `high`, `straight`, `flush`, `straight_flush`: claim index by top rank index 0..12 (-1
    where no such value exists). `fresh`: the value distribution of 5 cards from a full deck;
    `strength`: percentile of each value in `fresh`.
    """

    space: ClaimSpace
    rank_value: dict[int, int]
    high: tuple[int, ...]
    straight: tuple[int, ...]
    flush: tuple[int, ...]
    straight_flush: tuple[int, ...]
    fresh: tuple[float, ...]
    strength: tuple[float, ...]

    def hand_value(self, cards: Sequence[int]) -> int:
        """Claim index of 5 cards given as card numbers 0..51."""
        index = self.rank_value[sum(_CODE[c >> 2] for c in cards)]
        suit = cards[0] & 3
        if any(c & 3 != suit for c in cards):
            return index
        top = max(c >> 2 for c in cards)
        if self.space.claims[index].category == Category.STRAIGHT:
            return self.straight_flush[self.space.claims[index].ranks[0] - 2]
        return self.flush[top]

    def five_values(self, cards: Sequence[int]) -> list[int]:
        """The claim index of every 5 of these cards, in `itertools.combinations` order."""
        codes = itertools.combinations([_CODE[c >> 2] for c in cards], 5)
        values = list(map(self.rank_value.__getitem__, map(sum, codes)))
        for suit in range(4):  # only 5 cards of one suit can make a flush
            if sum(1 for c in cards if c & 3 == suit) >= 5:
                where = {combo: i for i, combo in enumerate(
                    itertools.combinations(range(len(cards)), 5))}
                suited = [i for i, c in enumerate(cards) if c & 3 == suit]
                for combo in itertools.combinations(suited, 5):
                    values[where[combo]] = self.hand_value([cards[i] for i in combo])
        return values

    def draw(self, kept: Sequence[int], pool: CardPool) -> tuple[float, ...]:
        """Value distribution of the kept cards plus 5 - len(kept) cards drawn from the pool."""
        counts, ways = self.draw_counts(kept, pool)
        return tuple(map(float(ways).__rtruediv__, counts))

    def draw_counts(self, kept: Sequence[int], pool: CardPool) -> tuple[list[int], int]:
        """Ways to draw each value (claim index) onto the kept cards, and all the ways to draw."""
        if len(kept) == 5:
            counts = [0] * len(self.space)
            counts[self.hand_value(kept)] = 1
            return counts, 1
        if len(kept) < CLOSED_FORM:
            counts, ways = list(self._rank_counts(kept, pool)), _ways(kept, pool)
        else:
            counts = [0] * len(self.space)
            sorted_draws, weights, ways = self._prepare(kept, pool)
            order, starts = sorted_draws.order, sorted_draws.starts
            for index in sorted_draws.present:
                counts[index] = sum(map(weights, order[starts[index] : starts[index + 1]]))
        for index, change in self._flush_moves(kept, pool):
            counts[index] += change
        return counts, ways

    def draw_score(
        self, kept: Sequence[int], pool: CardPool, target: int, gain: Sequence[float],
        memo: dict[int, float] | None = None,
    ) -> float:
        """Expected gain[value] over the values >= target, drawing onto the kept cards.

        `memo` (for one pool, target and gain) shares the rank-only part between kept sets
        of the same ranks, e.g. either king of a pair. Onto 0 or 1 kept cards the sum runs
        over values (closed-form counts), not over draws: the same sum to within about 1e-13.
        """
        if len(kept) == 5:
            value = self.hand_value(kept)
            return gain[value] if value >= target else 0.0
        ways = _ways(kept, pool)
        kcode = sum(map(_CARD_CODE.__getitem__, kept))
        total = None if memo is None else memo.get(kcode)
        if total is None:
            total = self._rank_score(kept, kcode, pool, target, gain)
            if memo is not None:
                memo[kcode] = total
        for index, change in self._flush_moves(kept, pool):
            if index >= target:
                total += change * gain[index]
        return total / ways

    def _rank_score(self, kept: Sequence[int], kcode: int, pool: CardPool, target: int,
                    gain: Sequence[float]) -> float:
        """The sum of gain[value] over the draws whose rank-only value is >= target."""
        if len(kept) < CLOSED_FORM:
            counts = self._rank_counts(kept, pool)
            return float(sum(map(operator.mul, gain[target:], counts[target:])))
        draws = 5 - len(kept)
        sorted_draws = _kept_draws(self.space.straight_over_full, kcode, draws)
        weights = _draw_weights(draws, pool.per_rank)
        start = sorted_draws.starts[target]
        return float(sum(map(operator.mul, _pick(weights, sorted_draws.order[start:]),
                             _pick(gain, sorted_draws.values[start:]))))

    def _rank_counts(self, kept: Sequence[int], pool: CardPool) -> tuple[int, ...]:
        """Ways each rank-only value is drawn onto the kept cards, in closed form."""
        ranks = [0] * _RANKS
        for card in kept:
            ranks[card >> 2] += 1
        return rank_counts(self.space.straight_over_full, tuple(ranks), pool.per_rank)

    def _prepare(
        self, kept: Sequence[int], pool: CardPool
    ) -> tuple[_SortedDraws, Callable[[int], int], int]:
        draws = 5 - len(kept)
        ways = _ways(kept, pool)
        kcode = sum(_CODE[c >> 2] for c in kept)
        sorted_draws = _kept_draws(self.space.straight_over_full, kcode, draws)
        return sorted_draws, _draw_weights(draws, pool.per_rank).__getitem__, ways

    def _flush_moves(self, kept: Sequence[int], pool: CardPool) -> Sequence[tuple[int, int]]:
        """Count changes that move the one-suit draws, counted by rank alone, to flush or
        straight flush."""
        sof = self.space.straight_over_full
        if not kept:
            return [move for ranks in pool.suits for move in _suit_moves(sof, ranks, ())]
        suit = kept[0] & 3
        for card in kept:
            if card & 3 != suit:  # most kept sets of two or more cards: no flush to move
                return ()
        return _suit_moves(sof, pool.suits[suit], tuple(sorted(c >> 2 for c in kept)))


@lru_cache(maxsize=4096)
def _suit_moves(straight_over_full: bool, ranks: tuple[int, ...],
                kept: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """The flush moves of one suit: its ranks in the pool, the kept ranks (of that suit)."""
    tables = _TopIndexes.of(straight_over_full)
    kept_ranks = frozenset(kept)
    top_kept = max(kept_ranks, default=-1)
    draws = 5 - len(kept)
    by_top = _tops(ranks, top_kept, draws)
    have = frozenset(ranks)
    moves: list[tuple[int, int]] = []
    for top, window in _WINDOWS:
        need = window - kept_ranks
        if kept_ranks <= window and len(need) == draws and need <= have:
            by_top[max(window)] -= 1
            moves += [(tables.straight[top], -1), (tables.straight_flush[top], 1)]
    for top, number in enumerate(by_top):
        if number:
            moves += [(tables.high[top], -number), (tables.flush[top], number)]
    return tuple(moves)


@dataclass(frozen=True, slots=True)
class _TopIndexes:
    """Claim indexes by top rank index of the values a flush moves between (-1: none)."""

    high: tuple[int, ...]
    straight: tuple[int, ...]
    flush: tuple[int, ...]
    straight_flush: tuple[int, ...]

    @staticmethod
    @cache
    def of(straight_over_full: bool) -> _TopIndexes:
        """Build (once per claim order) the indexes."""
        space = hands.claim_space(hands.CARDS, straight_over_full)

        def by_top(category: Category) -> tuple[int, ...]:
            return tuple(
                space.index.get(Value(category, (r + 2,), straight_over_full), -1)
                for r in range(_RANKS)
            )

        return _TopIndexes(by_top(Category.HIGH), by_top(Category.STRAIGHT),
                           by_top(Category.FLUSH), by_top(Category.STRAIGHT_FLUSH))


def _ways(kept: Sequence[int], pool: CardPool) -> int:
    """Ways to draw the cards missing from the kept ones out of the pool (never none)."""
    draws = 5 - len(kept)
    ways = math.comb(len(pool.cards), draws)
    if ways == 0:
        raise ValueError(f"cannot draw {draws} cards from a pool of {len(pool.cards)}")
    return ways


def _tops(ranks: Sequence[int], top_kept: int, draws: int) -> list[int]:
    """How many ways to draw `draws` of these ranks give each top rank (with the kept top)."""
    by_top = [0] * _RANKS
    if top_kept >= 0:
        below = sum(1 for r in ranks if r < top_kept)
        by_top[top_kept] = math.comb(below, draws)
    if draws == 0:
        return by_top
    for below, rank in enumerate(ranks):
        if rank > top_kept:
            by_top[rank] += math.comb(below, draws - 1)
    return by_top


_HALVES = (range(7), range(7, _RANKS))  # low ranks 2-8, high ranks 9-A


def _multisets(ranks: range, size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(
        combo for combo in itertools.combinations_with_replacement(ranks, size)
        if all(combo.count(r) <= 4 for r in combo)
    )


@cache
def _parts(half: int, size: int) -> tuple[tuple[int, ...], ...]:
    """The rank multisets of `size` cards (0-5) within one half of the ranks."""
    return _multisets(_HALVES[half], size)


@cache
def _compositions(size: int) -> tuple[int, ...]:
    """Codes of every rank multiset of `size` cards (0-5), low part then high part (the order
    in which `_draw_weights` multiplies the ways to draw each part); built when first used."""
    return tuple(
        sum(_CODE[r] for r in low + high)
        for low_size in range(size + 1)
        for low in _parts(0, low_size)
        for high in _parts(1, size - low_size)
    )


@dataclass(frozen=True, slots=True)
class _SortedDraws:
    """The draws onto some kept ranks, by the rank-only value they make: `order` lists draw
    positions (in `_compositions`) by claim index, `values` their claim indexes, `starts[v]`
    the first entry worth v or more, `present` the claim indexes that occur."""

    order: tuple[int, ...]
    values: tuple[int, ...]
    starts: tuple[int, ...]
    present: tuple[int, ...]


@cache
def _kept_draws(straight_over_full: bool, kcode: int, draws: int) -> _SortedDraws:
    """Sort the draws of `draws` cards by the rank-only value they make with the kept ranks.

    A draw that would need a rank five times (more than the deck holds) is left out: it
    always weighs 0, since the kept cards and the pool never share a card.
    """
    rank_value = _rank_values(straight_over_full)
    size = len(hands.claim_space(hands.CARDS, straight_over_full))
    found = sorted(
        (index, position)
        for position, code in enumerate(_compositions(draws))
        if (index := rank_value.get(kcode + code)) is not None
    )
    values = tuple(index for index, _ in found)
    tally = [0] * (size + 1)
    for index in values:
        tally[index] += 1
    starts = tuple(itertools.accumulate(tally, initial=0))[: size + 1]  # entries worth less
    return _SortedDraws(tuple(p for _, p in found), values, starts, tuple(sorted(set(values))))


T = TypeVar("T")


def _pick(values: Sequence[T], positions: Sequence[int]) -> Sequence[T]:
    """The values at these positions, in their order (one C call: itemgetter)."""
    if len(positions) < 2:  # itemgetter of one position returns the value, not a tuple
        return [values[p] for p in positions]
    picked: Sequence[T] = operator.itemgetter(*positions)(values)
    return picked


@lru_cache(maxsize=1024)
def _draw_weights(draws: int, per_rank: tuple[int, ...]) -> tuple[int, ...]:
    """Ways to draw each rank multiset of `draws` cards from a pool with these rank counts."""
    low, high = per_rank[: _HALVES[1].start], per_rank[_HALVES[1].start :]
    out: list[int] = []
    for low_size in range(draws + 1):
        highs = _part_weights(1, draws - low_size, high)
        out.extend(itertools.starmap(operator.mul, itertools.product(
            _part_weights(0, low_size, low), highs)))  # each low part with each high part
    return tuple(out)


@lru_cache(maxsize=4096)
def _part_weights(half: int, size: int, counts: tuple[int, ...]) -> tuple[int, ...]:
    """Ways to draw each rank multiset of one half of the ranks from these rank counts."""
    ways = [_CHOOSE[n][c] for n in counts for c in range(5)]  # ways[5 * rank + count]
    return tuple(math.prod(map(ways.__getitem__, factors)) for factors in _part_factors(half, size))


_CHOOSE = tuple(tuple(math.comb(n, c) for c in range(5)) for n in range(5))


@cache
def _part_factors(half: int, size: int) -> tuple[tuple[int, ...], ...]:
    """For each rank multiset of `size` cards of a half: its (rank within the half, count) as
    indexes into `_part_weights`' ways."""
    start = _HALVES[half].start
    return tuple(tuple(5 * (r - start) + combo.count(r) for r in sorted(set(combo)))
                 for combo in _parts(half, size))


@cache
def _rank_values(straight_over_full: bool) -> dict[int, int]:
    """Claim index of every 5-card rank multiset in several suits, by rank multiset code."""
    space = hands.claim_space(hands.CARDS, straight_over_full)
    rank_value = {}
    for combo in itertools.combinations_with_replacement(range(_RANKS), 5):
        if all(combo.count(r) <= 4 for r in combo):
            cards = [r * 4 + i % 4 for i, r in enumerate(combo)]  # never one suit
            code = sum(_CODE[r] for r in combo)
            rank_value[code] = space.index[hands.cards_value(cards, straight_over_full)]
    return rank_value


@cache
def card_tables(straight_over_full: bool = False) -> CardTables:
    """Build (once) the card tables for one claim order."""
    space = hands.claim_space(hands.CARDS, straight_over_full)
    rank_value = _rank_values(straight_over_full)

    def by_top(category: Category) -> tuple[int, ...]:
        return tuple(
            space.index.get(Value(category, (r + 2,), straight_over_full), -1)
            for r in range(_RANKS)
        )

    unfinished = CardTables(
        space, rank_value, by_top(Category.HIGH), by_top(Category.STRAIGHT),
        by_top(Category.FLUSH), by_top(Category.STRAIGHT_FLUSH), (), (),
    )
    fresh = unfinished.draw((), CardPool.of(DECK))  # needs no fresh table itself
    return dataclasses.replace(unfinished, fresh=fresh, strength=strength_table(fresh))


def tables_for(space: ClaimSpace) -> DiceTables | CardTables:
    """The tables of a claim space (dice or cards, in its claim order)."""
    if space.kind == hands.DICE:
        return dice_tables(space.straight_over_full, space.dice, space.faces)
    return card_tables(space.straight_over_full)


# --- what survives unseen rerolls -------------------------------------------------------------

EXACT = (0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
"""Survivor counts when the hand is known exactly: all 5 seen dice or cards are still there."""


def exact(size: int) -> tuple[float, ...]:
    """Survivor counts of a hand of `size` known exactly (`EXACT` for 5): all still there."""
    return EXACT if size == 5 else (0.0,) * size + (1.0,)


def after_reroll(survivors: Sequence[float], count: int) -> tuple[float, ...]:
    """Update P(j seen tokens remain) after someone rerolls `count` positions we did not see.

    The positions are taken as uniformly random, so the survivors of a known hand are always
    a uniformly random subset of it (a hypergeometric chain).
    """
    size = len(survivors) - 1  # the hand's dice or cards: 5, fewer in a reduced game
    out = [0.0] * (size + 1)
    total = math.comb(size, count)
    for j, p in enumerate(survivors):
        if not p:
            continue
        for lost in range(max(0, count - (size - j)), min(j, count) + 1):
            out[j - lost] += p * math.comb(j, lost) * math.comb(size - j, count - lost) / total
    return tuple(out)


def kept_subsets(tokens: Sequence[int], size: int) -> list[tuple[int, ...]]:
    """Every choice of `size` positions' tokens, sorted, with repeats (each choice weighs 1)."""
    return [tuple(sorted(c)) for c in itertools.combinations(tokens, size)]


def dice_belief(
    tables: DiceTables, known: Sequence[int] | None, survivors: Sequence[float]
) -> tuple[float, ...]:
    """Value distribution of the dice now, from the dice last seen and what may have survived."""
    if not known:
        return tables.fresh
    space = tables.space
    return _dice_belief(space.straight_over_full, tuple(sorted(known)), tuple(survivors),
                        space.dice, space.faces)


@lru_cache(maxsize=4096)
def _dice_belief(
    straight_over_full: bool, known: tuple[int, ...], survivors: tuple[float, ...],
    dice: int = 5, faces: int = 6,
) -> tuple[float, ...]:
    outcome = _nonzero_outcome(straight_over_full, dice, faces)
    out = [0.0] * len(dice_tables(straight_over_full, dice, faces).space)
    for j, weight in enumerate(survivors):
        if weight < 1e-12:
            continue
        subsets = list(itertools.combinations(known, j))  # `known` sorted: each sorted too
        share = weight / len(subsets)
        for kept in subsets:
            for i, p in outcome[kept]:  # adding share * 0.0 would change no sum
                out[i] += share * p
    return tuple(out)


@cache
def _nonzero_outcome(
    straight_over_full: bool, dice: int, faces: int
) -> dict[tuple[int, ...], tuple[tuple[int, float], ...]]:
    """Each kept multiset's outcome as its (value, probability) pairs that are not 0: most
    values cannot follow a reroll of few dice (4 kept dice reach at most 6 of them)."""
    tables = dice_tables(straight_over_full, dice, faces)
    return {kept: tuple((i, p) for i, p in enumerate(dist) if p)
            for kept, dist in tables.outcome.items()}


def card_belief(
    tables: CardTables, fixed: Sequence[int], known: Sequence[int], survivors: Sequence[float],
    pool: CardPool,
) -> tuple[float, ...]:
    """Value distribution of 5 cards: the fixed ones, a surviving subset of the known ones
    (size j with probability survivors[j], capped by room), the rest from the pool."""
    room = 5 - len(fixed)
    mixed: dict[int, float] = {}
    for j, weight in enumerate(survivors):
        if weight >= 1e-12:
            size = min(j, len(known), room)
            mixed[size] = mixed.get(size, 0.0) + weight
    shares: dict[tuple[int, ...], float] = {}
    for size, weight in sorted(mixed.items()):
        subsets = kept_subsets(known, size)
        for kept in subsets:
            hand = tuple(sorted((*fixed, *kept)))
            shares[hand] = shares.get(hand, 0.0) + weight / len(subsets)
    if len(shares) == 1 and 1.0 in shares.values():  # one hand for sure: 0.0 + 1.0 * p == p
        return tables.draw(next(iter(shares)), pool)
    out = [0.0] * len(tables.space)
    every = range(len(out))
    for hand, share in shares.items():
        counts, ways = tables.draw_counts(hand, pool)
        whole = float(ways)
        for index in itertools.compress(every, counts):  # adding 0.0 would change nothing
            out[index] += share * (counts[index] / whole)
    return tuple(out)


# --- what a claim says about the hand ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Evidence:
    """A claim made by a player who saw the hand it is about: who, the claim, and the lowest
    claim that was legal when it was made (all as claim indexes)."""

    seat: int
    claim: int
    floor: int


def noise_likelihood(claim: int, floor: int, size: int) -> float:
    """P(claim) from a claimant whose claims ignore the hand: steps up from the lowest legal."""
    steps = claim - floor
    return 0.5 * (1 - NOISE_STEP) * NOISE_STEP**steps + 0.5 / (size - floor)


def honest_likelihood(claim: int, value: int, floor: int, size: int) -> float:
    """P(claim) from an honest claimant: its true value when legal, else the lowest legal."""
    if claim == max(value, floor):
        return 1 - HONEST_SLIP
    return HONEST_SLIP / (size - floor)


def honesty_update(log_odds: float, evidence: Evidence, value: int, size: int) -> float:
    """New log-odds that a claimant is honest, after seeing the hand its claim was about."""
    ratio = honest_likelihood(evidence.claim, value, evidence.floor, size) / noise_likelihood(
        evidence.claim, evidence.floor, size
    )
    return max(-HONESTY_LIMIT, min(HONESTY_LIMIT, log_odds + math.log(ratio)))


def posterior(
    prior: Sequence[float], evidence: Iterable[Evidence], honesty: dict[int, float]
) -> list[float]:
    """Value distribution given claims by players who saw the hand (Bayes over both models)."""
    size = len(prior)
    post = list(prior)
    for e in evidence:
        trust = 1 / (1 + math.exp(-honesty.get(e.seat, 0.0)))
        slip = HONEST_SLIP / (size - e.floor)
        other = trust * slip + (1 - trust) * noise_likelihood(e.claim, e.floor, size)
        predicted = other + trust * (1 - HONEST_SLIP - slip)
        # the honest model predicts the claim itself, or (at the floor) any value up to it
        low = e.claim if e.claim > e.floor else 0
        post = [*map(other.__mul__, post[:low]), *map(predicted.__mul__, post[low : e.claim + 1]),
                *map(other.__mul__, post[e.claim + 1 :])]
    total = math.fsum(post)
    return [p / total for p in post] if total > 0 else list(prior)


def holds_probability(
    prior: Sequence[float], claim: int, evidence: Sequence[Evidence] = (),
    honesty: dict[int, float] | None = None,
) -> float:
    """Probability that the hand's value is at least the claim, given the evidence."""
    dist = posterior(prior, evidence, honesty or {}) if evidence else prior
    return min(1.0, max(0.0, math.fsum(dist[claim:])))


def warm_up(space: ClaimSpace | None = None) -> None:
    """Build now, outside any clock, the tables a game in `space` reads (without one, the
    normal order's dice and cards tables): a dice game's 30 ms need not wait for the cards'
    140 ms it never reads. The others are built the first time they are needed."""
    if space is None:
        _warm_dice(False, 5, 6)  # as `tables_for` asks: `cache` keys the arguments as given
        _warm_cards(False)
    elif space.kind == hands.DICE:
        _warm_dice(space.straight_over_full, space.dice, space.faces)
    else:
        _warm_cards(space.straight_over_full)


def _warm_dice(straight_over_full: bool, dice: int, faces: int) -> None:
    """Build the dice tables of one claim order and game size, and the outcomes a belief
    reads (a worker forked after this finds both built, not its own to build)."""
    dice_tables(straight_over_full, dice, faces)
    _nonzero_outcome(straight_over_full, dice, faces)


@cache
def _warm_cards(straight_over_full: bool) -> None:
    """Build the cards tables of one claim order, with the largest of the sorted draws (onto
    one or two kept cards); once, as a bot built for every game asks again."""
    card_tables(straight_over_full)
    for size in (1, 2):
        for combo in _multisets(range(_RANKS), size):
            _kept_draws(straight_over_full, sum(_CODE[r] for r in combo), 5 - size)

