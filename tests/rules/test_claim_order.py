"""A claim's category order belongs to the game, not to the claim object a bot built: every
rule set accepts a claim parsed with either order, and judges it in the game's own order."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripted import deck, find, play, roll

import arena
from arena.hands import parse_claim
from arena.referee import ActionEntry
from arena.rules import RULESETS, IllegalAction
from arena.rules.actions import Bid, Pass


@pytest.mark.parametrize("sof", [False, True])
def test_a_dice_claim_of_either_order_is_legal_and_recorded_in_the_games(sof: bool) -> None:
    dice = RULESETS["dice"]
    state = play(dice, dice.new_game(2, {"straight_over_full": True}), roll("9 T J Q K"))
    for text in ("high A", "straight K"):
        bid = Bid(parse_claim(text, sof))
        assert dice.observe(state, 0).is_legal(bid)
    state = dice.apply(state, Bid(parse_claim("straight K", sof)))
    claim = find(dice.events(state), "claim").data["claim"]
    assert claim == parse_claim("straight K", True)
    # in the game's order a straight is above every full house: full A K no longer beats it
    with pytest.raises(IllegalAction, match="not higher"):
        dice.apply(state, Bid(parse_claim("full A K", not sof)))
    state = dice.apply(state, Bid(parse_claim("four 9", sof)))
    assert find(dice.events(state), "claim").data["claim"] == parse_claim("four 9", True)


def test_a_cards_pass_of_the_other_order_is_legal() -> None:
    cards = RULESETS["cards"]
    state = play(cards, cards.new_game(3, {"straight_over_full": True}), deck())
    action = Pass(parse_claim("high A"))
    assert cards.observe(state, 0).is_legal(action)
    state = cards.apply(state, action)
    assert find(cards.events(state), "pass").data["claim"] == parse_claim("high A", True)


def test_a_dice_cards_claim_of_the_other_order_is_legal() -> None:
    rules = RULESETS["dice-cards"]
    state = play(rules, rules.new_game(2), deck(), "reroll none")
    state = rules.apply(state, Bid(parse_claim("pair 9", straight_over_full=True)))
    assert find(rules.events(state), "claim").data["claim"] == parse_claim("pair 9")


class PlainParser(arena.Bot):
    """Claims the lowest legal claim, parsed from its text without the game's order."""

    name = "plain-parser"

    def act(self, obs: arena.Observation) -> arena.Action:
        if obs.decision == "reroll":
            return arena.Reroll(())
        if obs.decision in ("respond", "accept"):
            return arena.Challenge()
        low = arena.parse_claim(str(obs.min_claim))
        if obs.decision == "turn":
            return arena.Pass(low)
        return arena.Bid(low)


@pytest.mark.parametrize(("rules", "players"), [("dice", 2), ("dice-cards", 2), ("cards", 3)])
def test_an_inline_bot_that_parses_claims_plainly_plays_with_straight_over_full(
        rules: str, players: int) -> None:
    record = arena.play_game(rules, [PlainParser] * players, seed=3,
                             options={"straight_over_full": True})
    assert record.faults == ()
    assert any(isinstance(entry, ActionEntry) for entry in record.log)


PLAIN_PARSER = '''
import arena


class PlainParser(arena.Bot):
    name = "plain-parser"

    def act(self, obs):
        if obs.decision == "reroll":
            return arena.Reroll(())
        if obs.decision == "respond":
            return arena.Challenge()
        return arena.Bid(arena.parse_claim(str(obs.min_claim)))
'''


def test_a_process_bot_that_parses_claims_plainly_plays_with_straight_over_full(
        tmp_path: Path) -> None:
    from arena.hosts.pipe import ProcessHost, ProcessLimits
    from arena.referee import Player

    path = tmp_path / "plain_parser.py"
    path.write_text(PLAIN_PARSER)
    with ProcessHost(str(path), ProcessLimits()) as host:
        record = arena.play_game("dice", [Player("plain", host), PlainParser], seed=3,
                                 options={"straight_over_full": True})
    assert record.faults == ()
    assert any(isinstance(entry, ActionEntry) and entry.seat == 0 for entry in record.log)
