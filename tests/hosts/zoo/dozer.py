"""Zoo: sleeps `nap` seconds on every decision, using no CPU, then plays legally (for pauses:
a referee stopped while this bot is well within its limits must not fault it)."""

from __future__ import annotations

import time
from types import MappingProxyType

import arena
from arena.rules.playout import random_action


class Dozer(arena.Bot):
    name = "zoo-dozer"
    options = MappingProxyType({"nap": 0.05})

    def act(self, observation: arena.Observation) -> arena.Action:
        time.sleep(self.settings["nap"])
        return random_action(observation.legal, self.rng)
