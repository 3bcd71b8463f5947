"""Zoo: raises an exception on its first decision (expected fault: crash, naming the error)."""

from __future__ import annotations

import arena


class Raiser(arena.Bot):
    name = "zoo-raiser"

    def act(self, observation: arena.Observation) -> arena.Action:
        raise ValueError("the zoo raiser gives up")
