"""The fixed enumeration of a game's actions as OpenSpiel integer ids, and back to arena's
actions: one layout per game config, so a policy's action ids mean the same in every state.

dice and dice-cards: 0 challenge, 1 look, 2..33 reroll (the id minus 2 is the bit mask of the
positions), then one `choose` per seat, then one claim per claim of the game's claim space.
cards: 0 challenge (reject), 1 accept, 2..26 swap (own, central) = 5*own + central, 27..31
reveal a central position, then one claim per claim: a turn is its swaps, then its reveals
(each in increasing id, so each legal pass is one sequence), then the claim that passes.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.hands import ClaimSpace
from arena.rules.actions import Accept, Action, Bid, Challenge, Choose, Look, Pass, Reroll

CHALLENGE, RESPOND = 0, 1
REROLL = 2
SWAP, REVEAL = 2, 27
_SWAP_PAIRS = tuple((own, central) for own in range(5) for central in range(5))


@dataclass(frozen=True, slots=True)
class Layout:
    """The action ids of one game: its claim space, its seats, and whether it is `cards`."""

    space: ClaimSpace
    players: int
    central: bool

    @property
    def claim_base(self) -> int:
        """The id of the lowest claim."""
        return REVEAL + 5 if self.central else REROLL + 32 + self.players

    @property
    def size(self) -> int:
        """How many distinct actions the game has."""
        return self.claim_base + len(self.space.claims)

    def claim_id(self, index: int) -> int:
        """The id of the claim at this index of the claim space."""
        return self.claim_base + index

    def id_of(self, action: Action) -> int:
        """The id of one of arena's actions (a `cards` pass is several ids: `steps_of`)."""
        if isinstance(action, Challenge):
            return CHALLENGE
        if isinstance(action, Look | Accept):
            return RESPOND
        if isinstance(action, Reroll):
            return REROLL + sum(1 << p for p in action.positions)
        if isinstance(action, Choose):
            return REROLL + 32 + action.seat
        if isinstance(action, Bid):
            index = self.space.find(action.claim)
            assert index is not None
            return self.claim_id(index)
        raise ValueError(f"{action} is not one action id: a pass is its steps")

    def steps_of(self, action: Pass) -> list[int]:
        """The ids of a `cards` pass: its swaps, its reveals, then its claim."""
        swaps = sorted(SWAP + 5 * own + central for own, central in action.swaps)
        reveals = sorted(REVEAL + p for p in action.reveal)
        index = self.space.find(action.claim)
        assert index is not None
        return [*swaps, *reveals, self.claim_id(index)]

    def action_of(self, action_id: int) -> Action:
        """The arena action of a dice or dice-cards id (a `cards` step is `pass_of`'s)."""
        if action_id == CHALLENGE:
            return Challenge()
        if action_id == RESPOND:
            return Accept() if self.central else Look()
        if action_id >= self.claim_base:
            return Bid(self.space.claims[action_id - self.claim_base])
        if action_id >= REROLL + 32:
            return Choose(action_id - REROLL - 32)
        mask = action_id - REROLL
        return Reroll(tuple(p for p in range(5) if mask >> p & 1))

    def pass_of(self, steps: tuple[int, ...], claim_id: int) -> Pass:
        """The `cards` pass that a turn's swap and reveal steps and its claim make."""
        swaps = tuple(_SWAP_PAIRS[s - SWAP] for s in steps if s < REVEAL)
        reveal = tuple(s - REVEAL for s in steps if s >= REVEAL)
        return Pass(self.space.claims[claim_id - self.claim_base], swaps, reveal)

    def turn_steps(self, steps: tuple[int, ...], face_up: tuple[bool, ...]) -> list[int]:
        """The swap and reveal ids a `cards` turn may take next, after these steps."""
        last = steps[-1] if steps else -1
        swapped = [_SWAP_PAIRS[s - SWAP] for s in steps if s < REVEAL]
        owns = {own for own, _ in swapped}
        centrals = {central for _, central in swapped}
        out = [SWAP + i for i, (own, central) in enumerate(_SWAP_PAIRS)
               if SWAP + i > last and own not in owns and central not in centrals]
        out += [REVEAL + p for p in range(5)
                if REVEAL + p > last and (not face_up[p] or p in centrals)]
        return out

    def text(self, action_id: int) -> str:
        """An action id in words, as arena writes the action."""
        if self.central and action_id < self.claim_base and action_id > RESPOND:
            if action_id >= REVEAL:
                return f"reveal {action_id - REVEAL}"
            own, central = _SWAP_PAIRS[action_id - SWAP]
            return f"swap {own}-{central}"
        if self.central and action_id >= self.claim_base:
            return f"pass {self.space.claims[action_id - self.claim_base]}"
        return str(self.action_of(action_id))
