"""What a seat sees, as OpenSpiel strings and tensors, built from arena's own Observation for
that seat (the observation) and from every event arena showed it (the information state).

The strings are exact: the observation string is arena's Observation in words, the
information-state string every event the seat was shown since the game began (its own
actions among them) plus the `cards` turn it is building. The tensors are fixed-size and
reveal nothing more: the Observation's fields, this round's claims by seat, and for the
information state the last private hand (dice) or central hand (cards) the seat was shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyspiel  # type: ignore[import-not-found, unused-ignore]

from arena.ecosystem.encoding import marks, observation_text, pieces

if TYPE_CHECKING:
    from arena.openspiel.game import ArenaGame
    from arena.openspiel.state import ArenaState


class ArenaObserver:
    """OpenSpiel's PyObserver interface over arena's observations (see kuhn_poker.py)."""

    def __init__(self, game: ArenaGame, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        self.game = game
        self.recall = bool(iig_obs_type.perfect_recall)
        self.factored = not (iig_obs_type.public_info and iig_obs_type.private_info
                             == pyspiel.PrivateInfoType.SINGLE_PLAYER)
        """A public-only or private-only view, which these games do not provide."""
        shapes = [] if self.factored else pieces(
            game.players, len(game.layout.space.claims), game.tokens, game.layout.central,
            self.recall)
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in shapes), np.float32)
        self.dict: dict[str, Any] = {}
        start = 0
        for name, shape in shapes:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[start:start + size].reshape(shape)
            start += size

    def set_from(self, state: ArenaState, player: int) -> None:
        """Fill the tensor with what `player` sees in `state`."""
        self.tensor.fill(0)
        if self.factored:
            return
        memory = state.now.memory[player] if self.recall else ()
        for name, index, value in marks(state.observation_of(player), self.game.layout.space,
                                        self.game.hand_cards, state.turn_of(player), memory):
            self.dict[name][index] = value

    def string_from(self, state: ArenaState, player: int) -> str | None:
        """The information-state string (every event shown) or the observation string."""
        if self.factored:
            return None
        steps = state.turn_of(player)
        turn = ("turn " + ", ".join(state.arena.layout.text(s) for s in steps)) if steps else ""
        if self.recall:
            return "\n".join([f"seat {player}", *state.now.seen[player], *filter(None, [turn])])
        return observation_text(state.observation_of(player), turn)


def make_observer(game: ArenaGame, iig_obs_type: Any = None, params: Any = None) -> ArenaObserver:
    """An observer: the observation by default, the information state with perfect recall."""
    kind = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
    return ArenaObserver(game, kind, params)
