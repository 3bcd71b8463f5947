"""Zoo: sleeps for an hour on its decision, using no CPU (expected fault: timeout, caught by
its wall-clock limit)."""

from __future__ import annotations

import time

import arena


class Sleeper(arena.Bot):
    name = "zoo-sleeper"

    def act(self, observation: arena.Observation) -> arena.Action:
        time.sleep(3600)
        raise AssertionError("woke up")
