"""Zoo: exits with code 3 in the middle of a decision (expected fault: crash, 'code 3')."""

from __future__ import annotations

import os

import arena


class Exiter(arena.Bot):
    name = "zoo-exiter"

    def act(self, observation: arena.Observation) -> arena.Action:
        os._exit(3)
