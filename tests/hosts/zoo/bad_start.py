"""Zoo: raises in start() (once: it is called once a game), then plays on legally (one
exception must cost one fault, wherever the bot runs)."""

from __future__ import annotations

import arena
from arena.rules.playout import random_action


class BadStart(arena.Bot):
    name = "zoo-bad-start"

    def start(self, context: arena.BotContext) -> None:
        raise RuntimeError("boom once in start")

    def act(self, observation: arena.Observation) -> arena.Action:
        return random_action(observation.legal, self.rng)
