"""Zoo: spins in a pure-Python loop forever (expected fault: timeout, billed in CPU time)."""

from __future__ import annotations

import arena


class Spinner(arena.Bot):
    name = "zoo-spinner"

    def act(self, observation: arena.Observation) -> arena.Action:
        while True:
            pass
