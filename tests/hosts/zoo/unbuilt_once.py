"""Zoo: its constructor raises the first time it runs in a process, then builds and plays on
legally (a bot that could not be built is built again at its next decision)."""

from __future__ import annotations

import arena
from arena.rules.playout import random_action

BUILT = [0]


class UnbuiltOnce(arena.Bot):
    name = "zoo-unbuilt-once"

    def __init__(self, context: arena.BotContext) -> None:
        super().__init__(context)
        BUILT[0] += 1
        if BUILT[0] == 1:
            raise RuntimeError("boom once in __init__")

    def act(self, observation: arena.Observation) -> arena.Action:
        return random_action(observation.legal, self.rng)
