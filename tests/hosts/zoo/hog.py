"""Zoo: a CPU hog with helpers. On its first decision it starts `helpers` processes, each in
its own session (setsid, double fork, so no process-group kill or wait reaches it), that
spin for ever (after `delay` seconds: while the others play); it answers every decision at
once, so its own time looks clean (expected: the CPU its helpers burn is billed to it, and
the opponents are not starved into timeouts)."""

from __future__ import annotations

import os
import time
from types import MappingProxyType

import arena
from arena.rules.playout import random_action


def _spin_in_own_session(delay: float) -> None:
    """Start one helper that leaves the bot's session and spins."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(delay)
            while True:
                pass
        os._exit(0)
    os.wait()


class Hog(arena.Bot):
    name = "zoo-hog"
    options = MappingProxyType({"helpers": 40, "delay": 0.0})

    def act(self, observation: arena.Observation) -> arena.Action:
        if not getattr(self, "started", False):
            self.started = True
            for _ in range(self.settings["helpers"]):
                _spin_in_own_session(self.settings["delay"])
        return random_action(observation.legal, self.rng)
