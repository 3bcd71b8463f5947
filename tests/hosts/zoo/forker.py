"""Zoo: a legal player that starts a sleeping helper process on every decision and never
stops it (expected: no fault; the helpers are killed at the end of the game)."""

from __future__ import annotations

import subprocess
import sys

import arena
from arena.rules.playout import random_action


class Forker(arena.Bot):
    name = "zoo-forker"

    def act(self, observation: arena.Observation) -> arena.Action:
        helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        sys.stderr.write(f"HELPER {helper.pid}\n")
        sys.stderr.flush()
        return random_action(observation.legal, self.rng)
