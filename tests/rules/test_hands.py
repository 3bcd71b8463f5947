"""Hand values, claim spaces and claim text (arena.hands), including both reference tables."""

from __future__ import annotations

import itertools
import os
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from operator import attrgetter

import pytest

from arena import hands
from arena.hands import Category, cards_value, claims, dice_value, parse_claim, value

C = Category

DICE_TABLE = {
    C.FIVE: 6, C.FOUR: 150, C.FULL: 300, C.STRAIGHT: 240, C.THREE: 1_200,
    C.TWO_PAIR: 1_800, C.PAIR: 3_600, C.HIGH: 480,
}
CARDS_TABLE = {
    C.STRAIGHT_FLUSH: 40, C.FOUR: 624, C.FULL: 3_744, C.FLUSH: 5_108, C.STRAIGHT: 10_200,
    C.THREE: 54_912, C.TWO_PAIR: 123_552, C.PAIR: 1_098_240, C.HIGH: 1_302_540,
}


# --- known hands ----------------------------------------------------------------------------

@pytest.mark.parametrize(("hand", "expected"), [
    # dice
    ("9 T J Q K", "straight K"),
    ("T J Q K A", "straight A"),
    ("K 9 Q T J", "straight K"),
    ("9 T J Q A", "high A"),
    ("9 T J K A", "high A"),
    ("A A A A A", "five A"),
    ("9 9 9 9 9", "five 9"),
    ("9 9 9 9 A", "four 9"),
    ("9 9 9 T T", "full 9 T"),
    ("T T 9 9 9", "full 9 T"),
    ("J J Q Q A", "two-pair Q J"),
    ("K K K 9 A", "three K"),
    ("Q 9 Q T A", "pair Q"),
    ("a k q j t", "straight A"),
    # cards
    ("Ah 2c 3d 4s 5h", "straight 5"),
    ("5h 4h 3h 2h Ah", "straight-flush 5"),
    ("Ah Kh Qh Jh Th", "straight-flush A"),
    ("Kc Ad 2h 3s 4c", "high A"),
    ("2c 3d 4h 5s 7c", "high 7"),
    ("6c 5d 4h 3s 2c", "straight 6"),
    ("As Ks Qs Js 9d", "high A"),
    ("2h 5h 7h 9h Kh", "flush K"),
    ("Th Jh Qh Kh 9h", "straight-flush K"),
    ("4c 4d 4h Jc Jd", "full 4 J"),
    ("Jc Jd 4h 4s 7c", "two-pair J 4"),
    ("Qc Qd Qh Qs 2c", "four Q"),
    ("Qc Qd Qh 2s 3c", "three Q"),
    ("2c 2d 9h Ks Ac", "pair 2"),
    ("10h 9h 8c 7d 6s", "straight T"),
    ("Ah, Kd, 4c, 4s, Jh", "pair 4"),
])
def test_value_of_known_hands(hand: str, expected: str) -> None:
    assert str(value(hand)) == expected
    assert value(hand) == parse_claim(expected)


def test_values_have_no_kickers() -> None:
    assert value("Qc Qd 2h 3s 4c") == value("Qh Qs Ah Ks Jc")
    assert value("9 9 T J K") == value("9 9 A K T")
    assert value("2c 3d 4h 5s 7c") < value("2c 3d 4h 5s 8c")


def test_card_numbers_round_trip() -> None:
    assert hands.card_id("2c") == 0
    assert hands.card_id("Ah") == 50
    assert hands.card_id("As") == 51
    assert [hands.card_id(hands.card_text(c)) for c in range(52)] == list(range(52))


def test_dice_have_no_flush_and_cards_have_no_five() -> None:
    dice_categories = {claim.category for claim in claims("dice")}
    card_categories = {claim.category for claim in claims("cards")}
    assert dice_categories == set(C) - {C.FLUSH, C.STRAIGHT_FLUSH}
    assert card_categories == set(C) - {C.FIVE}
    assert set(claims("dice-cards")) == set(claims("cards"))


# --- claim spaces ---------------------------------------------------------------------------

@pytest.mark.parametrize(("rules", "size", "lowest", "highest"), [
    ("dice", 72, "high A", "five A"),
    ("dice-cards", 309, "high 7", "straight-flush A"),
    ("cards", 309, "high 7", "straight-flush A"),
])
@pytest.mark.parametrize("straight_over_full", [False, True])
def test_claim_space_is_strictly_increasing(
    rules: str, size: int, lowest: str, highest: str, straight_over_full: bool
) -> None:
    space = claims(rules, straight_over_full)
    assert len(space) == len(set(space)) == size
    assert str(space[0]) == lowest
    assert str(space[-1]) == highest
    assert all(a < b for a, b in itertools.pairwise(space))
    assert all(claim.straight_over_full is straight_over_full for claim in space)


def test_dice_claims_per_category() -> None:
    per = Counter(claim.category for claim in claims("dice"))
    assert per == {C.HIGH: 1, C.PAIR: 6, C.TWO_PAIR: 15, C.THREE: 6, C.STRAIGHT: 2,
                   C.FULL: 30, C.FOUR: 6, C.FIVE: 6}


def test_card_claims_per_category() -> None:
    per = Counter(claim.category for claim in claims("cards"))
    assert per == {C.HIGH: 8, C.PAIR: 13, C.TWO_PAIR: 78, C.THREE: 13, C.STRAIGHT: 10,
                   C.FLUSH: 8, C.FULL: 156, C.FOUR: 13, C.STRAIGHT_FLUSH: 10}


@pytest.mark.parametrize("rules", ["dice", "dice-cards", "cards"])
@pytest.mark.parametrize("straight_over_full", [False, True])
def test_every_claim_round_trips_through_text(rules: str, straight_over_full: bool) -> None:
    for claim in claims(rules, straight_over_full):
        assert parse_claim(str(claim), straight_over_full) == claim


@pytest.mark.parametrize(("text", "written"), [
    ("full-house 4 J", "full 4 J"),
    ("FULL 4 j", "full 4 J"),
    ("two-pair 4 J", "two-pair J 4"),
    ("pair 10", "pair T"),
    ("high-card A", "high A"),
    ("three-of-a-kind Q", "three Q"),
    ("four-of-a-kind 9", "four 9"),
    ("five-of-a-kind K", "five K"),
])
def test_claim_text_aliases(text: str, written: str) -> None:
    assert str(parse_claim(text)) == written


def test_claim_index_lookup() -> None:
    space = hands.claim_space("dice")
    assert space.position(parse_claim("five A")) == 71
    assert space.position(parse_claim("high A")) == 0
    with pytest.raises(hands.HandError, match="no hand of dice has the value flush K"):
        space.position(parse_claim("flush K"))


# --- values against claims ------------------------------------------------------------------

def test_a_claim_holds_when_the_value_is_greater_or_equal() -> None:
    full = value("4c 4d 4h Jc Jd")
    assert full >= parse_claim("three Q")  # the example in RULES.md
    assert full >= parse_claim("full 4 J")
    assert not full >= parse_claim("full 4 Q")
    assert not full >= parse_claim("four 2")
    assert value("J J Q Q A") >= parse_claim("two-pair Q J")
    assert value("J J Q Q A") > parse_claim("two-pair Q T")
    assert not value("J J Q Q A") >= parse_claim("two-pair K 9")


def test_values_compare_by_category_then_key_ranks() -> None:
    assert parse_claim("pair A") < parse_claim("two-pair 3 2")
    assert parse_claim("two-pair K 2") < parse_claim("two-pair K 3") < parse_claim("two-pair A 2")
    assert parse_claim("full 2 A") < parse_claim("full 3 2")
    assert parse_claim("straight A") < parse_claim("flush 7") < parse_claim("full 2 3")
    assert parse_claim("four A") < parse_claim("straight-flush 5") < parse_claim("five 9")


# --- straight_over_full ---------------------------------------------------------------------

def _category_order(rules: str, straight_over_full: bool) -> list[Category]:
    return list(dict.fromkeys(claim.category for claim in claims(rules, straight_over_full)))


def test_straight_over_full_swaps_the_two_categories() -> None:
    assert _category_order("dice", False) == [
        C.HIGH, C.PAIR, C.TWO_PAIR, C.THREE, C.STRAIGHT, C.FULL, C.FOUR, C.FIVE]
    assert _category_order("dice", True) == [
        C.HIGH, C.PAIR, C.TWO_PAIR, C.THREE, C.FULL, C.STRAIGHT, C.FOUR, C.FIVE]
    assert _category_order("cards", False) == [
        C.HIGH, C.PAIR, C.TWO_PAIR, C.THREE, C.STRAIGHT, C.FLUSH, C.FULL, C.FOUR,
        C.STRAIGHT_FLUSH]
    # The two categories trade places, so in the card games the flush ends up between them.
    assert _category_order("cards", True) == [
        C.HIGH, C.PAIR, C.TWO_PAIR, C.THREE, C.FULL, C.FLUSH, C.STRAIGHT, C.FOUR,
        C.STRAIGHT_FLUSH]


def test_straight_over_full_compares_values() -> None:
    straight, full = "9 T J Q K", "A A A K K"
    assert value(straight) < value(full)
    assert value(straight, straight_over_full=True) > value(full, straight_over_full=True)
    assert value(straight, True) >= parse_claim("full A K", True)
    assert not value(straight) >= parse_claim("full 9 T")


def test_values_with_and_without_straight_over_full_refuse_to_compare() -> None:
    plain, swapped = parse_claim("pair J"), parse_claim("pair J", straight_over_full=True)
    assert plain != swapped
    for compare in (
        lambda: plain < swapped, lambda: plain <= swapped,
        lambda: plain > swapped, lambda: plain >= swapped,
    ):
        with pytest.raises(TypeError, match="straight_over_full"):
            compare()


# --- the reference tables -------------------------------------------------------------------

def test_dice_reference_table_over_all_7776_rolls() -> None:
    values = Counter(map(dice_value, itertools.product(hands.DIE_RANKS, repeat=5)))
    assert sum(values.values()) == 7_776
    per_category = Counter()
    for v, count in values.items():
        per_category[v.category] += count
    assert per_category == DICE_TABLE
    assert set(values) == set(claims("dice"))  # the claim space is exactly the values rolled


_RANKS_OF = attrgetter("category", "ranks")


def _card_values_from(first: int) -> Counter:
    """Values of every 5-card hand whose lowest card is `first` (one worker's share)."""
    rest = itertools.combinations(range(first + 1, 52), 4)
    return Counter(_RANKS_OF(cards_value((first, *four))) for four in rest)


@pytest.mark.slow
def test_cards_reference_table_over_all_2598960_hands() -> None:
    workers = min(4, os.cpu_count() or 1)
    with ProcessPoolExecutor(workers) as pool:
        values = sum(pool.map(_card_values_from, range(48)), Counter())
    assert sum(values.values()) == 2_598_960
    per_category = Counter()
    for (category, _), count in values.items():
        per_category[category] += count
    assert per_category == CARDS_TABLE
    assert set(values) == {_RANKS_OF(claim) for claim in claims("cards")}
