"""Zoo: burns `work` seconds of CPU time on every decision, then plays legally (for the test
under load: a bot within its CPU budget must not be forfeited when the machine is busy)."""

from __future__ import annotations

import time
from types import MappingProxyType

import arena
from arena.rules.playout import random_action


class Burner(arena.Bot):
    name = "zoo-burner"
    options = MappingProxyType({"work": 0.1})

    def act(self, observation: arena.Observation) -> arena.Action:
        until = time.process_time() + self.settings["work"]
        while time.process_time() < until:
            pass
        return random_action(observation.legal, self.rng)
