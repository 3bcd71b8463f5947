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

from arena.hands import RANK_TEXT, card_id
from arena.openspiel.layout import SWAP
from arena.rules.base import Observation
from arena.rules.legal import DECISIONS

if TYPE_CHECKING:
    from arena.openspiel.game import ArenaGame
    from arena.openspiel.state import ArenaState


def observation_text(obs: Observation, steps: str) -> str:
    """arena's Observation for one seat, in words, one field a line."""
    claim = f"claim {obs.claim} by seat {obs.claimant}" if obs.claim else "no claim"
    lines = [f"seat {obs.seat}, decision {obs.decision}", claim,
             "hand " + (" ".join(obs.hand) if obs.hand else "unseen"),
             "scores " + " ".join(map(str, obs.scores)),
             "active " + " ".join("1" if a else "0" for a in obs.active)]
    if obs.central is not None:
        lines.append("central " + " ".join(c or "?" for c in obs.central)
                     + f", draw pile {obs.draw_pile}")
    lines.append("history " + " | ".join(str(e) for e in obs.history))
    return "\n".join([*lines, steps] if steps else lines)


def token_index(text: str, cards: bool) -> int:
    """A die face 0..5 (9..A) or a card number 0..51, from arena's text of it."""
    return card_id(text) if cards else RANK_TEXT.index(text) - 7


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
        n, claims, tokens = game.players, len(game.layout.space.claims), game.tokens
        pieces = [("seat", (n,)), ("decision", (len(DECISIONS),)), ("claim", (claims + 1,)),
                  ("claimant", (n + 1,)), ("hand", (5, tokens)), ("scores", (n,)),
                  ("active", (n,)), ("round_claims", (n, claims))]
        if game.layout.central:
            pieces += [("central", (5, 52)), ("face_up", (5,)), ("draw_pile", (1,)),
                       ("turn", (30,))]
        if self.recall:
            pieces.append(("last_seen", (5, tokens)))
        if self.factored:
            pieces = []
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
        self.dict: dict[str, Any] = {}
        start = 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[start:start + size].reshape(shape)
            start += size

    def set_from(self, state: ArenaState, player: int) -> None:
        """Fill the tensor with what `player` sees in `state`."""
        self.tensor.fill(0)
        if self.factored:
            return
        obs, d, space = state.observation_of(player), self.dict, self.game.layout.space
        d["seat"][player] = 1
        d["decision"][DECISIONS.index(obs.decision)] = 1
        d["claim"][-1 if obs.claim is None else space.find(obs.claim)] = 1
        d["claimant"][-1 if obs.claimant is None else obs.claimant] = 1
        for position, token in enumerate(obs.hand or ()):
            d["hand"][position, token_index(token, self.game.hand_cards)] = 1
        d["scores"][:] = obs.scores
        d["active"][:] = obs.active
        for event in obs.history:
            if event.kind in ("claim", "pass") and event.seat is not None:
                d["round_claims"][event.seat, space.find(event.data["claim"])] = 1
        if "central" in d:
            for position, card in enumerate(obs.central or ()):
                if card is not None:
                    d["central"][position, card_id(card)] = 1
            d["face_up"][:] = obs.face_up or (False,) * 5
            d["draw_pile"][0] = obs.draw_pile or 0
            for step in state.turn_of(player):
                d["turn"][step - SWAP] = 1
        if "last_seen" in d:
            for position, token in enumerate(state.now.memory[player]):
                d["last_seen"][position, token_index(token, self.game.hand_cards)] = 1

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
