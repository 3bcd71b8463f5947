"""Bad input gets an error that names the offending action, option, hand or claim."""

from __future__ import annotations

import re

import pytest
from scripted import deck, play, roll

from arena.hands import HandError, hand_kind, parse_claim, value
from arena.rules import RULESETS, IllegalAction, OptionError, RulesError, get_rules
from arena.rules.actions import Accept, Bid, Challenge, Chance, Look, Pass, Reroll, parse_action

DICE = RULESETS["dice"]
CARDS = RULESETS["cards"]


def thrown(*moves: str, **options: object):
    """A 3-player dice game after the throw J J Q Q A and some moves."""
    return play(DICE, DICE.new_game(3, options), roll("J J Q Q A"), *moves)


def fresh_central(**options: object):
    """A 3-player cards game, seat 0 holding a fresh central hand."""
    return play(CARDS, CARDS.new_game(3, options), deck())


# --- illegal actions ------------------------------------------------------------------------

@pytest.mark.parametrize(("moves", "action", "message"), [
    ((), Challenge(), ("seat 0: 'challenge' is not a legal answer to 'claim' "
                      "(legal: a claim of high A or higher)")),
    ((), Look(), "'look' is not a legal answer to 'claim'"),
    (("claim pair Q",), Bid(parse_claim("pair J")),
     ("seat 1: claim pair J is not higher than the claim to beat "
     "(legal: challenge, look, or blind a claim of pair K or higher)")),
    (("claim pair Q",), Accept(), "'accept' is not a legal answer to 'respond'"),
    (("claim five A",), Look(),
     "'look' is not legal: no claim is higher than five A (legal: challenge)"),
    (("claim pair Q", "look"), Reroll((0, 5)),
     "reroll must be distinct positions 0-4, got (0, 5)"),
    (("claim pair Q", "look"), Reroll([0, 1]), "reroll must be a tuple of positions 0-4"),
    ((), Bid(parse_claim("flush K")), "no hand of dice has the value flush K"),
    (("claim pair Q",), Bid(parse_claim("pair J", straight_over_full=True)),
     "seat 1: claim pair J is not higher than the claim to beat"),
    ((), Bid("pair J"), "'pair J' is not a claim"),
    ((), "claim pair J", "'claim pair J' is not a legal answer to 'claim'"),
    ((), Chance((9, 9, 9, 9, 9)), "'chance 9 9 9 9 9' is not a legal answer to 'claim'"),
])
def test_illegal_dice_actions_name_the_action_and_what_was_legal(
    moves: tuple[str, ...], action: object, message: str
) -> None:
    state = thrown(*moves)
    with pytest.raises(IllegalAction, match=re.escape(message)):
        DICE.apply(state, action)


@pytest.mark.parametrize(("moves", "action", "message"), [
    ((), Accept(), ("seat 0: 'accept' is not a legal answer to 'turn' "
                   "(legal: pass with a claim of high 7 or higher, distinct swaps and "
                   "face-down reveals)")),
    ((), Pass(parse_claim("five A")), "no hand of cards has the value five A"),
    ((), Pass(parse_claim("pair 2"), ((0, 1), (0, 2))),
     "swap own positions must be distinct positions 0-4, got (0, 0)"),
    ((), Pass(parse_claim("pair 2"), ((0, 1, 2),)), "swaps must be (own, central) position"),
    ((), Pass(parse_claim("pair 2"), (), (7,)), "reveal must be distinct positions 0-4"),
    (("pass pair 2 reveal 3", "accept"), Pass(parse_claim("pair 3"), (), (3,)),
     "central card 3 is already face up"),
    (("pass pair 2",), Look(), ("'look' is not a legal answer to 'accept' "
                               "(legal: challenge (reject), accept)")),
    (("pass straight-flush A",), Accept(),
     ("'accept' is not legal: no claim is higher than straight-flush A "
     "(legal: challenge (reject))")),
])
def test_illegal_cards_actions_name_the_action_and_what_was_legal(
    moves: tuple[str, ...], action: object, message: str
) -> None:
    state = play(CARDS, fresh_central(), *moves)
    with pytest.raises(IllegalAction, match=re.escape(message)):
        CARDS.apply(state, action)


def test_illegal_chance_outcomes() -> None:
    with pytest.raises(IllegalAction, match=re.escape("a throw is 5 die faces 9..14, got (2, 9")):
        DICE.apply(DICE.new_game(2), Chance((2, 9, 9, 9, 9)))
    with pytest.raises(IllegalAction, match="a chance outcome is pending, not challenge"):
        DICE.apply(DICE.new_game(2), Challenge())
    with pytest.raises(IllegalAction, match="the deal must be an order of the 52 cards"):
        CARDS.apply(CARDS.new_game(3), Chance(tuple(range(51))))
    with pytest.raises(IllegalAction, match="a deal must be an order of the 52 cards"):
        RULESETS["dice-cards"].apply(RULESETS["dice-cards"].new_game(2), Chance((0,) * 52))


def test_an_illegal_action_is_a_rules_error_and_a_value_error() -> None:
    assert issubclass(IllegalAction, RulesError)
    assert issubclass(RulesError, ValueError)
    assert issubclass(OptionError, RulesError)


# --- options and player counts --------------------------------------------------------------

@pytest.mark.parametrize(("rules_id", "players", "message"), [
    ("dice", 1, "dice is for 2 to 6 players, not 1"),
    ("dice", 7, "dice is for 2 to 6 players, not 7"),
    ("dice-cards", 7, "dice-cards is for 2 to 6 players, not 7"),
    ("cards", 2, "cards is for 3 to 6 players, not 2"),
    ("cards", 7, "cards is for 3 to 6 players, not 7"),
    ("dice", "3", "dice is for 2 to 6 players, not '3'"),
])
def test_player_counts_out_of_range(rules_id: str, players: object, message: str) -> None:
    with pytest.raises(RulesError, match=re.escape(message)):
        RULESETS[rules_id].new_game(players)  # type: ignore[arg-type]


@pytest.mark.parametrize(("rules_id", "options", "key", "message"), [
    ("cards", {"chips": 0}, "chips", "chips: 0 is below the minimum 1"),
    ("cards", {"penalty": -1}, "penalty", "penalty: -1 is below the minimum 1"),
    ("cards", {"accept_reward": -1}, "accept_reward", "accept_reward: -1 is below the minimum 0"),
    ("cards", {"chips": 2.5}, "chips", "chips: 2.5 is not a int"),
    ("dice", {"max_points": 0}, "max_points", "max_points: 0 is below the minimum 1"),
    ("dice", {"max_points": "5"}, "max_points", "max_points: '5' is not a int"),
    ("dice", {"max_points": True}, "max_points", "max_points: True is not a int"),
    ("dice", {"max_faults": 0}, "max_faults", "max_faults: 0 is below the minimum 1"),
    ("dice", {"on_fault": "pardon"}, "on_fault",
     "on_fault: 'pardon' is not one of forfeit, penalty"),
    ("dice", {"straight_over_full": "yes"}, "straight_over_full",
     "straight_over_full: 'yes' is not one of False, True"),
    ("dice", {"straight_over_full": 1}, "straight_over_full",
     "straight_over_full: 1 is not one of False, True"),
    ("dice", {"chips": 10}, "chips",
     ("chips: unknown option (known: dice, faces, look_must_reroll, max_faults, max_points, "
     "on_fault, receiver, reroll_once_per, straight_over_full)")),
    ("cards", {"max_points": 5}, "max_points", ("max_points: unknown option (known: "
     "accept_reward, chips, fresh_hand_to, max_faults, on_fault, penalty, "
     "straight_over_full)")),
])
def test_bad_options_name_the_option_and_the_value(
    rules_id: str, options: dict, key: str, message: str
) -> None:
    rules = RULESETS[rules_id]
    with pytest.raises(OptionError, match=re.escape(message)) as raised:
        rules.new_game(rules.min_players, options)
    assert raised.value.key == key


def test_unknown_rule_set() -> None:
    with pytest.raises(RulesError, match=re.escape("unknown rule set 'poker' (known: cards, dice, "
                                                   "dice-cards)")):
        get_rules("poker")
    with pytest.raises(HandError, match="unknown rule set 'poker'"):
        hand_kind("poker")


# --- hand, claim and action text ------------------------------------------------------------

@pytest.mark.parametrize(("text", "message"), [
    ("9 9 T J", "a hand is exactly 5 dice or 5 cards, got 4 in '9 9 T J'"),
    ("", "a hand is exactly 5 dice or 5 cards, got 0"),
    ("9 9 T J 2", "poker dice show 9 T J Q K A, not '2'"),
    ("Ah Ah Kd Qc Jc", "card 'Ah' appears twice in 'Ah Ah Kd Qc Jc'"),
    ("Ax Kd Qc Jc Tc", "malformed card 'Ax'"),
    ("1h Kd Qc Jc Tc", "malformed card '1h': unknown rank '1'"),
    ("A Kd Qc Jc Tc", "malformed card 'A'"),
])
def test_malformed_hands(text: str, message: str) -> None:
    with pytest.raises(HandError, match=re.escape(message)):
        value(text)


def test_a_ten_can_be_written_10() -> None:
    assert value("9 10 J Q K") == value("9 T J Q K")
    assert value("10h 9h 8h 7h 6h") == value("Th 9h 8h 7h 6h")


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty claim"),
    ("triple J", "unknown claim category 'triple' in 'triple J'"),
    ("pair", "pair takes 1 rank(s), got 'pair'"),
    ("full 4", "full takes 2 rank(s), got 'full 4'"),
    ("pair X", "unknown rank 'X'"),
    ("full J J", "no hand has the value 'full J J'"),
    ("two-pair 4 4", "no hand has the value 'two-pair 4 4'"),
    ("high 2", "no hand has the value 'high 2'"),
    ("straight 4", "no hand has the value 'straight 4'"),
])
def test_malformed_claims(text: str, message: str) -> None:
    with pytest.raises(HandError, match=re.escape(message)):
        parse_claim(text)


@pytest.mark.parametrize(("text", "message"), [
    ("dance", "unknown action 'dance'"),
    ("", "unknown action ''"),
    ("reroll 7", "position '7' is not one of 0..4"),
    ("pass pair J swap 0-9", "position '9' is not one of 0..4"),
    ("claim pair", "pair takes 1 rank(s)"),
])
def test_malformed_action_text(text: str, message: str) -> None:
    with pytest.raises(HandError, match=re.escape(message)):
        parse_action(text)


@pytest.mark.parametrize("text", [
    "challenge", "accept", "look", "reroll none", "reroll 0 3", "claim full 4 J",
    "pass three Q", "pass three Q, swap 0-4, reveal 0 1",
])
def test_action_text_round_trips(text: str) -> None:
    assert str(parse_action(text)) == text
