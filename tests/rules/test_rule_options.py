"""The rule options from a second reading of the seeds, in scripted games with fixed dice and
decks: what each option changes, and that the default plays as before."""

from __future__ import annotations

import pytest
from scripted import deck, find, kinds, play, public, roll

from arena.referee import ActionEntry
from arena.rules import RULESETS, IllegalAction
from arena.rules.actions import Choose, Reroll

DICE = RULESETS["dice"]
DICE_CARDS = RULESETS["dice-cards"]
CARDS = RULESETS["cards"]


def seat_0_lost_round_1(players: int, **options: object):
    """A dice game in which seat 0's false claim was challenged: seat 0 throws round 2."""
    state = play(DICE, DICE.new_game(players, options), roll("J J Q Q A"), "claim three Q",
                 "challenge")
    assert state.points[0] == 1
    return play(DICE, state, roll("9 9 T T K"))


# --- receiver: loser_chooses ("debe elegir un receptor") -------------------------------------

def test_the_loser_chooses_who_receives_the_claim() -> None:
    state = seat_0_lost_round_1(4, receiver="loser_chooses")
    seen = DICE.observe(state, 0)
    assert seen.decision == "choose"
    assert seen.hand == ("9", "9", "T", "T", "K")  # chosen after the throw, dice in view
    assert seen.legal_actions() == (Choose(1), Choose(2), Choose(3))
    state = play(DICE, state, "choose 2")
    choose = find(DICE.events(state), "choose")
    assert (choose.seat, choose.data["receiver"], choose.to) == (0, 2, None)
    assert choose in DICE.observe(state, 3).history
    assert DICE.observe(state, 0).decision == "claim"
    state = play(DICE, state, "claim pair 9")
    assert DICE.to_act(state) == 2
    state = play(DICE, state, "claim pair T")
    assert DICE.to_act(state) == 3  # from the chosen receiver on, the cup goes left


def test_by_default_the_cup_goes_left_of_the_loser() -> None:
    state = seat_0_lost_round_1(4)
    assert DICE.observe(state, 0).decision == "claim"
    assert DICE.to_act(play(DICE, state, "claim pair 9")) == 1


@pytest.mark.parametrize("seat", [0, 4, -1])
def test_the_loser_chooses_another_seat_still_in(seat: int) -> None:
    state = seat_0_lost_round_1(4, receiver="loser_chooses")
    with pytest.raises(IllegalAction, match=f"seat {seat} cannot be chosen"):
        DICE.apply(state, Choose(seat))
    with pytest.raises(IllegalAction, match="'claim pair 9' is not a legal answer to 'choose'"):
        play(DICE, state, "claim pair 9")


def test_no_choice_in_the_first_round_with_two_players_or_after_a_forfeit() -> None:
    first = play(DICE, DICE.new_game(3, {"receiver": "loser_chooses"}), roll("J J Q Q A"))
    assert DICE.observe(first, 0).decision == "claim"
    assert DICE.observe(seat_0_lost_round_1(2, receiver="loser_chooses"), 0).decision == "claim"
    state = play(DICE, DICE.fault(play(DICE, first, "claim pair 9"), 1), roll("9 9 T T K"))
    assert DICE.to_act(state) == 2
    assert DICE.observe(state, 2).decision == "claim"


def test_a_loser_who_went_out_leaves_the_throw_to_the_left_without_a_choice() -> None:
    state = play(DICE, DICE.new_game(3, {"receiver": "loser_chooses", "max_points": 1}),
                 roll("J J Q Q A"), "claim three Q", "challenge", roll("9 9 T T K"))
    assert not state.active[0]
    assert DICE.to_act(state) == 1
    assert DICE.observe(state, 1).decision == "claim"


def test_dice_cards_the_loser_chooses_then_exchanges() -> None:
    rules = DICE_CARDS
    state = play(rules, rules.new_game(3, {"receiver": "loser_chooses"}), deck("Ah Kh 2c 3d 4s"),
                 "reroll none", "claim pair A", "challenge", deck())
    assert rules.observe(state, 0).decision == "choose"
    state = play(rules, state, "choose 2")
    assert rules.observe(state, 0).decision == "reroll"
    state = play(rules, state, "reroll none", "claim high 7")
    assert rules.to_act(state) == 2


# --- look_must_reroll ("debe intentar formar una nueva combinación") -------------------------

def looked(rules_id: str = "dice", **options: object):
    """Seat 1 has looked at seat 0's claim."""
    rules = RULESETS[rules_id]
    first = roll("J J Q Q A") if rules_id == "dice" else deck()
    state = play(rules, rules.new_game(2, options), first)
    if rules_id == "dice-cards":
        state = play(rules, state, "reroll none")
    return play(rules, state, "claim pair 9", "look")


@pytest.mark.parametrize("rules_id", ["dice", "dice-cards"])
def test_a_receiver_who_looks_must_reroll_at_least_one(rules_id: str) -> None:
    rules = RULESETS[rules_id]
    state = looked(rules_id, look_must_reroll=True)
    seen = rules.observe(state, 1)
    assert Reroll(()) not in seen.legal_actions()
    assert len(seen.legal_actions()) == 31
    with pytest.raises(IllegalAction, match="must reroll at least one"):
        rules.apply(state, Reroll(()))
    state = rules.apply(state, Reroll((4,)))
    assert find(rules.events(state), "reroll").data["count"] == 1


@pytest.mark.parametrize("rules_id", ["dice", "dice-cards"])
def test_by_default_a_receiver_may_keep_every_die(rules_id: str) -> None:
    rules = RULESETS[rules_id]
    state = looked(rules_id)
    assert rules.observe(state, 1).legal_actions()[0] == Reroll(())
    assert rules.observe(rules.apply(state, Reroll(())), 1).decision == "claim"


def test_the_dice_cards_thrower_may_still_keep_every_card() -> None:
    state = play(DICE_CARDS, DICE_CARDS.new_game(2, {"look_must_reroll": True}), deck())
    assert DICE_CARDS.observe(state, 0).is_legal(Reroll(()))


# --- reroll_once_per: round ("sólo se puede volver a lanzar un dado una vez por jugador") ----

def seat_1_looks_again(**options: object):
    """2 players: seat 1 rerolled dice 0 and 1, seat 0 die 0; now seat 1 looks again."""
    return play(DICE, DICE.new_game(2, options), roll("J J Q Q A"), "claim pair 9",
                "look", "reroll 0 1", roll("A A"), "claim pair T",
                "look", "reroll 0", roll("K"), "claim pair J", "look")


def test_per_round_a_player_rerolls_each_die_once_in_the_round() -> None:
    state = seat_1_looks_again(reroll_once_per="round")
    legal = DICE.observe(state, 1).legal
    assert legal.rerollable == (2, 3, 4)
    assert len(legal.actions()) == 8
    for positions in ((0,), (1, 2)):
        with pytest.raises(IllegalAction, match="already rerolled by this player in this round"):
            DICE.apply(state, Reroll(positions))
    state = play(DICE, state, "reroll 2 3 4", roll("9 9 9"), "claim three A", "look")
    assert DICE.observe(state, 0).legal.rerollable == (1, 2, 3, 4)  # seat 0 rerolled die 0


def test_per_round_the_next_round_starts_afresh() -> None:
    state = play(DICE, seat_1_looks_again(reroll_once_per="round"), "reroll 2 3 4",
                 roll("9 9 9"), "claim three A", "challenge", roll("J J Q Q A"))
    state = play(DICE, state, "claim pair 9", "look")
    assert DICE.observe(state, DICE.to_act(state)).legal.rerollable == (0, 1, 2, 3, 4)


def test_by_default_a_die_may_be_rerolled_again_in_a_later_turn() -> None:
    state = seat_1_looks_again()
    assert DICE.observe(state, 1).legal.rerollable == (0, 1, 2, 3, 4)
    assert kinds(public(DICE.events(play(DICE, state, "reroll 0 1")))) == ["reroll"]


def test_per_round_with_no_die_left_the_empty_reroll_is_the_answer() -> None:
    state = play(DICE, DICE.new_game(2, {"reroll_once_per": "round", "look_must_reroll": True}),
                 roll("J J Q Q A"), "claim pair 9", "look", "reroll 0 1 2 3 4",
                 roll("A A A A K"), "claim three A", "look", "reroll 4", roll("9"),
                 "claim four A", "look")
    assert DICE.observe(state, 1).legal.actions() == (Reroll(()),)


def test_per_round_the_dice_cards_exchange_counts() -> None:
    state = play(DICE_CARDS, DICE_CARDS.new_game(2, {"reroll_once_per": "round"}), deck(),
                 "reroll 0 1", "claim high 7", "look", "reroll none", "claim pair 2", "look")
    assert DICE_CARDS.observe(state, 0).legal.rerollable == (2, 3, 4)


# --- fresh_hand_to: rejecter ("el jugador siguiente prosigue el juego") ----------------------

def rejected(players: int = 3, **options: object):
    """Seat 0 passed a false claim and seat 1 rejected it."""
    return play(CARDS, CARDS.new_game(players, options), deck(), "pass straight-flush A",
                "challenge")


def test_the_rejecting_player_takes_the_fresh_hand() -> None:
    state = rejected(fresh_hand_to="rejecter")
    assert find(CARDS.events(state), "central").seat == 1
    assert CARDS.to_act(state) == 1
    assert CARDS.observe(state, 1).decision == "turn"


def test_by_default_the_player_after_the_rejecting_one_takes_it() -> None:
    state = rejected()
    assert find(CARDS.events(state), "central").seat == 2
    assert CARDS.to_act(state) == 2


def test_a_rejecting_player_who_went_out_leaves_it_to_the_next() -> None:
    state = play(CARDS, CARDS.new_game(3, {"fresh_hand_to": "rejecter", "chips": 3}), deck(),
                 "pass high 7", "challenge")
    assert not state.active[1]
    assert CARDS.to_act(state) == 2


# --- listed by `arena rules` -----------------------------------------------------------------

def test_arena_rules_lists_every_option_with_its_default_and_choices() -> None:
    from click.testing import CliRunner

    from arena.cli.main import cli

    result = CliRunner().invoke(cli, ["rules"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    for name, default, allowed in (("receiver", "left", "left|loser_chooses"),
                                   ("look_must_reroll", "False", "False|True"),
                                   ("reroll_once_per", "turn", "turn|round"),
                                   ("fresh_hand_to", "next", "next|rejecter")):
        rows = [line.split() for line in lines if line.split()[:1] == [name]]
        assert rows, f"arena rules does not list {name}"
        assert all(row[1:3] == [default, allowed] for row in rows)
    assert max(map(len, lines)) <= 120


# --- on the wire and in replays --------------------------------------------------------------

@pytest.mark.parametrize(("rules_id", "options"), [
    ("dice", {"receiver": "loser_chooses", "reroll_once_per": "round", "look_must_reroll": True}),
    ("dice-cards", {"receiver": "loser_chooses", "reroll_once_per": "round"}),
    ("cards", {"fresh_hand_to": "rejecter"}),
])
def test_games_under_the_options_replay_validate_and_verify(rules_id: str, options: dict) -> None:
    import jsonschema

    from arena import play_game
    from arena.replay import encode_replay, read_replay, replay_lines, schema
    from arena.verify import verify_replay

    players = ["statistician", "random", "honest", "bluffer"]
    record = play_game(rules_id, players, seed=9, options=options)
    seats = [{"name": p.name, "bot": p.name, "origin": p.origin, "version": p.version,
              "mode": "inline"} for p in record.players]
    lines = replay_lines(record, {"id": "x-1", "stage": "main", "table": 1}, seats)
    replay = read_replay(encode_replay(lines))
    jsonschema.Draft202012Validator(schema()).validate(replay.lines())
    assert verify_replay(replay) is None
    if "receiver" in options:
        assert any(line.get("action", {}).get("type") == "choose" for line in replay.log)


def test_the_options_legal_fields_cross_the_wire() -> None:
    from arena.hosts.codec import (
        action_from_json,
        action_to_json,
        observation_from_json,
        observation_to_json,
    )

    state = seat_1_looks_again(reroll_once_per="round", look_must_reroll=True)
    seen = DICE.observe(state, 1)
    data = observation_to_json(seen)
    assert data["legal"] == {"decision": "reroll", "min_claim": "pair Q", "rerollable": [2, 3, 4],
                             "must_reroll": True}
    assert observation_from_json(data).legal == seen.legal
    chooser = seat_0_lost_round_1(3, receiver="loser_chooses")
    data = observation_to_json(DICE.observe(chooser, 0))
    assert data["legal"]["seats"] == [1, 2]
    assert observation_from_json(data).legal_actions() == (Choose(1), Choose(2))
    assert action_to_json(Choose(2)) == {"type": "choose", "seat": 2}
    assert action_from_json({"type": "choose", "seat": 2}) == Choose(2)
    plain = observation_to_json(DICE.observe(play(DICE, DICE.new_game(2), roll("9 9 T T K"),
                                                  "claim pair 9", "look"), 1))
    assert plain["legal"] == {"decision": "reroll", "min_claim": "pair T"}


def test_the_choice_is_told_and_a_human_is_asked_for_it() -> None:
    import arena
    from arena.human import HumanBot
    from arena.narrative import Narrator

    said: list[str] = []
    tried: list[str] = []

    def ask(prompt: str) -> str:
        """Claim the top claim (so lose every round thrown), challenge, choose seat 0 first."""
        if prompt.endswith("choose"):
            tried.append("choose 1" if tried else "choose 0")
            return tried[-1]
        return {"claim": "claim five A", "respond": "challenge"}[prompt.split(", ")[-1]]

    class Keyboard(HumanBot):
        def __init__(self, context: arena.BotContext) -> None:
            super().__init__(context, ask=ask, say=said.append)

    story: list[str] = []
    narrator = Narrator("dice", ["human", "statistician", "honest"], viewer=0)

    def spectate(event: arena.Event) -> None:
        story.extend(narrator.feed(event))

    record = arena.play_game("dice", [Keyboard, "statistician", "honest"], seed=2,
                             options={"receiver": "loser_chooses"}, spectator=spectate)
    story.extend(narrator.flush())
    chosen = [e.action for e in record.log if isinstance(e, ActionEntry) and e.seat == 0
              and isinstance(e.action, Choose)]
    assert record.faults == ()
    assert chosen and set(chosen) == {Choose(1)}
    assert any("seat 0 cannot be chosen" in line and "try: choose 1   |   choose 2" in line
               for line in said)
    assert any("chooses seat 1 (statistician) to receive the cup" in line for line in story)


def test_a_bare_seat_number_is_a_choice_and_the_choose_prompt_shows_no_claims() -> None:
    import arena
    from arena.human import HumanBot

    said: list[str] = []
    helped: list[str] = []

    def ask(prompt: str) -> str:
        """Claim the top claim (so lose every round thrown), challenge, choose seat 2 (after
        asking for help the first time)."""
        if prompt.endswith("choose"):
            helped.append("help")
            return "help" if len(helped) == 1 else "2"
        return {"claim": "claim five A", "respond": "challenge"}[prompt.split(", ")[-1]]

    class Keyboard(HumanBot):
        def __init__(self, context: arena.BotContext) -> None:
            super().__init__(context, ask=ask, say=said.append)

    record = arena.play_game("dice", [Keyboard, "statistician", "honest"], seed=2,
                             options={"receiver": "loser_chooses"})
    chosen = [e.action for e in record.log if isinstance(e, ActionEntry) and e.seat == 0
              and isinstance(e.action, Choose)]
    assert record.faults == ()
    assert chosen and set(chosen) == {Choose(2)}
    assert not any("not understood" in line for line in said)
    views = [line for line in said if "you decide: choose" in line]
    assert views and not any("claim" in line for line in views), views
    assert all("choose the receiver, seat 1 or 2" in line for line in views), views
    (help_text,) = [line for line in said if "you may:" in line]
    assert "ladder" not in help_text and "'1' alone means 'choose 1'" in help_text, help_text


def test_one_chip_is_paid_in_the_singular() -> None:
    from arena.narrative import Narrator
    from arena.rules.base import Event

    narrator = Narrator("cards", ["a", "b"])
    assert narrator.feed(Event("pay", 1, {"amount": 1, "payee": 0})) == [
        "seat 1 (b) pays 1 chip to seat 0 (a)"]
    assert narrator.feed(Event("pay", 0, {"amount": 2, "payee": -1})) == [
        "seat 0 (a) pays 2 chips to the bank"]
