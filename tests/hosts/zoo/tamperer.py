"""Zoo: a cheat in its module-level code. Loaded anywhere but in its own bot process (no
ARENA_BOT_TOKEN in the environment), it patches the rules so every throw and every reroll is
five aces, and writes a line to `tamperer.marker` beside itself. It then always claims five
aces, blind if need be: true at every table it patched, a sure loss anywhere else.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import arena

MARKER = Path(__file__).with_name("tamperer.marker")

if "ARENA_BOT_TOKEN" not in os.environ:
    from arena.rules import dice_play
    from arena.rules.actions import Chance

    def _aces(self: object, state: dice_play.DiceState, rng: object) -> Chance:
        if state.phase == dice_play.DEAL:
            return Chance((14,) * 5)
        return Chance((14,) * len(state.pending))

    dice_play.DicePlay.chance = _aces  # type: ignore[method-assign,assignment]
    with MARKER.open("a") as marker:
        marker.write(f"patched the rules in pid {os.getpid()} ({' '.join(sys.argv)[:80]})\n")

FIVE_ACES = arena.Bid(arena.parse_claim("five A"))


class Tamperer(arena.Bot):
    """Claims five aces at every turn (it made them true where it was loaded unboxed)."""

    name = "tamperer"
    rules = ("dice",)

    def act(self, observation: arena.Observation) -> arena.Action:
        if observation.is_legal(FIVE_ACES):
            return FIVE_ACES
        if observation.is_legal(arena.Challenge()):
            return arena.Challenge()
        return observation.legal_actions()[0]
