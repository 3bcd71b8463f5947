"""Zoo: a legal player that starts a sleeping helper process on every decision and never
stops it (expected: no fault; the helpers are killed at the end of the game)."""

from __future__ import annotations

import os
import sys

import arena
from arena.rules.playout import random_action

SLEEPER = [sys.executable, "-I", "-S", "-c", "import time; time.sleep(3600)"]
"""A helper that only sleeps: a Python without its site (-S: 10 ms of CPU to start, not 45,
on every decision); what is tested is that it is stopped, not what it loaded."""


class Forker(arena.Bot):
    name = "zoo-forker"

    def act(self, observation: arena.Observation) -> arena.Action:
        # posix_spawn makes no pipe (subprocess does: a sandboxed bot may make none mid-game)
        helper = os.posix_spawn(sys.executable, SLEEPER, os.environ)
        sys.stderr.write(f"HELPER {helper}\n")
        sys.stderr.flush()
        return random_action(observation.legal, self.rng)
