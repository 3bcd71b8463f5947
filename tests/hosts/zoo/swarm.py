"""Zoo: forks `forks` sleeping children on its first decision, counting the forks that
succeed, writes "FORKED <n>" to stderr and plays on (as root RLIMIT_NPROC does not hold;
expected: the cgroup's task limit refuses the rest, and the fault says so)."""

from __future__ import annotations

import os
import sys
import time
from types import MappingProxyType

import arena
from arena.rules.playout import random_action


class Swarm(arena.Bot):
    name = "zoo-swarm"
    options = MappingProxyType({"forks": 300})

    def act(self, observation: arena.Observation) -> arena.Action:
        if not getattr(self, "forked", False):
            self.forked = True
            made = 0
            for _ in range(self.settings["forks"]):
                try:
                    pid = os.fork()
                except OSError:
                    continue
                if pid == 0:
                    time.sleep(3600)
                    os._exit(0)
                made += 1
            sys.stderr.write(f"FORKED {made}\n")
            sys.stderr.flush()
        return random_action(observation.legal, self.rng)
