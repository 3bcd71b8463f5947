"""Zoo: sleeps `nap` seconds on its first decision, using no CPU, then plays legally (for the
wall-clock limit: a sleeping bot is stopped at `limit × wall_factor` in every host)."""

from __future__ import annotations

import time
from types import MappingProxyType

import arena
from arena.rules.playout import random_action


class Napper(arena.Bot):
    name = "zoo-napper"
    options = MappingProxyType({"nap": 0.1})

    def __init__(self, context: arena.BotContext) -> None:
        super().__init__(context)
        self.napped = False

    def act(self, observation: arena.Observation) -> arena.Action:
        if not self.napped:
            self.napped = True
            time.sleep(self.settings["nap"])
        return random_action(observation.legal, self.rng)
