"""Zoo: at import (while the start gate is open, so the sandbox spares it between games),
starts a helper that leaves the bot's session, drops the environment (no token finds it) and
names itself with the marker in its option-free argv; then plays fairly and exits cleanly at
shutdown. The helper must not outlive the bot (tests/hosts/test_clean_exit.py)."""

from __future__ import annotations

import os
import sys
import time

import arena

MARKER = "arena-zoo-vanisher-helper"


def _vanish() -> None:
    """A grandchild in its own session with an empty environment, sleeping for an hour."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600)",
                                       MARKER], {})
        os._exit(0)
    os.wait()
    time.sleep(0.05)  # let it reach its exec first


_vanish()


class Vanisher(arena.Bot):
    name = "zoo-vanisher"

    def act(self, observation: arena.Observation) -> arena.Action:
        return arena.random_action(observation.legal, self.rng)
