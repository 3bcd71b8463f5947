"""The fast paths of the bots' card tables against the plain ones: closed-form draw counts
against listing every draw, the values of every 5 of 10 cards against one hand at a time."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest

from arena import hands
from arena.odds import probability
from arena.odds.probability import CardPool
from arena.odds.rank_counts import rank_counts


def listed_counts(straight_over_full: bool, kept: list[int], pool: CardPool) -> list[int]:
    """Ways each rank-only value is drawn, by listing every rank multiset drawn."""
    space = hands.claim_space(hands.CARDS, straight_over_full)
    counts = [0] * len(space)
    draws = 5 - len(kept)
    for combo in itertools.combinations_with_replacement(range(13), draws):
        ways = 1
        for rank, number in Counter(combo).items():
            ways *= math.comb(pool.per_rank[rank], number)
        if ways:
            ranks = [c >> 2 for c in kept] + list(combo)
            cards = [r * 4 + i % 4 for i, r in enumerate(sorted(ranks))]  # never one suit
            counts[space.index[hands.cards_value(cards, straight_over_full)]] += ways
    return counts


def _ranks(cards: list[int]) -> tuple[int, ...]:
    counts = [0] * 13
    for card in cards:
        counts[card >> 2] += 1
    return tuple(counts)


def _cases(number: int) -> list[tuple[bool, list[int], CardPool]]:
    rng = random.Random(15)
    cases = []
    for case in range(number):
        deck = list(range(52))
        rng.shuffle(deck)
        if case % 3 == 0:  # kept cards that pair up
            shuffled = list(deck)
            deck.sort(key=lambda c: (c >> 2 != shuffled[0] >> 2, shuffled.index(c)))
        kept = deck[: rng.randint(0, 5)]
        out = set(deck[: 5 + rng.randint(0, 40)])
        cases.append((case % 4 == 1, kept, CardPool.of(set(range(52)) - out)))
    return cases


@pytest.mark.parametrize(("straight_over_full", "kept", "pool"), _cases(120))
def test_rank_counts_are_the_listed_counts(straight_over_full: bool, kept: list[int],
                                           pool: CardPool) -> None:
    """Every value's count, onto 0-5 kept cards from pools of 7 to 47 cards, both orders."""
    expected = listed_counts(straight_over_full, kept, pool)
    assert list(rank_counts(straight_over_full, _ranks(kept), pool.per_rank)) == expected


def test_rank_counts_of_a_full_deck_sum_to_every_hand() -> None:
    counts = rank_counts(False, (0,) * 13, (4,) * 13)
    assert sum(counts) == math.comb(52, 5)  # every hand once, flushes by their ranks
    assert counts[probability.card_tables(False).space.index[hands.parse_claim("four A")]] == 48


@pytest.mark.parametrize("straight_over_full", [False, True])
def test_five_values_are_each_five_cards_value(straight_over_full: bool) -> None:
    """Every 5 of 10 cards, flushes and straight flushes too (one suit dealt often)."""
    tables = probability.card_tables(straight_over_full)
    rng = random.Random(5)
    for case in range(200):
        suited = [c for c in range(52) if c & 3 == case % 4]
        cards = rng.sample(suited, 6) + rng.sample(range(52), 10) if case % 2 else rng.sample(
            range(52), 16)
        cards = list(dict.fromkeys(cards))[:10]
        expected = [tables.hand_value(five) for five in itertools.combinations(cards, 5)]
        assert tables.five_values(cards) == expected
