"""How a dice (or dice-cards) game moves: its state, its chance outcomes (throws, deals,
reshuffles) and every transition (claims, looks, rerolls, choices, challenges, points, faults).

PURE: no I/O, no clocks, no global random: chance draws from the generator passed in. This is
the moving half of `arena.rules.dice.DiceRules` (which adds the options, what is legal, what
each seat sees and the result); nothing here is used on its own.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from arena import hands
from arena.rules.actions import Action, Bid, Challenge, Chance, Choose, Look
from arena.rules.base import Event, IllegalAction, RulesError
from arena.rules.engine import add_to_seat, next_active, seat_out
from arena.rules.legal import SORTED_POSITIONS, Legal

DEAL, FILL, EXCHANGE, CLAIM, RESPOND, REROLL, OVER, CHOOSE = range(8)
LEFT, CHOOSES = -1, -2  # `receiver` before a choice: the cup goes left, or the thrower chooses
_DECK = tuple(range(52))
_new = tuple.__new__
_NO_DATA: Mapping[str, object] = MappingProxyType({})
_frozen = MappingProxyType  # the data of every event is read-only: it reaches the bots
_CARD_TEXT = tuple(hands.card_text(c) for c in _DECK)
# Every roll of k dice, in a fixed order: one randrange picks a whole roll.
_ROLLS = tuple(tuple(itertools.product(hands.DIE_RANKS, repeat=k)) for k in range(6))
_ROLL_SETS = tuple(frozenset(rolls) for rolls in _ROLLS)
_THROWS: dict[int, tuple[Chance, ...]] = {}  # by dice (6 faces), or faces << 3 | dice
_FACES = len(hands.DIE_RANKS)


def _throws(dice: int) -> tuple[Chance, ...]:
    """The chance outcome of every roll of so many dice, in `_ROLLS` order, built on first
    use (then read from `_THROWS` in line: one Chance built per throw cost a Python call)."""
    throws = _THROWS[dice] = tuple(Chance(roll) for roll in _ROLLS[dice])
    return throws


def _reduced_throws(dice: int, faces: int) -> tuple[Chance, ...]:
    """Every roll of so many dice of fewer faces (a reduced game), in the same order."""
    throws = _THROWS.get(key := faces << 3 | dice)
    if throws is None:
        rolls = itertools.product(hands.die_faces(faces), repeat=dice)
        throws = _THROWS[key] = tuple(Chance(roll) for roll in rolls)
    return throws


def _is_roll(outcome: tuple[int, ...], dice: int, faces: int) -> bool:
    """Whether a chance outcome is a roll of so many dice of so many faces."""
    ranks = hands.die_faces(faces)  # 6 faces: the sets of every roll, as before
    return outcome in _ROLL_SETS[dice] if faces == _FACES else (
        len(outcome) == dice and all(type(d) is int and d in ranks for d in outcome))


_DICE_TEXT: dict[tuple[int, ...], tuple[str, ...]] = {}  # at most 7,776 entries
# The read-only data of the most frequent events, built once: claims by (claim, order,
# blind), and the one-number events (round, reroll count, points) by name and number.
_CLAIM_DATA: dict[tuple[str, int, int, bool], Mapping[str, object]] = {}
_NUMBERED: dict[tuple[str, int], Mapping[str, object]] = {}


def _claim_data(space: hands.ClaimSpace, index: int, blind: bool) -> Mapping[str, object]:
    """The read-only data of a claim event (one per claim, order and blind: at most 1,524)."""
    key = (space.kind, space.code, index, blind)
    data = _CLAIM_DATA.get(key)
    if data is None:
        data = _CLAIM_DATA[key] = _frozen({"claim": space.claims[index], "blind": blind})
    return data


def _numbered(name: str, number: int) -> Mapping[str, object]:
    """The read-only data of an event that carries one small number."""
    data = _NUMBERED.get((name, number))
    if data is None:
        data = _NUMBERED[(name, number)] = _frozen({name: number})
    return data


class DiceState(NamedTuple):
    """One moment of a dice (or dice-cards) game."""

    opts: Mapping[str, object]
    space: hands.ClaimSpace
    points: tuple[int, ...]
    active: tuple[bool, ...]
    out: tuple[int, ...]
    faults: tuple[int, ...]
    thrower: int
    holder: int
    phase: int
    hand: tuple[int, ...]
    claim: int
    claimant: int
    pending: tuple[int, ...]
    deck: tuple[int, ...]
    discards: tuple[int, ...]
    round: int
    receiver: int  # who receives the thrower's claim: a chosen seat, LEFT or CHOOSES
    rerolled: tuple[int, ...]  # by seat, positions rerolled this round (a bit mask each)
    history: tuple[Event, ...]
    events: tuple[Event, ...]


_DICESTATE_INDEX = {name: i for i, name in enumerate(DiceState._fields)}
_HOLDER, _PHASE, _HAND, _CLAIMANT, _PENDING, _HISTORY, _EVENTS = (
    _DICESTATE_INDEX[f]
    for f in ("holder", "phase", "hand", "claimant", "pending", "history", "events")
)


def _with(state: DiceState, **changes: object) -> DiceState:
    """A copy of the state with some fields changed (faster than NamedTuple._replace)."""
    values = list(state)
    for name, value in changes.items():
        values[_DICESTATE_INDEX[name]] = value
    return tuple.__new__(DiceState, values)


class DicePlay:
    """The moves of the dice engine: chance outcomes and transitions over a `DiceState`."""

    cards: bool
    _index_cache: dict[int, dict[tuple[int, ...], int]]
    _steps: dict[type, Callable[[DiceState, Any], DiceState]]

    def legal(self, state: DiceState) -> Legal:
        """Return what the holder may do now (the rule set's: `DiceRules.legal`)."""
        raise NotImplementedError

    def hand_index(self, state: DiceState) -> int:
        """Return the claim index of the hand under the cup (what a challenge compares)."""
        if self.cards:
            sof = state.space.straight_over_full
            return state.space.index[hands.cards_value(state.hand, sof)]
        return self._dice_index(state.space)[state.hand]

    def _dice_index(self, space: hands.ClaimSpace) -> dict[tuple[int, ...], int]:
        sof = space.straight_over_full
        table = self._index_cache.get(space.code)
        if table is None:  # each sorted roll valued once (252 for 5 dice), not all 7,776
            ranks = space.ranks
            sorted_rolls = itertools.combinations_with_replacement(ranks, space.dice)
            value = {r: space.index[hands.dice_value(r, sof)] for r in sorted_rolls}
            rolls = itertools.product(ranks, repeat=space.dice)
            table = {r: value[tuple(sorted(r))] for r in rolls}
            self._index_cache[space.code] = table
        return table

    def _text(self, tokens: tuple[int, ...]) -> tuple[str, ...]:
        if self.cards:
            return tuple([_CARD_TEXT[c] for c in tokens])
        text = _DICE_TEXT.get(tokens)
        if text is None:
            text = _DICE_TEXT[tokens] = tuple([hands.RANK_TEXT[d - 2] for d in tokens])
        return text

    # --- chance -----------------------------------------------------------------------

    def chance(self, state: DiceState, rng: random.Random) -> Chance:
        """Draw the pending chance outcome: dice faces, or a shuffled deck (or discard pile)."""
        if state.phase == DEAL:
            if self.cards:
                return Chance(tuple(rng.sample(_DECK, 52)))
            # One random() per throw: a float has 53 bits, so the bias over 7,776 rolls is
            # below 1e-12, far cheaper than randrange's rejection loop.
            if state.space.code >> 16:  # a reduced game: fewer dice, or fewer faces
                table = _reduced_throws(state.space.dice, state.space.faces)
                return table[int(rng.random() * len(table))]
            return (_THROWS.get(5) or _throws(5))[int(rng.random() * 7776)]
        if state.phase != FILL:
            raise RulesError("no chance outcome is pending")
        if self.cards:
            return Chance(tuple(rng.sample(state.discards, len(state.discards))))
        dice = len(state.pending)
        if state.space.faces == _FACES:
            table = _THROWS.get(dice) or _throws(dice)
        else:
            table = _reduced_throws(dice, state.space.faces)
        return table[int(rng.random() * len(table))]

    # --- transitions ------------------------------------------------------------------

    def apply(self, state: DiceState, action: Action | Chance) -> DiceState:
        """Return the state after an action or chance outcome; raise IllegalAction if illegal."""
        phase = state.phase
        if phase <= FILL:
            if type(action) is not Chance:
                raise IllegalAction(f"a chance outcome is pending, not {action}")
            return self._apply_chance(state, action)
        if phase == OVER:
            raise IllegalAction(f"the game is over; {action} cannot be played")
        if CLAIM <= phase <= RESPOND:  # the common cases, in line: legal at once, or not here
            new_state = self._claim_or_respond(state, action)
            if new_state is not None:
                return new_state
        legal = self.legal(state)
        if legal.is_free_reroll(action):
            return self._reroll(state, action.positions)
        problem = legal.problem(action)
        if problem is not None:
            raise IllegalAction(f"seat {state.holder}: {problem}")
        return self._steps[type(action)](state, action)

    def _claim_or_respond(self, state: DiceState, action: object) -> DiceState | None:
        """The state after a claim, look or challenge that is plainly legal, or None to check
        the action in full (its Legal: the claim space, anything above the last claim)."""
        kind = type(action)
        if kind is Bid:
            claim = action.claim  # type: ignore[attr-defined]
            space = state.space
            if type(claim) is hands.Value and claim.straight_over_full == space.straight_over_full:
                index = space.index.get(claim, -1)
                if index > state.claim:
                    return self._bid(state, index)
        elif state.phase == RESPOND:
            if kind is Challenge:
                return self._challenge(state)
            if kind is Look and state.claim + 1 < len(state.space.claims):  # a claim is left
                return self._look(state, action)  # type: ignore[arg-type]
        return None

    def _claim(self, state: DiceState, action: Bid) -> DiceState:
        """A legal claim, made with either category order: judged in the game's order."""
        index = state.space.find(action.claim)
        assert index is not None  # apply checked it
        return self._bid(state, index)

    def _choose(self, state: DiceState, action: Choose) -> DiceState:
        """The thrower who lost the last round names the receiver of its claim."""
        event = Event("choose", state.holder, _frozen({"receiver": action.seat}))
        return _with(state, phase=EXCHANGE if self.cards else CLAIM, receiver=action.seat,
                     history=(*state.history, event), events=(event,))

    def _look(self, state: DiceState, action: Look) -> DiceState:
        seen = _new(Event, ("see", state.holder, _frozen({"hand": self._text(state.hand)}),
                           state.holder))
        look = _new(Event, ("look", state.holder, _NO_DATA, None))
        values = list(state)  # _with, unrolled: a third of all decisions look
        values[_PHASE] = REROLL
        values[_HISTORY:] = ((*state.history, look), (look, seen))
        return _new(DiceState, values)

    def _apply_chance(self, state: DiceState, chance: Chance) -> DiceState:
        if state.phase == DEAL:
            return self._deal(state, chance.outcome)
        if self.cards:
            if sorted(chance.outcome) != sorted(state.discards):
                raise IllegalAction("a reshuffle must be an order of the discard pile")
            shuffle = Event("reshuffle", state.holder, _frozen({"cards": len(chance.outcome)}))
            state = _with(state, deck=chance.outcome, discards=(), events=(shuffle,))
            return self._draw(state, state.pending)
        if not _is_roll(chance.outcome, len(state.pending), state.space.faces):
            faces = state.space.ranks  # 9..14, or 11..14 with 4 faces
            raise IllegalAction(f"expected {len(state.pending)} die faces {faces[0]}.."
                                f"{faces[-1]}, got {chance}")
        hand = list(state.hand)
        for position, face in zip(state.pending, chance.outcome, strict=True):
            hand[position] = face
        data = _frozen({"positions": state.pending, "hand": self._text(tuple(hand))})
        seen = _new(Event, ("roll", state.holder, data, state.holder))
        values = list(state)  # _with, unrolled: every reroll comes through here
        values[_PHASE:_HAND + 1] = (CLAIM, tuple(hand))
        values[_PENDING] = ()
        values[_EVENTS] = (seen,)
        return _new(DiceState, values)

    def _deal(self, state: DiceState, outcome: tuple[int, ...]) -> DiceState:
        thrower = state.thrower
        start = _new(Event, ("round", thrower, _numbered("round", state.round + 1), None))
        if self.cards:
            if sorted(outcome) != list(_DECK):
                raise IllegalAction("a deal must be an order of the 52 cards")
            hand, deck, phase, kind = outcome[:5], outcome[5:], EXCHANGE, "deal"
        else:
            space = state.space
            if not _is_roll(outcome, space.dice, space.faces):
                raise IllegalAction(f"a throw is {space.dice} die faces {space.ranks[0]}.."
                                    f"{space.ranks[-1]}, got {outcome}")
            hand, deck, phase, kind = outcome, (), CLAIM, "roll"
        seen = _new(Event, (kind, thrower, _frozen({"hand": self._text(hand)}), thrower))
        receiver = state.receiver
        if receiver == CHOOSES and sum(state.active) > 2:
            phase = CHOOSE
        else:
            receiver = LEFT
        return _with(state,
            phase=phase, holder=thrower, hand=hand, deck=deck, discards=(), claim=-1,
            claimant=-1, pending=(), round=state.round + 1, receiver=receiver,
            rerolled=(0,) * len(state.active), history=(start,), events=(start, seen),
        )

    def _reroll(self, state: DiceState, positions: tuple[int, ...]) -> DiceState:
        public = _new(Event, ("reroll", state.holder, _numbered("count", len(positions)), None))
        history, events = (*state.history, public), (public,)
        if positions and state.opts["reroll_once_per"] == "round":
            mask = sum(1 << p for p in positions)
            rerolled = add_to_seat(state.rerolled, state.holder, mask)
            state = _with(state, rerolled=rerolled)
        if not positions:
            return _with(state, phase=CLAIM, history=history, events=events)
        if not self.cards:
            values = list(state)  # _with, unrolled: most rerolls take this path
            values[_PHASE] = FILL
            values[_PENDING] = positions
            values[_HISTORY:] = (history, events)
            return _new(DiceState, values)
        thrown = tuple(state.hand[p] for p in positions)
        state = _with(state, discards=state.discards + thrown, history=history, events=events)
        return self._draw(state, positions)

    def _draw(self, state: DiceState, positions: tuple[int, ...]) -> DiceState:
        """Fill positions from the deck; when it runs out, wait for a reshuffle of discards."""
        take = min(len(positions), len(state.deck))
        hand = list(state.hand)
        for position, card in zip(positions[:take], state.deck[:take], strict=True):
            hand[position] = card
        state = _with(state, hand=tuple(hand), deck=state.deck[take:])
        if take < len(positions):
            return _with(state, phase=FILL, pending=positions[take:])
        return self._filled(state, positions, state.events)

    def _filled(self, state: DiceState, positions: tuple[int, ...],
                before: tuple[Event, ...]) -> DiceState:
        kind = "draw" if self.cards else "roll"
        data = _frozen({"positions": positions, "hand": self._text(state.hand)})
        seen = Event(kind, state.holder, data, state.holder)
        return _with(state, phase=CLAIM, pending=(), events=(*before, seen))

    def _bid(self, state: DiceState, index: int) -> DiceState:
        blind = state.phase == RESPOND
        holder = state.holder
        event = _new(Event, ("claim", holder, _claim_data(state.space, index, blind), None))
        values = list(state)  # _with, unrolled: the most frequent transition of the game
        receiver = state.receiver  # a chosen receiver takes only the thrower's claim
        if receiver < 0 or state.claim >= 0:
            receiver = next_active(state.active, holder)
        values[_HOLDER:_CLAIMANT + 1] = (receiver, RESPOND, state.hand, index, holder)
        values[_HISTORY:] = ((*state.history, event), (event,))
        return _new(DiceState, values)

    def _challenge(self, state: DiceState) -> DiceState:
        value = self.hand_index(state)
        holds = value >= state.claim
        loser = state.holder if holds else state.claimant
        event = Event("challenge", state.holder, _frozen({
            "claimant": state.claimant, "claim": state.space.claims[state.claim],
            "hand": self._text(state.hand), "value": state.space.claims[value], "holds": holds,
        }))
        return self._point(state, loser, (event,))

    def _point(self, state: DiceState, loser: int, events: tuple[Event, ...]) -> DiceState:
        points = add_to_seat(state.points, loser, 1)
        events = (*events, _new(Event, ("point", loser, _numbered("points", points[loser]), None)))
        state = _with(state, points=points)
        if points[loser] >= int(state.opts["max_points"]):  # type: ignore[call-overload]
            state, out_events = _go_out(state, loser, "points")
            events += out_events
        chooses = state.opts["receiver"] == "loser_chooses" and state.active[loser]
        return self._next_round(state, loser, events, chooses)

    def _next_round(self, state: DiceState, starter: int, events: tuple[Event, ...],
                    chooses: bool = False) -> DiceState:
        if sum(state.active) <= 1:
            over = Event("over")
            return _with(state, phase=OVER, events=(*events, over), holder=-1)
        if not state.active[starter]:
            starter = next_active(state.active, starter)
        return _with(state, phase=DEAL, thrower=starter, holder=starter, events=events,
                     pending=(), receiver=CHOOSES if chooses else LEFT)

    # --- faults -----------------------------------------------------------------------

    def fault(self, state: DiceState, seat: int, outside: bool = False) -> DiceState:
        """Apply the on_fault policy to a seat that faulted, on its decision or (`outside` it)
        while another seat's decision is pending: either way the round in progress is
        abandoned."""
        if not state.active[seat] or state.phase in (DEAL, FILL, OVER):
            raise RulesError(f"seat {seat} has no decision to fault on")
        faults = add_to_seat(state.faults, seat, 1)
        state = _with(state, faults=faults)
        limit = int(state.opts["max_faults"])  # type: ignore[call-overload]
        if state.opts["on_fault"] == "penalty" and faults[seat] < limit:
            penalty = Event("penalty", seat, _frozen({"faults": faults[seat]}))
            return self._point(state, seat, (penalty,))
        state, events = _go_out(state, seat, "forfeit")
        return self._next_round(state, seat, events)


def in_order(positions: tuple[int, ...]) -> tuple[int, ...]:
    """Reroll positions in increasing order (most arrive so already)."""
    return positions if positions in SORTED_POSITIONS else tuple(sorted(positions))


def _go_out(state: DiceState, seat: int, reason: str) -> tuple[DiceState, tuple[Event, ...]]:
    active, out, event = seat_out(state.active, state.out, seat, reason)
    return _with(state, active=active, out=out), (event,)
