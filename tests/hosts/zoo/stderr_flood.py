"""Zoo: writes 1 MiB to stderr on every decision (16 times a pipe's buffer) and then plays
legally (expected: no fault; the referee drains stderr and keeps only a bounded tail)."""

from __future__ import annotations

import sys

import arena
from arena.rules.playout import random_action


class StderrFlood(arena.Bot):
    name = "zoo-stderr-flood"

    def act(self, observation: arena.Observation) -> arena.Action:
        chunk = "flood " * 10_000 + "\n"
        for _ in range((1 << 20) // len(chunk) + 1):
            sys.stderr.write(chunk)
        sys.stderr.write("last words of the flood\n")
        sys.stderr.flush()
        return random_action(observation.legal, self.rng)
