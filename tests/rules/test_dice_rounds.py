"""Scripted rounds of `dice` and `dice-cards` with fixed dice and decks, one branch per test."""

from __future__ import annotations

import pytest
from scripted import cards, deck, find, kinds, play, public, roll

from arena.hands import parse_claim
from arena.rules import CHANCE, RULESETS, TERMINAL, IllegalAction
from arena.rules.actions import Bid, Challenge, Chance, Reroll

DICE = RULESETS["dice"]
DICE_CARDS = RULESETS["dice-cards"]


def thrown(players: int, dice: str, **options: object):
    """A dice game whose first throw is `dice`, seat 0 about to claim."""
    return play(DICE, DICE.new_game(players, options), roll(dice))


# --- challenges -----------------------------------------------------------------------------

def test_challenge_of_an_exact_claim_holds_and_the_challenger_scores() -> None:
    state = play(DICE, thrown(3, "J J Q Q A"), "claim two-pair Q J", "challenge")
    challenge = find(DICE.events(state), "challenge")
    assert challenge.seat == 1
    assert challenge.data["claimant"] == 0
    assert challenge.data["hand"] == ("J", "J", "Q", "Q", "A")
    assert challenge.data["value"] == parse_claim("two-pair Q J")
    assert challenge.data["holds"] is True
    assert state.points == (0, 1, 0)
    assert find(DICE.events(state), "point").seat == 1
    assert DICE.to_act(state) == CHANCE
    state = play(DICE, state, roll("9 9 9 9 9"))
    assert DICE.to_act(state) == 1  # the cup goes to the loser


def test_challenge_of_a_lower_claim_holds() -> None:
    state = play(DICE, thrown(2, "9 9 9 T T"), "claim three Q", "challenge")
    assert find(DICE.events(state), "challenge").data["holds"] is True
    assert state.points == (0, 1)


def test_challenge_of_a_false_claim_gives_the_claimant_the_point() -> None:
    state = play(DICE, thrown(3, "J J Q Q A"), "claim three Q", "challenge")
    assert find(DICE.events(state), "challenge").data["holds"] is False
    assert state.points == (1, 0, 0)
    state = play(DICE, state, roll("9 9 9 9 9"))
    assert DICE.to_act(state) == 0


def test_challenge_after_several_claims_judges_the_last_one() -> None:
    state = play(DICE, thrown(3, "J J Q Q A"), "claim pair 9", "claim three K", "challenge")
    challenge = find(DICE.events(state), "challenge")
    assert (challenge.seat, challenge.data["claimant"]) == (2, 1)
    assert challenge.data["claim"] == parse_claim("three K")
    assert state.points == (0, 1, 0)


# --- blind pass, look, reroll ---------------------------------------------------------------

def test_blind_pass_claims_higher_without_seeing_the_dice() -> None:
    state = play(DICE, thrown(3, "J J Q Q A"), "claim pair Q")
    assert DICE.observe(state, 1).hand is None
    state = play(DICE, state, "claim three 9")
    claim = find(DICE.events(state), "claim")
    assert (claim.seat, claim.data["blind"]) == (1, True)
    assert state.hand == (11, 11, 12, 12, 14)  # the dice were not touched
    assert "look" not in kinds(state.history)
    assert DICE.to_act(state) == 2
    state = play(DICE, state, "challenge")
    assert find(DICE.events(state), "challenge").data["holds"] is False
    assert state.points == (0, 1, 0)


def test_look_shows_the_dice_only_to_the_looker() -> None:
    state = play(DICE, thrown(3, "J J Q Q A"), "claim pair Q", "look")
    look, see = DICE.events(state)
    assert (look.kind, look.seat, look.to) == ("look", 1, None)
    assert (see.kind, see.to, see.data["hand"]) == ("see", 1, ("J", "J", "Q", "Q", "A"))
    assert DICE.observe(state, 1).hand == ("J", "J", "Q", "Q", "A")
    assert DICE.observe(state, 1).decision == "reroll"
    assert DICE.observe(state, 0).hand is None
    assert DICE.observe(state, 2).hand is None


def test_look_with_an_empty_reroll_goes_straight_to_the_claim() -> None:
    state = play(DICE, thrown(3, "J J Q Q A"), "claim pair Q", "look", "reroll none")
    assert DICE.to_act(state) == 1
    assert DICE.legal(state).decision == "claim"
    assert find(DICE.events(state), "reroll").data == {"count": 0}
    assert state.hand == (11, 11, 12, 12, 14)
    with pytest.raises(IllegalAction, match="not higher"):
        play(DICE, state, "claim pair J")
    state = play(DICE, state, "claim two-pair Q J")
    assert find(DICE.events(state), "claim").data["blind"] is False


def test_reroll_of_all_five_dice() -> None:
    state = play(DICE, thrown(2, "J J Q Q A"), "claim pair Q", "look", "reroll 0 1 2 3 4")
    assert DICE.to_act(state) == CHANCE
    assert find(DICE.events(state), "reroll").data == {"count": 5}
    with pytest.raises(IllegalAction, match="expected 5 die faces"):
        play(DICE, state, roll("A A"))
    state = play(DICE, state, roll("A A A A K"))
    seen = find(DICE.events(state), "roll")
    assert (seen.to, seen.data["positions"]) == (1, (0, 1, 2, 3, 4))
    assert DICE.observe(state, 1).hand == ("A", "A", "A", "A", "K")
    state = play(DICE, state, "claim four A", "challenge")
    assert state.points == (1, 0)


def test_rerolled_faces_fill_the_positions_in_increasing_order() -> None:
    state = play(DICE, thrown(2, "J J Q Q A"), "claim pair Q", "look",
                 Reroll((4, 1)), roll("K 9"))
    assert state.hand == (11, 13, 12, 12, 9)


def test_each_die_is_rerolled_at_most_once_per_turn() -> None:
    state = play(DICE, thrown(2, "J J Q Q A"), "claim pair Q", "look")
    with pytest.raises(IllegalAction, match="distinct"):
        play(DICE, state, Reroll((1, 1)))
    state = play(DICE, state, "reroll 1", roll("K"))
    assert DICE.legal(state).decision == "claim"  # no second reroll in this turn


def test_the_thrower_claims_without_a_reroll() -> None:
    state = thrown(2, "J J Q Q A")
    assert DICE.legal(state).decision == "claim"
    assert DICE.observe(state, 0).hand == ("J", "J", "Q", "Q", "A")
    with pytest.raises(IllegalAction):
        play(DICE, state, "reroll 0")


def test_the_top_claim_leaves_only_the_challenge() -> None:
    state = play(DICE, thrown(3, "A A A A A"), "claim five A")
    legal = DICE.legal(state)
    assert legal.actions() == (Challenge(),)
    assert not legal.can_claim()
    assert legal.min_claim is None
    for move in ("look", "claim five A"):
        with pytest.raises(IllegalAction, match="legal: challenge"):
            play(DICE, state, move)
    state = play(DICE, state, "challenge")
    assert state.points == (0, 1, 0)


# --- rounds, elimination, placements --------------------------------------------------------

def test_the_next_round_starts_left_of_a_loser_who_is_out() -> None:
    state = play(DICE, thrown(3, "9 9 9 9 9", max_points=1), "claim five A", "challenge")
    assert state.active == (False, True, True)
    assert find(DICE.events(state), "out").data == {"reason": "points"}
    state = play(DICE, state, roll("9 T J Q K"))
    assert DICE.to_act(state) == 1
    # seat 2 (the last seat) goes out: the next round wraps around to seat 1
    state = play(DICE, state, "claim pair 9", "claim five A", "challenge")
    assert state.active == (False, True, False)
    assert DICE.to_act(state) == TERMINAL


def test_elimination_order_gives_the_final_placements() -> None:
    state = thrown(4, "9 9 9 9 9", max_points=1)
    state = play(DICE, state, "claim pair 9", "challenge")  # seat 1 is out
    state = play(DICE, state, roll("9 9 9 9 9"))
    assert DICE.to_act(state) == 2
    state = play(DICE, state, "claim five A", "challenge")  # seat 2 is out
    state = play(DICE, state, roll("9 9 9 9 9"))
    assert DICE.to_act(state) == 3
    state = play(DICE, state, "claim pair 9")
    assert DICE.to_act(state) == 0  # seats 1 and 2 are skipped
    state = play(DICE, state, "challenge")  # seat 0 is out: seat 3 wins
    assert DICE.is_over(state)
    result = DICE.result(state)
    assert result.out_order == (1, 2, 0)
    assert result.placements == (2, 4, 3, 1)
    assert result.scores == (1, 1, 1, 0)


def test_result_of_an_unfinished_game_is_an_error() -> None:
    with pytest.raises(Exception, match="not over"):
        DICE.result(thrown(2, "9 9 9 9 9"))


def test_a_two_player_game_ends_when_one_is_out() -> None:
    state = thrown(2, "9 9 9 9 9", max_points=1)
    state = play(DICE, state, "claim pair 9", "challenge")
    assert DICE.is_over(state)
    assert kinds(DICE.events(state))[-1] == "over"
    assert DICE.result(state).placements == (1, 2)


# --- straight_over_full ---------------------------------------------------------------------

@pytest.mark.parametrize(("straight_over_full", "holds"), [(False, False), (True, True)])
def test_straight_over_full_decides_a_challenge(straight_over_full: bool, holds: bool) -> None:
    state = thrown(2, "9 T J Q K", straight_over_full=straight_over_full)
    state = play(DICE, state, "claim full A K", "challenge")
    assert find(DICE.events(state), "challenge").data["holds"] is holds


# --- faults ---------------------------------------------------------------------------------

def test_forfeit_abandons_the_round_and_the_next_seat_starts() -> None:
    state = play(DICE, thrown(3, "J J Q Q A"), "claim pair Q")
    state = DICE.fault(state, 1)
    assert state.points == (0, 0, 0)  # no point for the abandoned round
    assert state.active == (True, False, True)
    assert public(DICE.events(state))[0].data == {"reason": "forfeit"}
    state = play(DICE, state, roll("9 9 9 9 9"))
    assert DICE.to_act(state) == 2
    state = play(DICE, state, "claim pair 9")
    assert DICE.to_act(state) == 0  # seat 1 is skipped from now on


def test_forfeit_of_the_thrower_passes_the_throw_left() -> None:
    state = DICE.fault(thrown(3, "J J Q Q A"), 0)
    state = play(DICE, state, roll("9 9 9 9 9"))
    assert DICE.to_act(state) == 1


def test_forfeit_places_below_the_players_still_in() -> None:
    state = thrown(3, "9 9 9 9 9", max_points=1)
    state = play(DICE, state, "claim five A", "challenge")  # seat 0 is out on points
    state = play(DICE, state, roll("9 9 9 9 9"))
    state = DICE.fault(state, 1)  # seat 1 forfeits: seat 2 is the last one in
    assert DICE.is_over(state)
    assert DICE.result(state).placements == (3, 2, 1)
    assert DICE.result(state).out_order == (0, 1)


def test_penalty_fault_gives_a_point_and_the_faulter_starts() -> None:
    state = play(DICE, thrown(3, "J J Q Q A", on_fault="penalty"), "claim pair Q")
    state = DICE.fault(state, 1)
    assert state.points == (0, 1, 0)
    assert state.active == (True, True, True)
    assert kinds(DICE.events(state)) == ["penalty", "point"]
    assert find(DICE.events(state), "penalty").data == {"faults": 1}
    state = play(DICE, state, roll("9 9 9 9 9"))
    assert DICE.to_act(state) == 1


def test_the_max_faults_th_fault_forfeits() -> None:
    state = thrown(3, "J J Q Q A", on_fault="penalty", max_faults=2)
    state = DICE.fault(state, 0)
    state = play(DICE, state, roll("J J Q Q A"))
    assert DICE.to_act(state) == 0
    state = DICE.fault(state, 0)
    assert state.points == (1, 0, 0)  # the forfeiting fault gives no point
    assert state.active == (False, True, True)
    assert state.faults == (2, 0, 0)
    state = play(DICE, state, roll("9 9 9 9 9"))
    assert DICE.to_act(state) == 1


def test_a_penalty_point_can_put_the_faulter_out() -> None:
    state = thrown(2, "J J Q Q A", on_fault="penalty", max_points=1)
    state = DICE.fault(state, 0)
    assert find(DICE.events(state), "out").data == {"reason": "points"}
    assert DICE.result(state).placements == (2, 1)


def test_a_seat_faults_while_a_decision_is_pending_and_the_round_is_abandoned() -> None:
    state = thrown(3, "J J Q Q A")
    after = DICE.fault(state, 1)  # outside its decision (a failed notify): out at once
    assert [(e.kind, e.seat) for e in DICE.events(after)] == [("out", 1)]
    assert after.points == (0, 0, 0) and after.thrower == 2  # no point; its left throws
    with pytest.raises(Exception, match="no decision"):
        DICE.fault(after, 1)  # no decision is pending (and the seat is out)
    with pytest.raises(Exception, match="no decision"):
        DICE.fault(DICE.new_game(3), 0)


# --- dice-cards -----------------------------------------------------------------------------

def dealt(players: int, *top: str, **options: object):
    """A dice-cards game whose deck starts with the cards in `top` (the first 5 are dealt)."""
    return play(DICE_CARDS, DICE_CARDS.new_game(players, options), deck(*top))


def test_dice_cards_thrower_may_exchange_before_the_first_claim() -> None:
    state = dealt(2, "Ah Kh Qh Jh 2c", "Th 3c")
    assert DICE_CARDS.legal(state).decision == "reroll"
    assert DICE_CARDS.observe(state, 0).hand == ("Ah", "Kh", "Qh", "Jh", "2c")
    assert len(state.deck) == 47
    state = play(DICE_CARDS, state, "reroll 4")
    assert state.hand == cards("Ah Kh Qh Jh Th")
    assert state.discards == cards("2c")
    draw = find(DICE_CARDS.events(state), "draw")
    assert (draw.to, draw.data["positions"]) == (0, (4,))
    state = play(DICE_CARDS, state, "claim straight-flush A")
    assert DICE_CARDS.legal(state).actions() == (Challenge(),)
    state = play(DICE_CARDS, state, "challenge")
    assert state.points == (0, 1)


def test_dice_cards_thrower_skips_the_exchange_with_an_empty_one_not_a_claim() -> None:
    state = dealt(2, "Ah Kh Qh Jh 2c")
    bid = Bid(parse_claim("high A"))
    assert not DICE_CARDS.observe(state, 0).is_legal(bid)
    assert bid not in DICE_CARDS.observe(state, 0).legal_actions()
    with pytest.raises(IllegalAction, match="not a legal answer to 'reroll'"):
        DICE_CARDS.apply(state, bid)
    state = play(DICE_CARDS, state, "reroll none", "claim high A")
    assert state.discards == ()
    assert find(DICE_CARDS.events(state), "claim").seat == 0


def test_dice_cards_has_flushes_and_no_five_of_a_kind() -> None:
    state = play(DICE_CARDS, dealt(2, "2h 5h 7h 9h Kh"), "reroll none")
    with pytest.raises(IllegalAction, match="no hand of cards has the value five A"):
        play(DICE_CARDS, state, "claim five A")
    state = play(DICE_CARDS, state, "claim flush K", "challenge")
    assert find(DICE_CARDS.events(state), "challenge").data["holds"] is True


def test_dice_cards_look_picks_up_the_cards_and_exchanges() -> None:
    state = dealt(3, "2c 3d 4h 5s 7c", "9c 9d Tc")
    state = play(DICE_CARDS, state, "reroll none", "claim high 7", "look")
    assert DICE_CARDS.observe(state, 1).hand == ("2c", "3d", "4h", "5s", "7c")
    state = play(DICE_CARDS, state, "reroll 0 1")
    assert state.hand == cards("9c 9d 4h 5s 7c")
    assert state.discards == cards("2c 3d")
    assert find(DICE_CARDS.events(state), "reroll").data == {"count": 2}


def test_every_round_starts_from_a_full_deck() -> None:
    state = play(DICE_CARDS, dealt(2, "2c 3d 4h 5s 7c"), "reroll 0 1", "claim pair 2",
                 "challenge")
    assert DICE_CARDS.to_act(state) == CHANCE
    with pytest.raises(IllegalAction, match="52 cards"):
        play(DICE_CARDS, state, Chance(tuple(range(47))))
    state = play(DICE_CARDS, state, deck("As Ah Ad Ac Ks"))
    assert state.discards == ()
    assert len(state.deck) == 47
    assert DICE_CARDS.to_act(state) == 1


def test_dice_cards_reshuffles_the_discards_when_the_deck_runs_out() -> None:
    state = dealt(2, "2c 3d 4h 5s 7c")
    claim_order = iter(c for c in DICE_CARDS.legal(state).space.claims)
    state = play(DICE_CARDS, state, "reroll 0 1 2 3 4", f"claim {next(claim_order)}")
    # 9 exchanges of 5 leave 2 cards in the deck; the 10th exchange draws 2, then reshuffles
    for _ in range(8):
        state = play(DICE_CARDS, state, "look", "reroll 0 1 2 3 4", f"claim {next(claim_order)}")
    assert (len(state.deck), len(state.discards)) == (2, 45)
    last_two = state.deck
    thrown_now = state.hand
    state = play(DICE_CARDS, state, "look", "reroll 0 1 2 3 4")
    assert DICE_CARDS.to_act(state) == CHANCE
    assert len(state.discards) == 50  # includes the 5 cards just thrown
    assert set(thrown_now) <= set(state.discards)
    assert state.hand[:2] == last_two
    assert state.pending == (2, 3, 4)
    with pytest.raises(IllegalAction, match="discard pile"):
        play(DICE_CARDS, state, Chance(tuple(range(2, 52))))
    # chance puts three of the cards just thrown back on top
    again = thrown_now[2:] + tuple(c for c in state.discards if c not in thrown_now[2:])
    state = play(DICE_CARDS, state, Chance(again))
    assert kinds(DICE_CARDS.events(state))[0] == "reshuffle"
    assert public(DICE_CARDS.events(state))[0].data == {"cards": 50}
    assert state.hand == last_two + thrown_now[2:]
    assert (len(state.deck), len(state.discards)) == (47, 0)
    assert DICE_CARDS.legal(state).decision == "claim"


@pytest.mark.parametrize(("straight_over_full", "holds"), [(False, False), (True, True)])
def test_dice_cards_straight_over_full(straight_over_full: bool, holds: bool) -> None:
    state = dealt(2, "9c Td Jh Qs Kc", straight_over_full=straight_over_full)
    state = play(DICE_CARDS, state, "reroll none", "claim full A K", "challenge")
    assert find(DICE_CARDS.events(state), "challenge").data["holds"] is holds


def test_dice_cards_penalty_fault_gives_a_point() -> None:
    state = dealt(3, "2c 3d 4h 5s 7c", on_fault="penalty")
    state = DICE_CARDS.fault(state, 0)  # the thrower, while exchanging
    assert state.points == (1, 0, 0)
    state = play(DICE_CARDS, state, deck("2c 3d 4h 5s 7c"), "reroll none", "claim pair 2")
    state = DICE_CARDS.fault(state, 1)
    assert state.points == (1, 1, 0)
    assert DICE_CARDS.to_act(state) == CHANCE
    state = play(DICE_CARDS, state, deck("2c 3d 4h 5s 7c"))
    assert DICE_CARDS.to_act(state) == 1


def test_dice_cards_forfeit_abandons_the_round() -> None:
    state = play(DICE_CARDS, dealt(3, "2c 3d 4h 5s 7c"), "reroll none", "claim pair 2", "look")
    state = DICE_CARDS.fault(state, 1)
    assert state.points == (0, 0, 0)
    assert state.active == (True, False, True)
    state = play(DICE_CARDS, state, deck("2c 3d 4h 5s 7c"))
    assert DICE_CARDS.to_act(state) == 2
