"""Zoo: memory in many hands. On its first decision it forks `children` processes that each
fill `each` MiB and hold it, waits until they all hold it (or died), writes "HELD <MiB>" to
stderr, then plays on (expected: the bot's cgroup caps the total; the fault says memory limit)."""

from __future__ import annotations

import os
import sys
import time
from types import MappingProxyType

import arena
from arena.rules.playout import random_action

HELD = os.pipe()
"""Where the children say they hold their share, made at import: a sandboxed bot may make
no pipe mid-game."""


def _hold(size: int, done: int) -> None:
    """In a child: fill `size` bytes, say so on the pipe, and keep them."""
    hoard = bytearray(size)
    for at in range(0, size, 4096):
        hoard[at] = 1
    os.write(done, b"x")
    time.sleep(3600)
    os._exit(len(hoard) & 1)


class Hoarder(arena.Bot):
    name = "zoo-hoarder"
    options = MappingProxyType({"children": 9, "each": 100})

    def act(self, observation: arena.Observation) -> arena.Action:
        if not getattr(self, "held", False):
            self.held = True
            size = self.settings["each"] << 20
            read, write = HELD
            for _ in range(self.settings["children"]):
                if os.fork() == 0:
                    os.close(read)
                    _hold(size, write)
            os.close(write)
            holding = 0
            while os.read(read, 1):  # ends when every child has held its share or died
                holding += 1
                if holding == self.settings["children"]:
                    break
            sys.stderr.write(f"HELD {holding * self.settings['each']} MiB\n")
            sys.stderr.flush()
        return random_action(observation.legal, self.rng)
