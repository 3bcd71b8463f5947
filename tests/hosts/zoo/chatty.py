"""Zoo: prints to stdout and tries to read stdin on every decision, as careless bots do, then
plays legally (expected: no fault; the launcher sends print() to stderr and input() reads
nothing, so the protocol stays intact)."""

from __future__ import annotations

import sys

import arena
from arena.rules.playout import random_action


class Chatty(arena.Bot):
    name = "zoo-chatty"

    def act(self, observation: arena.Observation) -> arena.Action:
        print(f"thinking about {observation.decision}")
        print('{"type": "action", "turn": 0, "action": {"type": "challenge"}}')
        sys.stdin.read()
        return random_action(observation.legal, self.rng)
