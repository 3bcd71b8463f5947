"""The RuleSet interface, checked the same way on every rule set in RULESETS."""

from __future__ import annotations

import random

import pytest

from arena.rules import (
    CHANCE,
    RULESETS,
    TERMINAL,
    IllegalAction,
    RulesError,
    RuleSet,
    get_rules,
)
from arena.rules.actions import Accept, Bid, Challenge, Chance, Choose, Look, Pass, Reroll
from arena.rules.base import Event, Observation, Result
from arena.rules.legal import Legal
from arena.rules.playout import playout, random_action

ALL = sorted(RULESETS)
DECISIONS = {"claim", "respond", "reroll", "accept", "turn", "choose"}
DICE_DEFAULTS = {"max_points": 5, "receiver": "left", "look_must_reroll": False,
                 "reroll_once_per": "turn"}
DEFAULTS = {
    "dice": DICE_DEFAULTS,
    "dice-cards": DICE_DEFAULTS,
    "cards": {"chips": 10, "penalty": 5, "accept_reward": 1, "fresh_hand_to": "next"},
}
PLAYERS = {"dice": (2, 6), "dice-cards": (2, 6), "cards": (3, 6)}
OPTION_SETS = [{}, {"straight_over_full": True}, {"receiver": "loser_chooses"},
               {"look_must_reroll": True}, {"reroll_once_per": "round"},
               {"look_must_reroll": True, "reroll_once_per": "round"},
               {"fresh_hand_to": "rejecter"}]


@pytest.mark.parametrize("rules_id", ALL)
def test_identity_and_limits(rules_id: str) -> None:
    rules = get_rules(rules_id)
    assert rules is RULESETS[rules_id]
    assert rules.id == rules_id
    assert isinstance(rules.version, int)
    assert rules.version >= 1
    assert (rules.min_players, rules.max_players) == PLAYERS[rules_id]
    assert rules_id in repr(rules)


@pytest.mark.parametrize("rules_id", ALL)
def test_options_and_their_defaults(rules_id: str) -> None:
    rules = RULESETS[rules_id]
    expected = DEFAULTS[rules_id] | {
        "on_fault": "forfeit", "max_faults": 3, "straight_over_full": False}
    assert rules.check_options(None) == expected
    assert rules.check_options({}) == expected
    quiet = {spec.name for spec in rules.option_specs if spec.quiet}  # recorded if not default
    assert {spec.name for spec in rules.option_specs} - quiet == set(expected)
    assert quiet == ({"dice", "faces"} if rules_id == "dice" else set())
    assert all(spec.help for spec in rules.option_specs)
    assert rules.check_options({"on_fault": "penalty"})["on_fault"] == "penalty"


@pytest.mark.parametrize("rules_id", ALL)
def test_a_game_starts_at_a_chance_node(rules_id: str) -> None:
    rules = RULESETS[rules_id]
    players = rules.min_players
    state = rules.new_game(players)
    assert rules.to_act(state) == CHANCE
    assert not rules.is_over(state)
    assert rules.events(state) == ()
    with pytest.raises(RulesError, match="not over"):
        rules.result(state)
    for seat in range(players):
        seen = rules.observe(state, seat)
        assert seen.decision == "wait"
        assert seen.legal_actions() == ()
    outcome = rules.chance(state, random.Random(1))
    assert isinstance(outcome, Chance)
    assert rules.chance(state, random.Random(1)) == outcome  # only the generator decides
    state = rules.apply(state, outcome)
    assert rules.to_act(state) == 0
    assert all(isinstance(event, Event) for event in rules.events(state))
    with pytest.raises(RulesError, match="no chance outcome"):
        rules.chance(state, random.Random(1))


def _check_turn_actions(seen: Observation) -> None:
    """A turn lists a pass of each legal claim with no swaps, then each single swap and each
    single reveal of a face-down central card with the lowest legal claim."""
    low = seen.min_claim
    hidden = [p for p in range(5) if not seen.face_up[p]]
    expected = [Pass(c) for c in seen.legal_claims()]
    expected += [Pass(low, ((own, central),)) for own in range(5) for central in range(5)]
    expected += [Pass(low, (), (p,)) for p in hidden]
    assert list(seen.legal_actions()) == expected


@pytest.mark.parametrize("rules_id", ALL)
def test_observations_at_every_step(rules_id: str) -> None:
    rules = RULESETS[rules_id]
    rng = random.Random(7)
    players = rules.max_players
    state = rules.new_game(players)
    while not rules.is_over(state):
        seat = rules.to_act(state)
        if seat == CHANCE:
            state = rules.apply(state, rules.chance(state, rng))
            continue
        for other in range(players):
            seen = rules.observe(state, other)
            assert isinstance(seen, Observation)
            assert (seen.rules, seen.seat, seen.players) == (rules_id, other, players)
            assert (seen.decision in DECISIONS) == (other == seat)
        seen = rules.observe(state, seat)
        assert seen.legal == rules.legal(state)
        assert seen.legal_actions()
        assert all(seen.is_legal(action) for action in seen.legal_actions())
        if seen.decision == "turn":
            _check_turn_actions(seen)
        assert seen.legal_claims() == seen.legal.claims()
        if seen.legal_claims():
            assert seen.min_claim == seen.legal_claims()[0]
        state = rules.apply(state, random_action(seen.legal, rng))
    assert rules.to_act(state) == TERMINAL
    for other in range(players):
        assert rules.observe(state, other).decision == "wait"  # works after the end too
    with pytest.raises(IllegalAction, match="the game is over"):
        rules.apply(state, Challenge())
    with pytest.raises(RulesError, match="no chance outcome"):
        rules.chance(state, random.Random(1))


@pytest.mark.parametrize("rules_id", ALL)
@pytest.mark.parametrize("seed", range(3))
def test_every_player_count_plays_to_a_result(rules_id: str, seed: int) -> None:
    rules = RULESETS[rules_id]
    for players in range(rules.min_players, rules.max_players + 1):
        game = playout(rules, players, random.Random(seed))
        assert rules.is_over(game.state)
        result = rules.result(game.state)
        assert isinstance(result, Result)
        assert len(result.placements) == len(result.scores) == players
        assert 1 in result.placements
        assert all(1 <= place <= players for place in result.placements)


@pytest.mark.parametrize("rules_id", ALL)
def test_the_engines_hold_no_game_state(rules_id: str) -> None:
    rules = RULESETS[rules_id]
    first = playout(rules, rules.min_players, random.Random(3)).state
    playout(rules, rules.max_players, random.Random(4))
    assert playout(rules, rules.min_players, random.Random(3)).state == first


def _probes(rules_id: str, players: int, options: dict) -> list[object]:
    """Every action a bot might send: each claim as a bid and a pass, each reroll, the rest."""
    claims = RULESETS[rules_id].new_game(players, options).space.claims
    rerolls = [Reroll(tuple(p for p in range(5) if mask >> p & 1)) for mask in range(32)]
    choices = [Choose(seat) for seat in range(-1, players + 1)]
    return [Challenge(), Accept(), Look(), *rerolls, *choices, *map(Bid, claims),
            *map(Pass, claims)]


def _accepted(rules: object, state: object, action: object) -> bool:
    try:
        rules.apply(state, action)  # type: ignore[attr-defined]
    except IllegalAction:
        return False
    return True


def _option_cases() -> list[tuple[str, dict]]:
    """Each rule set with each option set it knows."""
    return [(rules_id, options) for rules_id in ALL for options in OPTION_SETS
            if set(options) <= {spec.name for spec in RULESETS[rules_id].option_specs}]


def _shaped(legal: Legal) -> set[str]:
    """Which rule options shaped this Legal."""
    return {name for name, shaped in (("receiver", legal.decision == "choose"),
                                      ("look_must_reroll", legal.must_reroll),
                                      ("reroll_once_per", len(legal.rerollable) < 5)) if shaped}


@pytest.mark.parametrize(("rules_id", "options"), _option_cases(), ids=str)
def test_the_referee_accepts_exactly_the_legal_actions(rules_id: str, options: dict) -> None:
    """legal_actions(), is_legal() and apply() agree at every decision, under every option."""
    rules = RULESETS[rules_id]
    # two players look again within a round more often; a choice needs three still in
    players = rules.min_players + (0 if "reroll_once_per" in options else 2)
    probes = _probes(rules_id, players, options)
    wanted = set(options) & {"receiver", "look_must_reroll", "reroll_once_per"}
    shaped: set[str] = set()
    for seed in range(8):  # until every option has shaped a decision
        shaped |= _check_every_decision(rules, players, options, probes, random.Random(seed))
        if shaped == wanted:
            break
    assert shaped == wanted


def _check_every_decision(rules: RuleSet, players: int, options: dict, probes: list,
                          rng: random.Random) -> set[str]:
    """Play a random game probing every decision; return the options that shaped one."""
    state = rules.new_game(players, options)
    shaped: set[str] = set()
    while not rules.is_over(state):
        seat = rules.to_act(state)
        if seat == CHANCE:
            state = rules.apply(state, rules.chance(state, rng))
            continue
        seen = rules.observe(state, seat)
        shaped |= _shaped(seen.legal)
        listed = set(seen.legal_actions())  # a turn lists some of its legal passes, not all
        every = seen.decision != "turn"
        for action in probes:
            accepted = _accepted(rules, state, action)
            assert accepted == seen.is_legal(action), (seen.decision, action)
            assert (accepted == (action in listed)) if every else (accepted or action not in listed)
        assert every or all(_accepted(rules, state, action) for action in listed)
        state = rules.apply(state, random_action(seen.legal, rng))
    return shaped
