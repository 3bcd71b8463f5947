"""Each rule set describes itself, and the description says what its games do: the hand kind
of its claims, its decisions, its player counts and option defaults, who wins on scores."""

from __future__ import annotations

import random

import pytest

from arena.rules import CHANCE, RULESETS, TERMINAL, OptionError, description_of, get_rules
from arena.rules.base import Description
from arena.rules.dice import DICE, DiceRules
from arena.rules.playout import playout, random_action

ALL = sorted(RULESETS)


def _asked(rules_id: str, players: int, seed: int) -> tuple[set[str], set[str]]:
    """The decisions asked and the claim spaces' hand kinds seen in one random game."""
    rules, rng = get_rules(rules_id), random.Random(seed)
    state = rules.new_game(players)
    decisions: set[str] = set()
    kinds: set[str] = set()
    while (seat := rules.to_act(state)) != TERMINAL:
        if seat == CHANCE:
            state = rules.apply(state, rules.chance(state, rng))
            continue
        legal = rules.observe(state, seat).legal
        decisions.add(legal.decision)
        kinds.add(legal.space.kind)
        state = rules.apply(state, random_action(legal, rng))
    return decisions, kinds


@pytest.mark.parametrize("rules_id", ALL)
def test_a_description_says_what_the_game_does(rules_id: str) -> None:
    rules = get_rules(rules_id)
    description = rules.description
    assert (description.id, description.version) == (rules.id, rules.version)
    assert (description.min_players, description.max_players) == (rules.min_players,
                                                                   rules.max_players)
    assert dict(description.options) == rules.check_options({})
    seen: set[str] = set()
    for seed in range(12):
        decisions, kinds = _asked(rules_id, description.min_players + seed % 2, seed)
        assert kinds == {description.hand}
        seen |= decisions
    assert seen <= set(description.decisions)
    assert seen >= set(description.decisions) - {"choose"}  # only with receiver: loser_chooses


def test_the_three_descriptions() -> None:
    said = {r: (d.hand, d.central, d.score_word, d.unit, d.challenge_verb)
             for r, d in ((r, description_of(r)) for r in ALL)}
    assert said == {
        "dice": ("dice", False, "penalty points", "points", "challenges"),
        "dice-cards": ("cards", False, "penalty points", "points", "challenges"),
        "cards": ("cards", True, "chips", "chips", "rejects"),
    }


@pytest.mark.parametrize("rules_id", ALL)
def test_a_description_travels_as_json(rules_id: str) -> None:
    description = get_rules(rules_id).description
    assert Description.from_json(description.to_json()) == description


def test_a_dice_variant_has_its_own_id_and_defaults() -> None:
    short = DiceRules(cards=False, id="dice-short", defaults={"max_points": 2})
    assert short.description.id == "dice-short"
    assert dict(short.description.options)["max_points"] == 2
    assert short.check_options({})["max_points"] == 2
    game = playout(short, 2, random.Random(3))
    assert max(short.result(game.state).scores) == 2
    assert short.observe(game.state, 0).rules == "dice-short"
    assert DICE.check_options({})["max_points"] == 5  # the built-in one is unchanged


@pytest.mark.parametrize(("defaults", "message"), [
    ({"max_pts": 2}, "max_pts: unknown option"),
    ({"max_points": 0}, "max_points: 0 is below the minimum 1"),
    ({"receiver": "right"}, "receiver: 'right' is not one of left, loser_chooses"),
])
def test_a_variants_defaults_are_checked(defaults: dict, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        DiceRules(cards=False, id="dice-bad", defaults=defaults)
