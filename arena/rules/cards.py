"""Guarinos' Mentiroso con cartas: the `cards` rule set (private hands and a central hand).

PURE: no I/O, no clocks, no global random. States are immutable named tuples; claims are
indexes into the 309-claim card space.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from types import MappingProxyType as _frozen
from typing import NamedTuple

from arena import hands
from arena.rules.actions import Accept, Action, Challenge, Chance, Pass
from arena.rules.base import (
    CHANCE,
    TERMINAL,
    Event,
    IllegalAction,
    Observation,
    OptionSpec,
    Result,
    RulesError,
)
from arena.rules.engine import (
    FAULT_OPTIONS,
    Engine,
    add_to_seat,
    next_active,
    place_by_out_order,
    seat_out,
    with_defaults,
)
from arena.rules.legal import Decision, Legal

SHUFFLE, ACCEPT, TURN, OVER = range(4)
_DECISION: dict[int, Decision] = {ACCEPT: "accept", TURN: "turn"}
_DECK = tuple(range(52))
_FACE_DOWN = (False,) * 5


class CardsState(NamedTuple):
    """One moment of a `cards` game."""

    opts: Mapping[str, object]
    space: hands.ClaimSpace
    chips: tuple[int, ...]
    active: tuple[bool, ...]
    out: tuple[int, ...]
    faults: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    central: tuple[int, ...]
    face_up: tuple[bool, ...]
    pile: tuple[int, ...]
    discards: tuple[int, ...]
    holder: int
    phase: int
    claim: int
    passer: int
    deals: int
    history: tuple[Event, ...]
    events: tuple[Event, ...]


_CARDSSTATE_INDEX = {name: i for i, name in enumerate(CardsState._fields)}


def _with(state: CardsState, **changes: object) -> CardsState:
    """A copy of the state with some fields changed (faster than NamedTuple._replace)."""
    values = list(state)
    for name, value in changes.items():
        values[_CARDSSTATE_INDEX[name]] = value
    return tuple.__new__(CardsState, values)


_CARD_TEXT = tuple(hands.card_text(c) for c in _DECK)


def _texts(cards: tuple[int, ...]) -> tuple[str, ...]:
    return tuple([_CARD_TEXT[c] for c in cards])


class CardsRules(Engine):
    """The central-hand game for 3 to 6 players, scored in chips; a plugin may build a variant
    under its own `id` with other option `defaults` (as `DiceRules` does)."""

    version = 2
    min_players = 3
    max_players = 6
    event_kinds = ("deal", "central", "see", "accept", "pass", "hand", "pay", "challenge",
                   "penalty", "out", "over")
    """Every kind of event a game can show a seat (docs/writing-a-bot.md, Events)."""

    def __init__(self, id: str = "cards", defaults: Mapping[str, object] | None = None) -> None:
        self.id = id
        self.option_specs = with_defaults(self._specs(), defaults or {})
        self.description = self.describe(
            hands.CARDS, True, "chips", ("accept", "turn"),
            "each player's own five cards, and the central hand's face-down cards, seen only "
            "by the player holding it",
        )
        self._legal_cache: dict[tuple[Decision, int, tuple[bool, ...], bool], Legal] = {}

    @staticmethod
    def _specs() -> tuple[OptionSpec, ...]:
        return (
            OptionSpec("chips", 10, "chips each player starts with", minimum=1),
            OptionSpec("penalty", 5, "chips paid by the loser of a reject", minimum=1),
            OptionSpec("accept_reward", 1, "chips the bank pays a passer when accepted",
                       minimum=0),
            OptionSpec("fresh_hand_to", "next", "who takes the fresh hand after a reject: "
                       "the next player or the rejecter", choices=("next", "rejecter")),
            *FAULT_OPTIONS,
        )

    # --- setup ------------------------------------------------------------------------

    def new_game(self, players: int, options: Mapping[str, object] | None = None) -> CardsState:
        """Return the first state: the deck is about to be shuffled and dealt."""
        self.check_players(players)
        opts = self.check_options(options)
        space = hands.claim_space(hands.CARDS, bool(opts["straight_over_full"]))
        chips = (int(opts["chips"]),) * players
        return CardsState(opts, space, chips, (True,) * players, (), (0,) * players,
                          ((),) * players, (), _FACE_DOWN, (), (), 0, SHUFFLE, -1, -1, 0,
                          (), ())

    # --- queries ----------------------------------------------------------------------

    def to_act(self, state: CardsState) -> int:
        """Return the seat to act, CHANCE, or TERMINAL."""
        if state.phase == OVER:
            return TERMINAL
        return CHANCE if state.phase == SHUFFLE else state.holder

    def is_over(self, state: CardsState) -> bool:
        """Whether the game has ended."""
        return state.phase == OVER

    def legal(self, state: CardsState) -> Legal:
        """Return what the holder of the central hand may do now."""
        return self._legal(_DECISION.get(state.phase, "wait"), state)

    def _legal(self, decision: Decision, state: CardsState) -> Legal:
        key = (decision, state.claim + 1, state.face_up, state.space.straight_over_full)
        legal = self._legal_cache.get(key)
        if legal is None:
            legal = Legal(decision, state.space, state.claim + 1, state.face_up)
            self._legal_cache[key] = legal
        return legal

    def observe(self, state: CardsState, seat: int) -> Observation:
        """Return what one seat may know: its own cards, face-up cards, and the central hand
        only while it holds it after accepting (or fresh)."""
        holding = seat == state.holder and state.phase == TURN
        face_up = state.face_up if state.central else ()  # no central hand: not dealt, or over
        central = tuple(
            _CARD_TEXT[c] if holding or up else None
            for c, up in zip(state.central, face_up, strict=True)
        )
        legal = self.legal(state) if seat == state.holder else self._legal("wait", state)
        return Observation(
            self.id, seat, legal, state.space.claims[state.claim] if state.claim >= 0 else None,
            state.passer if state.passer >= 0 else None, _texts(state.hands[seat]),
            state.chips, state.active, state.history, central, face_up, len(state.pile),
        )

    def result(self, state: CardsState) -> Result:
        """Return placements: most chips first (equal chips share), then the out players."""
        if state.phase != OVER:
            raise RulesError("the game is not over")
        still_in = [s for s, a in enumerate(state.active) if a]
        levels = sorted({state.chips[s] for s in still_in}, reverse=True)
        groups = [[s for s in still_in if state.chips[s] == chips] for chips in levels]
        placements = place_by_out_order(len(state.chips), groups, state.out)
        return Result(placements, state.chips, state.out)

    def central_index(self, state: CardsState) -> int:
        """Return the claim index of the central hand's value."""
        sof = state.space.straight_over_full
        return state.space.index[hands.cards_value(state.central, sof)]

    # --- chance -----------------------------------------------------------------------

    def chance(self, state: CardsState, rng: random.Random) -> Chance:
        """Shuffle the deck: the only chance outcome of this game."""
        if state.phase != SHUFFLE:
            raise RulesError("no chance outcome is pending")
        return Chance(tuple(rng.sample(_DECK, 52)))

    # --- transitions ------------------------------------------------------------------

    def apply(self, state: CardsState, action: Action | Chance) -> CardsState:
        """Return the state after an action or chance outcome; raise IllegalAction if illegal."""
        if state.phase == SHUFFLE:
            if not isinstance(action, Chance) or sorted(action.outcome) != list(_DECK):
                raise IllegalAction(f"the deal must be an order of the 52 cards, not {action}")
            return self._deal(state, action.outcome)
        if state.phase == OVER:
            raise IllegalAction(f"the game is over; {action} cannot be played")
        problem = self.legal(state).problem(action)
        if problem is not None:
            raise IllegalAction(f"seat {state.holder}: {problem}")
        if isinstance(action, Accept):
            return self._accept(state)
        if isinstance(action, Challenge):
            return self._reject(state)
        assert isinstance(action, Pass)
        return self._pass(state, action)

    def _deal(self, state: CardsState, deck: tuple[int, ...]) -> CardsState:
        n = len(state.chips)
        dealt = tuple(deck[5 * s : 5 * s + 5] for s in range(n))
        events = tuple(Event("deal", s, _frozen({"hand": _texts(h)}), s)
                       for s, h in enumerate(dealt))
        state = _with(state, hands=dealt, pile=deck[5 * n :])
        return self._new_central(state, -1, events)

    def _see(self, state: CardsState) -> Event:
        return Event("see", state.holder, _frozen({"central": _texts(state.central)}),
                     state.holder)

    def _accept(self, state: CardsState) -> CardsState:
        reward = int(state.opts["accept_reward"])  # type: ignore[call-overload]
        reward *= state.active[state.passer]  # a passer out since (a fault) is paid nothing
        chips = add_to_seat(state.chips, state.passer, reward)
        event = Event("accept", state.holder, _frozen({"passer": state.passer, "reward": reward}))
        state = _with(state, phase=TURN, chips=chips, history=(*state.history, event))
        return _with(state, events=(event, self._see(state)))

    def _pass(self, state: CardsState, action: Pass) -> CardsState:
        seat = state.holder
        own, central, face = list(state.hands[seat]), list(state.central), list(state.face_up)
        for mine, middle in action.swaps:
            own[mine], central[middle] = central[middle], own[mine]
            face[middle] = False
        for position in action.reveal:
            face[position] = True
        shown = tuple(_CARD_TEXT[c] if up else None
                      for c, up in zip(central, face, strict=True))
        claim = state.space.find(action.claim)
        assert claim is not None  # apply checked it
        event = Event("pass", seat, _frozen({"claim": state.space.claims[claim],
                                             "swapped": len(action.swaps),
                                             "face_up": shown}))
        private = Event("hand", seat, _frozen({"hand": _texts(tuple(own)),
                                               "central": _texts(tuple(central))}), seat)
        new_hands = (*state.hands[:seat], tuple(own), *state.hands[seat + 1 :])
        return _with(state,
            hands=new_hands, central=tuple(central), face_up=tuple(face), phase=ACCEPT,
            claim=claim, passer=seat,
            holder=next_active(state.active, seat),
            history=(*state.history, event), events=(private, event),
        )

    def _reject(self, state: CardsState) -> CardsState:
        value = self.central_index(state)
        holds = value >= state.claim
        rejecter, passer = state.holder, state.passer
        payer, payee = (rejecter, passer) if holds else (passer, rejecter)
        event = Event("challenge", rejecter, _frozen({
            "claimant": passer, "claim": state.space.claims[state.claim],
            "hand": _texts(state.central), "value": state.space.claims[value], "holds": holds,
        }))
        state, paid = self._pay(state, payer, payee)
        keeps = state.opts["fresh_hand_to"] == "rejecter" and state.active[rejecter]
        return self._new_central(state, rejecter, (event, *paid), keeps)

    def _pay(self, state: CardsState, payer: int,
             payee: int) -> tuple[CardsState, tuple[Event, ...]]:
        """Move the penalty from payer to payee (-1: the bank, also for a payee out since its
        claim, by a fault); a payer left at 0 goes out, once."""
        amount = min(int(state.opts["penalty"]), state.chips[payer])  # type: ignore[call-overload]
        chips = add_to_seat(state.chips, payer, -amount)
        payee = payee if payee >= 0 and state.active[payee] else -1
        if payee >= 0:
            chips = add_to_seat(chips, payee, amount)
        events: tuple[Event, ...] = (Event("pay", payer,
                                              _frozen({"payee": payee, "amount": amount})),)
        state = _with(state, chips=chips)
        if chips[payer] == 0 and state.active[payer]:
            state, out = _go_out(state, payer, "chips")
            events += out
        return state, events

    def _new_central(self, state: CardsState, after: int, events: tuple[Event, ...],
                     itself: bool = False) -> CardsState:
        """Discard the central hand and deal a fresh one to the next player after `after`
        (or to `after` itself)."""
        discards = state.discards + state.central
        if len(state.pile) < 5 or sum(state.active) <= 1:
            return _with(state, phase=OVER, central=(), discards=discards, holder=-1,
                                  face_up=_FACE_DOWN, events=(*events, Event("over")))
        holder = after if itself else next_active(state.active, after) if after >= 0 else 0
        fresh = Event("central", holder,
                      _frozen({"deal": state.deals + 1, "pile": len(state.pile) - 5}))
        state = _with(state,
            central=state.pile[:5], pile=state.pile[5:], discards=discards, face_up=_FACE_DOWN,
            holder=holder, phase=TURN, claim=-1, passer=-1, deals=state.deals + 1,
            history=(fresh,),
        )
        return _with(state, events=(*events, fresh, self._see(state)))

    # --- faults -----------------------------------------------------------------------

    def fault(self, state: CardsState, seat: int, outside: bool = False) -> CardsState:
        """Apply the on_fault policy to a seat that faulted: on its decision, or `outside` it
        (in start or notify, the holder or another seat). A penalty goes to the passer only
        for a fault on the bot's own decision on a passed hand, else to the bank; the central
        hand is discarded and replaced only when the faulting seat held it."""
        if not state.active[seat] or state.phase not in (ACCEPT, TURN):
            raise RulesError(f"seat {seat} has no decision to fault on")
        faults = add_to_seat(state.faults, seat, 1)
        state = _with(state, faults=faults)
        limit = int(state.opts["max_faults"])  # type: ignore[call-overload]
        held = seat == state.holder
        if state.opts["on_fault"] == "penalty" and faults[seat] < limit:
            penalty = Event("penalty", seat, _frozen({"faults": faults[seat]}))
            payee = state.passer if held and not outside else -1
            state, paid = self._pay(state, seat, payee)
            events = (penalty, *paid)
        else:
            chips = add_to_seat(state.chips, seat, -state.chips[seat])
            state, events = _go_out(_with(state, chips=chips), seat, "forfeit")
        if held or sum(state.active) <= 1:
            return self._new_central(state, seat, events)
        return _with(state, history=(*state.history, *events), events=events)


def _go_out(state: CardsState, seat: int, reason: str) -> tuple[CardsState, tuple[Event, ...]]:
    active, out, event = seat_out(state.active, state.out, seat, reason)
    return _with(state, active=active, out=out), (event,)


CARDS = CardsRules()
