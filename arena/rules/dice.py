"""Póker Mentiroso: the `dice` rule set and its card variation `dice-cards` (one engine):
its options and description, whose turn it is, what is legal, what each seat sees, the result.

PURE: no I/O, no clocks, no global random. States are immutable named tuples (cheaper to
copy than frozen dataclasses on this hot path); claims are indexes into the claim space.
The state and how it moves (chance, transitions, faults) are `arena.rules.dice_play`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from arena import hands
from arena.rules.actions import Bid, Challenge, Choose, Look, Reroll
from arena.rules.base import CHANCE, TERMINAL, Observation, OptionSpec, Result, RulesError
from arena.rules.dice_play import (
    CHOOSE,
    CLAIM,
    DEAL,
    EXCHANGE,
    FILL,
    LEFT,
    OVER,
    REROLL,
    RESPOND,
    DicePlay,
    DiceState,
    in_order,
)
from arena.rules.engine import FAULT_OPTIONS, Engine, place_by_out_order, with_defaults
from arena.rules.legal import Decision, Legal

_DECISION: dict[int, Decision] = {EXCHANGE: "reroll", CLAIM: "claim", RESPOND: "respond",
                                  REROLL: "reroll", CHOOSE: "choose"}
_SEEN = (EXCHANGE, CLAIM, REROLL, CHOOSE)  # phases in which the holder is looking at the hand
_OPTIONAL = frozenset((EXCHANGE, REROLL, CHOOSE))  # phases whose Legal a rule option changes
_ALL_POSITIONS: tuple[int, ...] = (0, 1, 2, 3, 4)
_POSITIONS = tuple(_ALL_POSITIONS[:dice] for dice in range(6))  # by dice under the cup
_new = tuple.__new__
_DICE_EVENTS = ("round", "roll", "look", "see", "reroll", "claim", "challenge", "point",
                "choose", "penalty", "out", "over")
_DICE_CARDS_EVENTS = ("round", "deal", "draw", "look", "see", "reroll", "reshuffle", "claim",
                      "challenge", "point", "choose", "penalty", "out", "over")


class DiceRules(DicePlay, Engine):
    """The dice engine; `cards=True` plays the variation with 5 cards from a 52-card deck.

    A plugin may build a variant under its own `id` with other option `defaults`, e.g.
    `DiceRules(cards=False, id="dice-short", defaults={"max_points": 3})`."""

    min_players = 2
    max_players = 6

    def __init__(self, cards: bool, id: str | None = None,
                 defaults: Mapping[str, object] | None = None) -> None:
        self.cards = cards
        self.id = id or ("dice-cards" if cards else "dice")
        self.version = 1
        self.option_specs = with_defaults(self._specs(cards), defaults or {})
        self.description = self.describe(
            hands.CARDS if cards else hands.DICE, False, "penalty points",
            ("claim", "respond", "reroll", "choose"),
            "the five cards, seen only by the player holding them" if cards
            else "the dice under the cup, seen only by the player looking at them",
        )
        self.event_kinds = _DICE_CARDS_EVENTS if cards else _DICE_EVENTS
        """Every kind of event a game can show a seat (docs/writing-a-bot.md, Events)."""
        self._legal_cache: dict[int, Legal] = {}
        self._init_caches()

    @staticmethod
    def _specs(cards: bool) -> tuple[OptionSpec, ...]:
        reduced = () if cards else (
            OptionSpec("dice", 5, "dice under the cup (fewer: a reduced game)",
                       choices=(1, 2, 3, 4, 5), quiet=True),
            OptionSpec("faces", 6, "faces of a die, the top of 9 T J Q K A (4: J Q K A)",
                       choices=(2, 3, 4, 5, 6), quiet=True),
        )
        return (
            OptionSpec("max_points", 5, "penalty points that put a player out", minimum=1),
            OptionSpec("receiver", "left", "who gets the thrower's claim: the next player, "
                       "or the loser's choice", choices=("left", "loser_chooses")),
            OptionSpec("look_must_reroll", False, "a receiver who looks must reroll at least "
                       "one die", choices=(False, True)),
            OptionSpec("reroll_once_per", "turn", "each die rerolled at most once by a player "
                       "per turn, or per round", choices=("turn", "round")),
            *FAULT_OPTIONS,
            *reduced,
        )

    def _init_caches(self) -> None:
        self._memo: tuple[object, Legal] = (None, Legal("wait", hands.claim_space(hands.DICE), 0))
        self._index_cache: dict[int, dict[tuple[int, ...], int]] = {}
        self._steps: dict[type, Callable[[DiceState, Any], DiceState]] = {
            Bid: self._claim,
            Challenge: lambda state, action: self._challenge(state),
            Look: self._look,
            Choose: self._choose,
            Reroll: lambda state, action: self._reroll(state, in_order(action.positions)),
        }

    # --- setup ------------------------------------------------------------------------

    def new_game(self, players: int, options: Mapping[str, object] | None = None) -> DiceState:
        """Return the first state: seat 0 is about to throw."""
        self.check_players(players)
        opts = self.check_options(options)
        kind = hands.CARDS if self.cards else hands.DICE
        space = hands.claim_space(kind, bool(opts["straight_over_full"]),
                                  int(opts.get("dice", 5)), int(opts.get("faces", 6)))
        zeros = (0,) * players
        return DiceState(opts, space, zeros, (True,) * players, (), zeros, 0, 0, DEAL,
                         (), -1, -1, (), (), (), 0, LEFT, zeros, (), ())

    # --- queries ----------------------------------------------------------------------

    def to_act(self, state: DiceState) -> int:
        """Return the seat to act, CHANCE, or TERMINAL."""
        phase = state.phase
        if phase == OVER:
            return TERMINAL
        return CHANCE if phase <= FILL else state.holder

    def is_over(self, state: DiceState) -> bool:
        """Whether the game has ended."""
        return state.phase == OVER

    def legal(self, state: DiceState) -> Legal:
        """Return what the holder may do now (asked twice per decision: by observe, by apply)."""
        memo = self._memo
        if memo[0] is state:
            return memo[1]
        phase = state.phase
        key = (phase << 10) | ((state.claim + 1) << 1) | state.space.code
        legal = self._legal_cache.get(key) or self._legal_at(phase, state)  # _legal_at in line
        if phase in _OPTIONAL:
            legal = self._optional_legal(phase, state, legal)
        self._memo = (state, legal)
        return legal

    def _optional_legal(self, phase: int, state: DiceState, legal: Legal) -> Legal:
        """The Legal of a reroll or a choice, as the rule options shape it."""
        if phase == CHOOSE:
            seats = tuple(s for s, a in enumerate(state.active) if a and s != state.holder)
            return Legal(legal.decision, legal.space, legal.min_index, seats=seats)
        rerollable = _POSITIONS[len(state.hand)]
        if state.opts["reroll_once_per"] == "round":
            done = state.rerolled[state.holder]
            rerollable = tuple(p for p in rerollable if not done >> p & 1)
        must = phase == REROLL and state.opts["look_must_reroll"] is True
        if rerollable == _ALL_POSITIONS and not must:
            return legal
        return Legal(legal.decision, legal.space, legal.min_index, (), rerollable, must)

    def _legal_at(self, phase: int, state: DiceState) -> Legal:
        """The Legal of a phase at this claim, built once per (phase, claim, order)."""
        key = (phase << 10) | ((state.claim + 1) << 1) | state.space.code
        legal = self._legal_cache.get(key)
        if legal is None:
            decision = _DECISION.get(phase, "wait")
            legal = self._legal_cache[key] = Legal(decision, state.space, state.claim + 1)
        return legal

    def observe(self, state: DiceState, seat: int) -> Observation:
        """Return what one seat may know: the hand only while that seat is looking at it."""
        acting = seat == state.holder and state.phase in _SEEN
        legal = self.legal(state) if seat == state.holder else self._legal_at(OVER, state)
        claim = state.space.claims[state.claim] if state.claim >= 0 else None
        return _new(Observation, (  # tuple.__new__: half the cost of the class call
            self.id, seat, legal, claim, state.claimant if state.claimant >= 0 else None,
            self._text(state.hand) if acting else None, state.points, state.active,
            state.history, None, None, None,
        ))

    def result(self, state: DiceState) -> Result:
        """Return placements: the last player in wins, the others in reverse order of going out."""
        if state.phase != OVER:
            raise RulesError("the game is not over")
        still_in = [[s for s, a in enumerate(state.active) if a]]
        placements = place_by_out_order(len(state.points), still_in, state.out)
        return Result(placements, state.points, state.out)


DICE = DiceRules(cards=False)
DICE_CARDS = DiceRules(cards=True)
