"""One OpenSpiel state over one of arena's immutable game states: arena's rules decide what
is legal, what happens and who sees what; this only maps ids to actions and spreads arena's
chance outcomes (a throw of several dice, the order of a deck) over one chance node each.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import pyspiel  # type: ignore[import-not-found, unused-ignore]

from arena.ecosystem import utilities
from arena.hands import card_text, die_text
from arena.rules import CHANCE, TERMINAL
from arena.rules.actions import Action, Chance
from arena.rules.base import Observation
from arena.rules.cards import CardsState
from arena.rules.dice_play import DEAL

if TYPE_CHECKING:
    from arena.openspiel.game import ArenaGame

_DECK = tuple(range(52))


@dataclass(frozen=True, slots=True)
class Moment:
    """Everything a state holds, immutable: OpenSpiel's clone deep-copies, this shares."""

    game: ArenaGame
    """The game's config (held here: a clone deep-copies the state's own attributes)."""
    game_state: Any
    """arena's state (a DiceState or CardsState)."""
    seen: tuple[tuple[str, ...], ...]
    """By seat: every event arena showed that seat, in arena's words, oldest first."""
    memory: tuple[tuple[str, ...], ...]
    """By seat: the last private hand (dice) or central hand (cards) it was shown."""
    drawn: tuple[int, ...] = ()
    """Chance outcomes gathered so far toward arena's pending chance outcome."""
    steps: tuple[int, ...] = ()
    """`cards`: the swap and reveal ids of the turn being built."""

    actions: tuple[int, ...] = ()
    """Every OpenSpiel action (chance outcomes among them) since the game began."""

    def __deepcopy__(self, memo: dict[int, object]) -> Moment:
        return self

    def __reduce__(self) -> tuple[Any, tuple[str, tuple[int, ...]]]:
        """Pickled as the game and its actions (what OpenSpiel's serialization keeps)."""
        return _replayed, (str(self.game), self.actions)


def _replayed(game: str, actions: tuple[int, ...]) -> Moment:
    """The moment after these actions in a new game of this config."""
    state = pyspiel.load_game(game).new_initial_state()
    for action in actions:
        state.apply_action(action)
    moment: Moment = state.now
    return moment


def chance_need(game: ArenaGame, state: Any) -> tuple[int, tuple[int, ...] | None]:
    """How many outcomes arena's pending chance takes and from which cards (None: die faces)."""
    if isinstance(state, CardsState):
        return 52, _DECK
    if not game.hand_cards:
        return (state.space.dice if state.phase == DEAL else len(state.pending)), None
    return (52, _DECK) if state.phase == DEAL else (len(state.discards), state.discards)


class ArenaState(pyspiel.State):  # type: ignore[misc]
    """A game of one of arena's rule sets, as OpenSpiel sees it."""

    def __init__(self, game: ArenaGame) -> None:
        super().__init__(game)
        start = game.rules.new_game(game.players, game.options)
        self.now = Moment(game, start, ((),) * game.players, ((),) * game.players)

    @property
    def arena(self) -> ArenaGame:
        """The game's config: its rules, players, options and action layout."""
        return self.now.game

    # --- who acts, and what they may do ------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, or OpenSpiel's chance or terminal id."""
        seat = self.arena.rules.to_act(self.now.game_state)
        if seat == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        if seat == TERMINAL:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(seat)

    def is_terminal(self) -> bool:
        """Whether arena's game is over."""
        return bool(self.arena.rules.is_over(self.now.game_state))

    def _legal_actions(self, player: int) -> list[int]:
        """arena's legal actions as ids, lowest first (a `cards` turn: its next steps)."""
        layout, legal = self.arena.layout, self.arena.rules.legal(self.now.game_state)
        if legal.decision == "turn":
            steps = layout.turn_steps(self.now.steps, legal.face_up)
            claims = range(layout.claim_id(legal.min_index), layout.size)
            return [*steps, *claims]
        return sorted(layout.id_of(action) for action in legal.actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next die (0..5 for faces 9..A; 0.. for the top faces of a reduced game) or the
        next card of a deck's order, uniform."""
        _, pool = chance_need(self.arena, self.now.game_state)
        if pool is None:
            faces = self.arena.tokens
            return [(face, 1 / faces) for face in range(faces)]
        left = sorted(set(pool) - set(self.now.drawn))
        return [(card, 1 / len(left)) for card in left]

    # --- moves --------------------------------------------------------------------------

    def _apply_action(self, action: int) -> None:
        """A chance outcome, a step of a `cards` turn, or one of arena's actions."""
        now = self.now
        if self.is_chance_node():
            need, pool = chance_need(self.arena, now.game_state)
            drawn = (*now.drawn, action)
            if len(drawn) < need:
                self.now = replace(now, drawn=drawn, actions=(*now.actions, action))
                return
            ranks = self.arena.layout.space.ranks
            outcome = drawn if pool is not None else tuple(ranks[d] for d in drawn)
            self._play(Chance(outcome), action)
            return
        layout = self.arena.layout
        if self.arena.rules.legal(now.game_state).decision == "turn":
            if action < layout.claim_base:
                self.now = replace(now, steps=(*now.steps, action),
                                   actions=(*now.actions, action))
                return
            self._play(layout.pass_of(now.steps, action), action)
            return
        self._play(layout.action_of(action), action)

    def _play(self, action: Action | Chance, action_id: int) -> None:
        """Apply one of arena's actions or chance outcomes; each seat sees its events."""
        rules = self.arena.rules
        after = rules.apply(self.now.game_state, action)
        events = rules.events(after)
        seen = tuple((*log, *(str(e) for e in events if e.to is None or e.to == seat))
                     for seat, log in enumerate(self.now.seen))
        key = "central" if self.arena.layout.central else "hand"
        memory = list(self.now.memory)
        for event in events:
            if event.to is not None and key in event.data:
                memory[event.to] = tuple(event.data[key])
        self.now = Moment(self.now.game, after, seen, tuple(memory),
                         actions=(*self.now.actions, action_id))

    def _action_to_string(self, player: int, action: int) -> str:
        """A die face, a card, or the action in arena's words."""
        if player == pyspiel.PlayerId.CHANCE:
            _, pool = chance_need(self.arena, self.now.game_state)
            if pool is None:
                return f"die {die_text(self.arena.layout.space.ranks[action])}"
            return card_text(action)
        return self.arena.layout.text(action)

    # --- results and what a seat knows -------------------------------------------------

    def returns(self) -> list[float]:
        """Each seat's utility from arena's placements (zero until the game ends)."""
        if not self.is_terminal():
            return [0.0] * self.arena.players
        return utilities(self.arena.rules.result(self.now.game_state).placements)

    def observation_of(self, seat: int) -> Observation:
        """arena's own Observation for the seat."""
        return self.arena.rules.observe(self.now.game_state, seat)

    def turn_of(self, seat: int) -> tuple[int, ...]:
        """The steps of a `cards` turn being built, known only to the seat building it."""
        held = self.arena.rules.to_act(self.now.game_state) == seat
        return self.now.steps if held else ()

    def __str__(self) -> str:
        """Every seat's events, for debugging (OpenSpiel's playthroughs print it)."""
        return "\n".join(f"seat {s}: " + " | ".join(log) for s, log in enumerate(self.now.seen))
