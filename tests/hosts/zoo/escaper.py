"""Zoo: double-forks a helper into a new session (setsid) that keeps the bot's pipes open, to
escape a process-group kill; then exits (option then="exit", expected fault: crash) or sleeps
(then="sleep", expected fault: timeout). The helper must not survive either way."""

from __future__ import annotations

import os
import time
from types import MappingProxyType

import arena


def _escape() -> None:
    """Leave the bot's session and process group, and outlive the bot."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(3600)
        os._exit(0)


class Escaper(arena.Bot):
    name = "zoo-escaper"
    options = MappingProxyType({"then": "exit"})

    def act(self, observation: arena.Observation) -> arena.Action:
        _escape()
        time.sleep(0.05)  # let the helper reach its own session first
        if self.settings["then"] == "exit":
            os._exit(0)
        time.sleep(3600)
        raise AssertionError("woke up")
