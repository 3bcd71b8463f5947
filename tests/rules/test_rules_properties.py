"""Invariants of random legal play (with random faults) in every rule set and player count.

Each example plays one whole game from a hypothesis-drawn seed and checks every step against
an independent account of the rules: claims rise, points and chips move only by the rule
amounts, all 52 cards stay accounted for, and no observation depends on another seat's
hidden dice or cards.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena import hands
from arena.rules import CHANCE, RULESETS, RuleSet
from arena.rules import cards as cards_engine
from arena.rules import dice_play as dice_engine
from arena.rules.actions import Action, Challenge, Look, Reroll
from arena.rules.base import Event
from arena.rules.engine import next_active
from arena.rules.legal import Legal
from arena.rules.playout import random_action

MAX_STEPS = 50_000
Policy = Callable[[Legal, random.Random], Action]
SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def games(
    draw: st.DrawFn, rules_id: str, players: int | None = None
) -> tuple[int, dict[str, Any], int, float]:
    """A player count, options, a seed and a fault rate for one random game."""
    rules = RULESETS[rules_id]
    if players is None:
        players = draw(st.integers(rules.min_players, rules.max_players))
    options: dict[str, Any] = {
        "on_fault": draw(st.sampled_from(["forfeit", "penalty"])),
        "max_faults": draw(st.integers(1, 3)),
        "straight_over_full": draw(st.booleans()),
    }
    if rules_id == "cards":
        options |= {"chips": draw(st.integers(1, 12)), "penalty": draw(st.integers(1, 6)),
                    "accept_reward": draw(st.integers(0, 2)),
                    "fresh_hand_to": draw(st.sampled_from(["next", "rejecter"]))}
    else:
        options |= {"max_points": draw(st.integers(1, 5)),
                    "receiver": draw(st.sampled_from(["left", "loser_chooses"])),
                    "look_must_reroll": draw(st.booleans()),
                    "reroll_once_per": draw(st.sampled_from(["turn", "round"]))}
    fault_rate = draw(st.sampled_from([0.0, 0.02, 0.1]))
    return players, options, draw(st.integers(0, 2**32 - 1)), fault_rate


def play_checked(rules: RuleSet, game: tuple[int, dict[str, Any], int, float],
                 policy: Policy = random_action) -> Any:
    """Play a random game, checking every step; return the final state."""
    players, options, seed, fault_rate = game
    rng = random.Random(seed)
    state = rules.new_game(players, options)
    last_claim: hands.Claim | None = None
    for _ in range(MAX_STEPS):
        if rules.is_over(state):
            return state
        seat = rules.to_act(state)
        faulted = False
        if seat == CHANCE:
            after = rules.apply(state, rules.chance(state, rng))
        elif rng.random() < fault_rate:
            after, faulted = rules.fault(state, seat), True
        else:
            after = rules.apply(state, policy(rules.observe(state, seat).legal, rng))
        events = rules.events(after)
        last_claim = check_claims_rise(events, last_claim)
        if rules.id == "cards":
            check_chips(state, after, events, faulted)
            check_cards_accounted(after)
            check_fresh_hand_goes_to(state, after, events)
        else:
            check_points(rules, state, after, events, faulted)
            check_dice_cards_accounted(rules, after)
            check_the_receiver(state, after, events)
        check_no_leak(rules, after, rng)
        state = after
    raise AssertionError(f"the game did not end within {MAX_STEPS} steps")


# --- the invariants -------------------------------------------------------------------------

def check_claims_rise(events: tuple[Event, ...], last: hands.Claim | None) -> hands.Claim | None:
    """Every claim beats the last one of its round or central hand."""
    for event in events:
        if event.kind in ("round", "central"):
            last = None
        elif event.kind in ("claim", "pass"):
            claim = event.data["claim"]
            assert last is None or claim > last, f"{claim} does not beat {last}"
            last = claim
    return last


def check_points(rules: RuleSet, before: Any, after: Any, events: tuple, faulted: bool) -> None:
    """Exactly one player gains a point per challenge (or penalty fault); nothing else scores."""
    gained = [a - b for a, b in zip(after.points, before.points, strict=True)]
    by_kind = {event.kind: event for event in events}
    if "challenge" in by_kind:
        sof = before.space.straight_over_full
        claim = before.space.claims[before.claim]
        hand = before.hand
        value = hands.cards_value(hand, sof) if rules.id == "dice-cards" else hands.dice_value(
            hand, sof)
        holds = value >= claim
        assert by_kind["challenge"].data["holds"] is holds
        loser = before.holder if holds else before.claimant
        assert gained == [int(s == loser) for s in range(len(gained))]
    elif faulted and _penalised(before):
        assert "penalty" in by_kind
        assert gained == [int(s == before.holder) for s in range(len(gained))]
    else:
        assert not any(gained), f"points moved without a challenge: {events}"
    if faulted and not _penalised(before):
        assert not after.active[before.holder]
    for seat, points in enumerate(after.points):
        assert (points >= after.opts["max_points"]) <= (not after.active[seat])


def _penalised(before: Any) -> bool:
    """Whether a fault now costs a penalty (rather than forfeiting the game)."""
    opts = before.opts
    return opts["on_fault"] == "penalty" and before.faults[before.holder] + 1 < opts["max_faults"]


def check_chips(before: Any, after: Any, events: tuple, faulted: bool) -> None:
    """Chips move only by the reward, the penalty (or what the payer has) and forfeits."""
    expected = list(before.chips)
    opts = before.opts
    kinds = {event.kind for event in events}

    def pay(payer: int, payee: int) -> None:
        amount = min(opts["penalty"], expected[payer])
        expected[payer] -= amount
        if payee >= 0:
            expected[payee] += amount

    if "accept" in kinds:
        expected[before.passer] += opts["accept_reward"]
    elif "challenge" in kinds:
        sof = before.space.straight_over_full
        holds = hands.cards_value(before.central, sof) >= before.space.claims[before.claim]
        pay(*(before.holder, before.passer) if holds else (before.passer, before.holder))
    elif faulted and _penalised(before):
        assert "penalty" in kinds
        pay(before.holder, before.passer)
    elif faulted:
        expected[before.holder] = 0
        assert not after.active[before.holder]
    assert list(after.chips) == expected, f"{before.chips} -> {after.chips} on {events}"
    for seat, chips in enumerate(after.chips):
        assert chips >= 0
        assert (chips == 0) == (not after.active[seat])


def check_the_receiver(before: Any, after: Any, events: tuple) -> None:
    """The thrower's claim goes to the chosen receiver, every other claim to the left; only
    the loser of the last round chooses, and only with receiver: loser_chooses."""
    for event in events:
        if event.kind == "choose":
            assert before.opts["receiver"] == "loser_chooses"
            assert event.data["receiver"] != event.seat
        if event.kind == "claim" and before.claim < 0:
            chosen = [e.data["receiver"] for e in before.history if e.kind == "choose"]
            left = next_active(before.active, event.seat)
            assert after.holder == (chosen[0] if chosen else left)


def check_fresh_hand_goes_to(before: Any, after: Any, events: tuple) -> None:
    """After a reject the fresh central hand goes to the next player, or with
    fresh_hand_to: rejecter to the rejecting player while still in."""
    kinds = [event.kind for event in events]
    if "challenge" not in kinds or "central" not in kinds:
        return
    rejecter = before.holder
    keeps = before.opts["fresh_hand_to"] == "rejecter" and after.active[rejecter]
    expected = rejecter if keeps else next_active(after.active, rejecter)
    assert find_kind(events, "central").seat == expected


def find_kind(events: tuple, kind: str) -> Event:
    """The first event of a kind."""
    return next(event for event in events if event.kind == kind)


def check_cards_accounted(state: Any) -> None:
    """Draw pile, discards, central hand and every private hand hold the 52 cards once each."""
    if state.phase == cards_engine.SHUFFLE:
        return
    held = [*state.pile, *state.discards, *state.central, *(c for h in state.hands for c in h)]
    assert sorted(held) == list(range(52))


def check_dice_cards_accounted(rules: RuleSet, state: Any) -> None:
    """Within a round of dice-cards, deck, discards and the hand hold the 52 cards once each."""
    if rules.id == "dice":
        assert len(state.hand) in (0, 5)
        assert all(9 <= face <= 14 for face in state.hand)
        return
    if not state.hand:
        return
    hand = [c for p, c in enumerate(state.hand) if p not in state.pending]
    assert sorted([*state.deck, *state.discards, *hand]) == list(range(52))


# --- no leak --------------------------------------------------------------------------------

def check_no_leak(rules: RuleSet, state: Any, rng: random.Random) -> None:
    """What a seat observes never changes when another seat's hidden dice or cards change."""
    for seat in range(len(state.active)):
        seen = rules.observe(state, seat)
        assert all(event.to is None for event in seen.history)
        if rules.id == "cards":
            other = _reshuffle_hidden_cards(state, seat, rng)
        else:
            other = _rethrow_hidden_dice(rules, state, seat, rng)
        if other is not None:
            assert rules.observe(other, seat) == seen


def _rethrow_hidden_dice(rules: RuleSet, state: Any, seat: int, rng: random.Random) -> Any:
    looking = seat == state.holder and state.phase in (
        dice_engine.EXCHANGE, dice_engine.CLAIM, dice_engine.REROLL, dice_engine.CHOOSE)
    if rules.id == "dice":
        if looking or not state.hand:
            return None
        return state._replace(hand=tuple(rng.choice(hands.DIE_RANKS) for _ in range(5)))
    slots = {"deck": list(state.deck), "discards": list(state.discards)}
    if not looking:
        slots["hand"] = list(state.hand)
    return state._replace(**_shuffled(slots, rng))


def _reshuffle_hidden_cards(state: Any, seat: int, rng: random.Random) -> Any:
    holding = seat == state.holder and state.phase == cards_engine.TURN
    slots: dict[str, list[int]] = {"pile": list(state.pile), "discards": list(state.discards)}
    for other, hand in enumerate(state.hands):
        if other != seat:
            slots[f"hand{other}"] = list(hand)
    if state.central and not holding:
        slots["central"] = [c for c, up in zip(state.central, state.face_up, strict=True)
                            if not up]
    new = _shuffled(slots, rng)
    hands_now = tuple(tuple(new.pop(f"hand{s}", h)) for s, h in enumerate(state.hands))
    if "central" in new:
        hidden = iter(new.pop("central"))
        new["central"] = tuple(c if up else next(hidden)
                               for c, up in zip(state.central, state.face_up, strict=True))
    return state._replace(hands=hands_now, **new)


def _shuffled(slots: dict[str, list[int]], rng: random.Random) -> dict[str, tuple[int, ...]]:
    """Deal the pooled cards of some slots back into slots of the same sizes, at random."""
    pool = [card for cards in slots.values() for card in cards]
    rng.shuffle(pool)
    out, start = {}, 0
    for name, cards in slots.items():
        out[name] = tuple(pool[start : start + len(cards)])
        start += len(cards)
    return out


# --- the properties -------------------------------------------------------------------------

SEATINGS = [(rules_id, players) for rules_id, rules in sorted(RULESETS.items())
            for players in range(rules.min_players, rules.max_players + 1)]


@pytest.mark.parametrize(("rules_id", "players"), SEATINGS)
@SETTINGS
@given(data=st.data())
def test_random_play_keeps_every_invariant(
    rules_id: str, players: int, data: st.DataObject
) -> None:
    rules = RULESETS[rules_id]
    final = play_checked(rules, data.draw(games(rules_id, players)))
    result = rules.result(final)
    places = Counter(result.placements)
    expected = 1  # places 1, 1, 3: a shared place uses up the places below it
    for place in sorted(places):
        assert place == expected
        expected += places[place]
    assert result.out_order == final.out
    if rules_id != "cards":
        assert sorted(result.placements) == list(range(1, len(result.placements) + 1))


@pytest.mark.parametrize("rules_id", sorted(RULESETS))
def test_the_same_seed_plays_the_same_game(rules_id: str) -> None:
    rules = RULESETS[rules_id]
    game = (rules.max_players, {}, 1234, 0.0)
    assert play_checked(rules, game) == play_checked(rules, game)


def exchange_everything(legal: Legal, rng: random.Random) -> Action:
    """Look and exchange whenever possible, so that rounds run through the deck."""
    if legal.decision == "respond":
        return Look() if legal.can_claim() else Challenge()
    if legal.decision == "reroll":
        wanted = Reroll(tuple(p for p in legal.rerollable if rng.random() < 0.9))
        if legal.problem(wanted) is None:
            return wanted
    return random_action(legal, rng)


@settings(SETTINGS, max_examples=8)
@given(game=games("dice-cards"))
def test_dice_cards_reshuffles_keep_every_invariant(game: tuple) -> None:
    final = play_checked(RULESETS["dice-cards"], game, exchange_everything)
    assert RULESETS["dice-cards"].is_over(final)


@pytest.mark.parametrize("on_fault", ["forfeit", "penalty"])
def test_cards_faults_outside_a_decision_keep_the_chips_and_cards_accounted(
        on_fault: str) -> None:
    """Any seat still in may fault outside its decision (a failed notify) at any step: a
    penalty goes to the bank, only the holder's fault replaces the central hand, and a claim
    whose passer went out is settled with the bank; chips and cards stay accounted for."""
    rules = RULESETS["cards"]
    for seed in range(60):
        rng = random.Random(seed)
        state = rules.new_game(3 + seed % 4, {"on_fault": on_fault, "max_faults": 2})
        while not rules.is_over(state):
            seat = rules.to_act(state)
            if seat == CHANCE:
                state = rules.apply(state, rules.chance(state, rng))
            elif rng.random() < 0.05:
                faulter = rng.choice([s for s, a in enumerate(state.active) if a])
                after = rules.fault(state, faulter, outside=True)
                paid = [e for e in rules.events(after) if e.kind == "pay"]
                assert all(e.data["payee"] == -1 for e in paid)
                assert (after.central == state.central) != (faulter == state.holder
                                                            or rules.is_over(after))
                state = after
            else:
                state = rules.apply(state, random_action(rules.observe(state, seat).legal, rng))
            check_cards_accounted(state)
            assert all(c >= 0 for c in state.chips)
            assert all((c == 0) == (not a) for c, a in zip(state.chips, state.active,
                                                              strict=True))
