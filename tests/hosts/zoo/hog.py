"""Zoo: a CPU hog with helpers. On its first decision it starts `helpers` processes, each in
its own session (setsid, double fork, so no process-group kill or wait reaches it), that
spin for ever (with a `delay`: from `delay` seconds after every helper is started, while the
others play, however long the forks took on a busy machine); it answers every decision at
once, so its own time looks clean (expected: the CPU its helpers burn is billed to it, and
the opponents are not starved into timeouts)."""

from __future__ import annotations

import os
import time
from types import MappingProxyType

import arena
from arena.rules.playout import random_action

GO = os.pipe()
"""The helpers' starting signal, made at import: a sandboxed bot may make no pipe mid-game."""


def _spin_in_own_session(delay: float, go: tuple[int, int] | None) -> None:
    """Start one helper that leaves the bot's session and spins: at once, or `delay`
    seconds after the pipe `go` is closed (its read end reaches end of file)."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            if go is not None:
                os.close(go[1])
                os.read(go[0], 1)  # end of file: every helper is started
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
            delay = self.settings["delay"]
            go = GO if delay else None
            for _ in range(self.settings["helpers"]):
                _spin_in_own_session(delay, go)
            if go is not None:
                os.close(go[0])
                os.close(go[1])  # the helpers' delay starts now
        return random_action(observation.legal, self.rng)
