"""Zoo: raises in notify exactly once (at its third event), then plays on legally (one
exception must cost one fault, wherever the bot runs)."""

from __future__ import annotations

import arena
from arena.rules.playout import random_action


class DeafOnce(arena.Bot):
    name = "zoo-deaf-once"

    def __init__(self, context: arena.BotContext) -> None:
        super().__init__(context)
        self.heard = 0

    def notify(self, event: arena.Event) -> None:
        self.heard += 1
        if self.heard == 3:
            raise RuntimeError("boom once in notify")

    def act(self, observation: arena.Observation) -> arena.Action:
        return random_action(observation.legal, self.rng)
