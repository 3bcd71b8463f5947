"""Zoo: a well-behaved Python bot that first reports its surroundings (folder, environment,
limits, pid, path, the builtins `site` adds) on stderr as `INSPECT {json}`, then plays legally."""

from __future__ import annotations

import builtins
import json
import os
import resource
import sys

import arena
from arena.rules.playout import random_action

SITE_BUILTINS = ("copyright", "credits", "exit", "help", "license", "quit")
NAMES = ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC",
         "RLIMIT_CORE")


class Inspector(arena.Bot):
    name = "zoo-inspector"

    def start(self, context: arena.BotContext) -> None:
        report = {
            "cwd": os.getcwd(), "files": os.listdir("."), "env": sorted(os.environ),
            "limits": {n: resource.getrlimit(getattr(resource, n)) for n in NAMES},
            "pid": os.getpid(), "parent": os.getppid(),
            "session": os.getsid(0) == os.getpid() or os.getpid() == 1,
            "path": sys.path, "site_builtins": sorted(n for n in SITE_BUILTINS
                                                      if hasattr(builtins, n)),
        }
        sys.stderr.write("INSPECT " + json.dumps(report) + "\n")
        sys.stderr.flush()

    def act(self, observation: arena.Observation) -> arena.Action:
        return random_action(observation.legal, self.rng)
