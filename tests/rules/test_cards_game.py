"""Scripted games of `cards` (Guarinos' central hand) with fixed decks, one branch per test."""

from __future__ import annotations

import pytest
from scripted import cards, deck, find, kinds, play, public

from arena.hands import parse_claim
from arena.rules import CHANCE, RULESETS, TERMINAL, IllegalAction
from arena.rules.actions import Accept, Challenge, Pass

CARDS = RULESETS["cards"]

# The worked example of the seed text: the seed's players 1, 2, 3 are our seats 0, 1, 2.
EXAMPLE_DECK = deck(
    "2c 3d 5h 6s 8c",  # seat 0
    "4c 9d Th Ks 2d",  # seat 1: holds the other 4
    "3h 5d 6h 8d 9s",  # seat 2
    "Jc Jd 4h 4s 7c",  # the central hand: two pair, J and 4
)
TOP = "straight-flush A"  # never holds unless the central hand is a royal flush
LOW = "high 7"  # every hand holds it


def dealt(players: int, *parts: str, **options: object):
    """A cards game dealt from a deck that starts with `parts`: hands by seat, then central."""
    return play(CARDS, CARDS.new_game(players, options), deck(*parts))


def test_the_deal() -> None:
    state = CARDS.new_game(3)
    assert CARDS.to_act(state) == CHANCE
    state = play(CARDS, state, EXAMPLE_DECK)
    assert CARDS.to_act(state) == 0
    assert state.hands[1] == cards("4c 9d Th Ks 2d")
    assert state.central == cards("Jc Jd 4h 4s 7c")
    assert len(state.pile) == 52 - 20
    assert state.chips == (10, 10, 10)
    deals = [e for e in CARDS.events(state) if e.kind == "deal"]
    assert [(e.seat, e.to) for e in deals] == [(0, 0), (1, 1), (2, 2)]
    first = CARDS.observe(state, 0)
    assert first.decision == "turn"
    assert first.claim is None
    assert first.central == ("Jc", "Jd", "4h", "4s", "7c")  # a fresh hand is looked at
    assert first.hand == ("2c", "3d", "5h", "6s", "8c")
    assert CARDS.observe(state, 1).central == (None,) * 5
    assert CARDS.observe(state, 1).hand == ("4c", "9d", "Th", "Ks", "2d")
    assert first.draw_pile == 32


def test_the_worked_example_of_the_seed() -> None:
    state = play(CARDS, CARDS.new_game(3), EXAMPLE_DECK, "pass three J")
    assert CARDS.to_act(state) == 1
    assert CARDS.observe(state, 1).central == (None,) * 5  # not seen before accepting

    state = play(CARDS, state, "accept")
    accept = find(CARDS.events(state), "accept")
    assert accept.data == {"passer": 0, "reward": 1}
    assert state.chips == (11, 10, 10)
    assert CARDS.observe(state, 1).central == ("Jc", "Jd", "4h", "4s", "7c")

    # seat 1 swaps its 4 for the 7, shows both jacks and claims three Q (the central is full 4 J)
    state = play(CARDS, state, Pass(parse_claim("three Q"), ((0, 4),), (0, 1)))
    passed = find(CARDS.events(state), "pass")
    assert passed.data["swapped"] == 1
    assert passed.data["face_up"] == ("Jc", "Jd", None, None, None)
    assert state.hands[1] == cards("7c 9d Th Ks 2d")
    assert state.central == cards("Jc Jd 4h 4s 4c")
    for seat in (0, 2):
        assert CARDS.observe(state, seat).central == ("Jc", "Jd", None, None, None)
        assert CARDS.observe(state, seat).face_up == (True, True, False, False, False)
    private = find(CARDS.events(state), "hand")
    assert private.to == 1

    state = play(CARDS, state, "challenge")  # seat 2 rejects
    challenge = find(CARDS.events(state), "challenge")
    assert challenge.data["hand"] == ("Jc", "Jd", "4h", "4s", "4c")
    assert challenge.data["value"] == parse_claim("full 4 J")
    assert challenge.data["holds"] is True
    assert find(CARDS.events(state), "pay").seat == 2
    assert find(CARDS.events(state), "pay").data == {"payee": 1, "amount": 5}
    assert state.chips == (11, 15, 5)
    # the central hand is discarded and the player left of the rejecter gets a fresh one
    assert state.discards == cards("Jc Jd 4h 4s 4c")
    assert len(state.pile) == 27
    assert CARDS.to_act(state) == 0
    assert CARDS.observe(state, 0).claim is None
    assert CARDS.observe(state, 0).face_up == (False,) * 5
    assert kinds(public(CARDS.events(state))) == ["challenge", "pay", "central"]


def test_a_false_claim_costs_the_passer() -> None:
    state = play(CARDS, CARDS.new_game(4), EXAMPLE_DECK, "pass three J", "challenge")
    assert find(CARDS.events(state), "challenge").data["holds"] is False
    assert state.chips == (5, 15, 10, 10)
    assert CARDS.to_act(state) == 2  # left of the rejecting seat 1


@pytest.mark.parametrize("reward", [0, 1, 3])
def test_the_accept_reward(reward: int) -> None:
    state = play(CARDS, CARDS.new_game(3, {"accept_reward": reward}), EXAMPLE_DECK,
                 "pass pair 2", "accept")
    assert state.chips == (10 + reward, 10, 10)
    state = play(CARDS, state, "pass pair 3", "accept")
    assert state.chips == (10 + reward, 10 + reward, 10)


def test_a_short_payer_pays_what_it_has_and_is_out() -> None:
    state = play(CARDS, CARDS.new_game(3, {"chips": 3}), EXAMPLE_DECK, f"pass {TOP}", "challenge")
    assert find(CARDS.events(state), "pay").data == {"payee": 1, "amount": 3}
    assert state.chips == (0, 6, 3)
    assert state.active == (False, True, True)
    assert find(CARDS.events(state), "out").data == {"reason": "chips"}
    assert CARDS.to_act(state) == 2
    state = play(CARDS, state, f"pass {LOW}")
    assert CARDS.to_act(state) == 1  # seat 0 takes no more turns
    state = play(CARDS, state, "challenge")  # the claim holds: seat 1 pays seat 2
    assert state.chips == (0, 1, 8)
    assert CARDS.to_act(state) == 2  # left of seat 1, skipping seat 0


def test_the_top_claim_leaves_only_the_reject() -> None:
    state = play(CARDS, CARDS.new_game(3), EXAMPLE_DECK, f"pass {TOP}")
    assert CARDS.legal(state).actions() == (Challenge(),)
    with pytest.raises(IllegalAction, match="accept"):
        CARDS.apply(state, Accept())


def test_the_draw_pile_running_out_ends_the_game_with_shared_places() -> None:
    state = dealt(6, chips=100)
    assert len(state.pile) == 17  # room for 3 more central hands
    script = [(0, TOP), (2, TOP), (4, TOP), (0, LOW)]
    for holder, claim in script:
        assert CARDS.to_act(state) == holder
        state = play(CARDS, state, f"pass {claim}", "challenge")
    assert CARDS.to_act(state) == TERMINAL
    assert kinds(CARDS.events(state))[-1] == "over"
    assert len(state.pile) == 2
    result = CARDS.result(state)
    assert result.scores == (100, 100, 95, 105, 95, 105)
    assert result.placements == (3, 3, 5, 1, 5, 1)
    assert result.out_order == ()


def test_players_out_of_chips_place_below_the_others_in_reverse_order() -> None:
    state = dealt(4, chips=5)
    state = play(CARDS, state, f"pass {TOP}", "challenge")  # seat 0 out, seat 1 has 10
    state = play(CARDS, state, f"pass {TOP}", "challenge")  # seat 2 out, seat 3 has 10
    assert state.active == (False, True, False, True)
    assert CARDS.to_act(state) == 1  # left of seat 3, past seat 0
    state = play(CARDS, state, f"pass {TOP}", "challenge")  # seat 1 has 5, seat 3 has 15
    assert CARDS.to_act(state) == 1
    state = play(CARDS, state, f"pass {TOP}", "challenge")  # seat 1 out: one player left
    assert CARDS.is_over(state)
    result = CARDS.result(state)
    assert result.out_order == (0, 2, 1)
    assert result.placements == (4, 2, 3, 1)
    assert result.scores == (0, 0, 0, 20)


@pytest.mark.parametrize(("straight_over_full", "holds"), [(False, False), (True, True)])
def test_straight_over_full_decides_a_reject(straight_over_full: bool, holds: bool) -> None:
    state = dealt(3, "2c 3d 5h 6s 8c", "4c 9d Th Ks 2d", "3h 5d 6h 8d 9s", "9c Td Jh Qs Kc",
                  straight_over_full=straight_over_full)
    state = play(CARDS, state, "pass full A K", "challenge")
    assert find(CARDS.events(state), "challenge").data["holds"] is holds


# --- swaps and reveals ----------------------------------------------------------------------

def test_a_face_up_card_swapped_out_leaves_the_table() -> None:
    state = play(CARDS, CARDS.new_game(3), EXAMPLE_DECK, "pass pair 4 reveal 2", "accept")
    assert state.face_up == (False, False, True, False, False)
    state = play(CARDS, state, "pass pair J swap 3-2")  # seat 1 takes the face-up 4h
    assert state.face_up == (False,) * 5
    assert state.hands[1] == cards("4c 9d Th 4h 2d")
    assert state.central == cards("Jc Jd Ks 4s 7c")
    assert CARDS.observe(state, 2).central == (None,) * 5


def test_swaps_are_applied_together_then_reveals() -> None:
    state = play(CARDS, CARDS.new_game(3), EXAMPLE_DECK, "pass pair 4 reveal 0", "accept")
    state = play(CARDS, state, Pass(parse_claim("pair J"), ((0, 1), (1, 0)), (0,)))
    assert state.central == cards("9d 4c 4h 4s 7c")
    assert state.hands[1] == cards("Jd Jc Th Ks 2d")
    assert state.face_up == (True, False, False, False, False)  # swapped in, then revealed
    assert CARDS.observe(state, 2).central == ("9d", None, None, None, None)


def test_a_face_up_card_cannot_be_revealed_again() -> None:
    state = play(CARDS, CARDS.new_game(3), EXAMPLE_DECK, "pass pair 4 reveal 2", "accept")
    with pytest.raises(IllegalAction, match="central card 2 is already face up"):
        play(CARDS, state, "pass pair J reveal 2")
    with pytest.raises(IllegalAction, match="distinct"):
        play(CARDS, state, "pass pair J swap 0-1 1-1")


def test_after_accepting_the_claim_must_be_higher() -> None:
    state = play(CARDS, CARDS.new_game(3), EXAMPLE_DECK, "pass three J", "accept")
    with pytest.raises(IllegalAction, match="not higher"):
        play(CARDS, state, "pass three J")
    state = play(CARDS, state, "pass three Q")
    assert CARDS.observe(state, 2).claim == parse_claim("three Q")


# --- faults ---------------------------------------------------------------------------------

def test_forfeit_with_a_fresh_hand_replaces_it_with_no_chips_moving() -> None:
    state = play(CARDS, CARDS.new_game(4), EXAMPLE_DECK)
    central = state.central
    state = CARDS.fault(state, 0)
    assert state.chips == (0, 10, 10, 10)  # seat 0's chips go back to the bank
    assert state.active == (False, True, True, True)
    assert find(CARDS.events(state), "out").data == {"reason": "forfeit"}
    assert state.discards == central
    assert state.central != central
    assert CARDS.to_act(state) == 1
    assert CARDS.legal(state).decision == "turn"
    assert CARDS.observe(state, 1).claim is None


def test_forfeit_on_a_passed_hand_pays_nobody() -> None:
    state = play(CARDS, CARDS.new_game(4), EXAMPLE_DECK, f"pass {TOP}")
    state = CARDS.fault(state, 1)
    assert state.chips == (10, 0, 10, 10)
    assert "pay" not in kinds(CARDS.events(state))
    assert CARDS.to_act(state) == 2


def test_forfeit_placement_and_the_last_player_left() -> None:
    state = play(CARDS, CARDS.new_game(3), EXAMPLE_DECK)
    state = CARDS.fault(state, 0)
    state = CARDS.fault(state, 1)
    assert CARDS.is_over(state)
    assert CARDS.result(state).placements == (3, 2, 1)


def test_penalty_fault_on_a_fresh_hand_pays_the_bank() -> None:
    state = play(CARDS, CARDS.new_game(4, {"on_fault": "penalty"}), EXAMPLE_DECK)
    central = state.central
    state = CARDS.fault(state, 0)
    assert state.chips == (5, 10, 10, 10)
    assert state.active == (True,) * 4
    assert kinds(CARDS.events(state))[:2] == ["penalty", "pay"]
    assert find(CARDS.events(state), "pay").data == {"payee": -1, "amount": 5}
    assert CARDS.to_act(state) == 1
    assert state.discards == central


def test_penalty_fault_on_a_passed_hand_pays_the_passer() -> None:
    state = play(CARDS, CARDS.new_game(4, {"on_fault": "penalty"}), EXAMPLE_DECK,
                 "pass pair 2", "accept")
    state = CARDS.fault(state, 1)  # after accepting, while taking its turn
    assert state.chips == (16, 5, 10, 10)
    assert CARDS.to_act(state) == 2


def test_penalty_fault_pays_what_the_faulter_has() -> None:
    state = play(CARDS, CARDS.new_game(3, {"on_fault": "penalty", "chips": 2}), EXAMPLE_DECK,
                 "pass pair 2")
    state = CARDS.fault(state, 1)
    assert state.chips == (4, 0, 2)
    assert state.active == (True, False, True)


def test_the_max_faults_th_fault_forfeits() -> None:
    options = {"on_fault": "penalty", "max_faults": 2, "chips": 20}
    state = play(CARDS, CARDS.new_game(3, options), EXAMPLE_DECK)
    state = CARDS.fault(state, 0)
    state = play(CARDS, state, f"pass {LOW}", "challenge")  # seat 2 pays seat 1
    assert state.chips == (15, 25, 15)
    assert CARDS.to_act(state) == 0
    state = CARDS.fault(state, 0)
    assert state.chips == (0, 25, 15)
    assert state.faults == (2, 0, 0)
    assert state.active == (False, True, True)
    assert find(CARDS.events(state), "out").data == {"reason": "forfeit"}


def test_a_seat_not_holding_the_hand_forfeits_and_the_hand_in_play_stays() -> None:
    # RULES.md, Faults: the central hand is discarded "if it faulted while holding the
    # central hand": it was thrown away whoever faulted.
    state = play(CARDS, CARDS.new_game(4), EXAMPLE_DECK, f"pass {LOW}")
    assert state.holder == 1
    after = CARDS.fault(state, 2, outside=True)  # a failed notify: out at once
    assert [(e.kind, e.seat) for e in CARDS.events(after)] == [("out", 2)]
    assert after.chips == (10, 10, 0, 10) and after.active == (True, True, False, True)
    assert (after.central, after.discards, after.holder) == (state.central, (), 1)
    assert CARDS.observe(after, 1).claim == parse_claim(LOW)
    assert CARDS.observe(after, 1).history[-1].kind == "out"
    after = play(CARDS, after, "accept", f"pass {TOP}")
    assert CARDS.to_act(after) == 3  # the seat out is skipped
    with pytest.raises(Exception, match="no decision"):
        CARDS.fault(after, 2, outside=True)  # out of the game
    with pytest.raises(Exception, match="no decision"):
        CARDS.fault(CARDS.new_game(3), 0)


def test_a_penalty_outside_the_decision_of_a_seat_not_holding_the_hand_goes_to_the_bank(
) -> None:
    # RULES.md: the penalty goes "to the bank ... when the fault came outside its own
    # decision", and the hand is discarded "only if the bot held it".
    state = play(CARDS, CARDS.new_game(4, {"on_fault": "penalty"}), EXAMPLE_DECK,
                 f"pass {LOW}")
    after = CARDS.fault(state, 2, outside=True)
    assert kinds(CARDS.events(after)) == ["penalty", "pay"]
    assert find(CARDS.events(after), "pay").data == {"payee": -1, "amount": 5}
    assert after.chips == (10, 10, 5, 10)
    assert (after.central, after.holder, after.passer) == (state.central, 1, 0)
    assert CARDS.legal(after).decision == "accept"
    after = play(CARDS, after, "challenge")  # the hand in play is judged as it was
    assert find(CARDS.events(after), "challenge").data["claimant"] == 0
    assert after.chips == (15, 5, 5, 10)


def test_a_penalty_outside_the_decision_of_the_seat_just_passed_the_hand_goes_to_the_bank(
) -> None:
    # It went to the passer, who had passed the hand to a bot that then failed in notify.
    state = play(CARDS, CARDS.new_game(4, {"on_fault": "penalty"}), EXAMPLE_DECK,
                 f"pass {LOW}")
    after = CARDS.fault(state, 1, outside=True)
    assert find(CARDS.events(after), "pay").data == {"payee": -1, "amount": 5}
    assert after.chips == (10, 5, 10, 10)
    assert after.discards == state.central  # it held the hand: discarded and replaced
    assert CARDS.to_act(after) == 2 and CARDS.observe(after, 2).claim is None
    on_its_decision = CARDS.fault(state, 1)
    assert on_its_decision.chips == (15, 5, 10, 10)  # on its own decision: to the passer


def test_a_reject_or_accept_of_a_claim_by_a_seat_now_out_moves_chips_with_the_bank() -> None:
    """Choice (docs/rules.md): a seat out neither pays nor receives; its share is the bank's."""
    passed = play(CARDS, CARDS.new_game(4), EXAMPLE_DECK, f"pass {LOW}")
    gone = CARDS.fault(passed, 0, outside=True)  # the passer forfeits while seat 1 holds it
    assert gone.chips == (0, 10, 10, 10)
    accepted = play(CARDS, gone, "accept")
    assert find(CARDS.events(accepted), "accept").data == {"passer": 0, "reward": 0}
    assert accepted.chips == (0, 10, 10, 10)
    held = play(CARDS, gone, "challenge")  # LOW holds: the rejecter pays, to the bank
    assert find(CARDS.events(held), "pay").data == {"payee": -1, "amount": 5}
    assert held.chips == (0, 5, 10, 10) and held.out == (0,)
    missed = play(CARDS, CARDS.fault(play(CARDS, CARDS.new_game(4), EXAMPLE_DECK,
                                          f"pass {TOP}"), 0, outside=True), "challenge")
    assert find(CARDS.events(missed), "pay").data == {"payee": 1, "amount": 0}
    assert missed.chips == (0, 10, 10, 10) and missed.out == (0,)  # out once, not again
