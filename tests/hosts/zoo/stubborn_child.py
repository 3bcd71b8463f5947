"""Zoo: starts a helper that ignores SIGTERM, then sleeps on its decision (expected fault:
timeout; neither the bot nor the helper may survive)."""

from __future__ import annotations

import subprocess
import sys
import time

import arena

HELPER = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"


class StubbornChild(arena.Bot):
    name = "zoo-stubborn-child"

    def act(self, observation: arena.Observation) -> arena.Action:
        subprocess.Popen([sys.executable, "-c", HELPER])
        time.sleep(3600)
        raise AssertionError("woke up")
