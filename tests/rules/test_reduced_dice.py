"""Reduced `dice` games (rule options `dice` and `faces`): the smaller claim ladder, the
throws and rerolls of fewer dice, the bots playing them, and the standard game's record
unchanged."""

from __future__ import annotations

import itertools
import random

import pytest

import arena
from arena import hands
from arena.rules import get_rules
from arena.rules.actions import Bid, Challenge, Chance, Look, Reroll
from arena.rules.base import IllegalAction, OptionError

SIZES = ((1, 3), (2, 3), (2, 4), (3, 3), (4, 5))


@pytest.mark.parametrize(("dice", "faces"), SIZES)
def test_a_reduced_game_throws_so_many_dice_of_the_top_faces(dice: int, faces: int) -> None:
    rules = get_rules("dice")
    state = rules.new_game(2, {"dice": dice, "faces": faces, "max_points": 1})
    rng = random.Random(7)
    for _ in range(20):
        thrown = rules.apply(state, rules.chance(state, rng))
        assert len(thrown.hand) == dice
        assert set(thrown.hand) <= set(hands.DIE_RANKS[6 - faces:])
        values = {thrown.space.claims[rules.hand_index(thrown)]}
        assert values <= set(rules.legal(thrown).claims())


@pytest.mark.parametrize(("straight_over_full", "dice", "faces"),
                         [(False, 5, 6), (True, 5, 6), *((False, d, f) for d, f in SIZES)])
def test_the_referee_values_every_ordered_roll_as_the_hand_ranking_does(
        straight_over_full: bool, dice: int, faces: int) -> None:
    """Its table of the hand under the cup, built from each sorted roll's value, is
    `hands.dice_value` of every roll in every order."""
    rules = get_rules("dice")
    space = hands.claim_space(hands.DICE, straight_over_full, dice, faces)
    table = rules._dice_index(space)
    rolls = list(itertools.product(space.ranks, repeat=dice))
    assert list(table) == rolls
    assert all(table[r] == space.index[hands.dice_value(r, straight_over_full)] for r in rolls)


def test_the_ladder_of_two_dice_of_four_faces_is_high_cards_then_pairs() -> None:
    space = hands.claim_space(hands.DICE, False, 2, 4)
    assert [str(c) for c in space.claims] == [
        "high Q", "high K", "high A", "pair J", "pair Q", "pair K", "pair A"]
    assert [str(c) for c in hands.claim_space(hands.DICE, False, 1, 3).claims] == [
        "high Q", "high K", "high A"]


def test_a_round_of_two_dice_looks_rerolls_and_is_challenged() -> None:
    rules = get_rules("dice")
    state = rules.new_game(2, {"dice": 2, "faces": 4, "max_points": 1})
    state = rules.apply(state, Chance((11, 13)))  # J K: high K
    state = rules.apply(state, Bid(hands.parse_claim("pair Q")))
    state = rules.apply(state, Look())
    assert rules.legal(state).rerollable == (0, 1)
    with pytest.raises(IllegalAction, match="position 2 is not under the cup: this game has 2"):
        rules.apply(state, Reroll((2,)))
    state = rules.apply(state, Reroll((0,)))
    with pytest.raises(IllegalAction, match=r"die faces 11\.\.14"):
        rules.apply(state, Chance((9,)))
    state = rules.apply(state, Chance((13,)))  # K K
    state = rules.apply(state, Bid(hands.parse_claim("pair K")))
    state = rules.apply(state, Challenge())
    challenge = rules.events(state)[0]
    assert challenge.data["holds"] is True and str(challenge.data["value"]) == "pair K"
    assert rules.result(state).placements == (2, 1)


def test_the_options_are_recorded_only_when_not_the_standard_size() -> None:
    rules = get_rules("dice")
    assert "dice" not in rules.check_options(None)
    assert "faces" not in rules.check_options({"dice": 5, "faces": 6})
    assert dict(rules.check_options({"dice": 2}))["dice"] == 2
    assert "dice" not in dict(rules.description.options)
    with pytest.raises(OptionError, match="dice"):
        rules.check_options({"dice": 6})
    with pytest.raises(OptionError, match="faces"):
        rules.check_options({"faces": 1})
    with pytest.raises(OptionError, match="unknown option"):
        get_rules("dice-cards").check_options({"dice": 2})


@pytest.mark.parametrize(("dice", "faces"), SIZES)
def test_the_built_in_bots_play_the_reduced_sizes_without_a_fault(dice: int, faces: int) -> None:
    options = {"dice": dice, "faces": faces, "max_points": 2}
    for seats in (["boss", "statistician"], ["honest", "boss"], ["statistician", "honest"]):
        for seed in range(3):
            record = arena.play_game("dice", seats, seed=seed, options=options)
            assert record.options["dice"] == dice
            assert record.faults == (), seats
            assert sorted(record.result.placements) == [1, 2]
