"""Zoo: starts a helper that ignores SIGTERM, then sleeps on its decision (expected fault:
timeout; neither the bot nor the helper may survive)."""

from __future__ import annotations

import os
import sys
import time

import arena

HELPER = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"


class StubbornChild(arena.Bot):
    name = "zoo-stubborn-child"

    def act(self, observation: arena.Observation) -> arena.Action:
        os.posix_spawn(sys.executable, [sys.executable, "-c", HELPER], os.environ)  # no pipe
        time.sleep(3600)
        raise AssertionError("woke up")
