"""Shared pieces of the isolation tests: the zoo's path, small limits, and a game with a zoo
bot in seat 0 (imported by the tests; the leftover check lives in conftest.py)."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from arena import play_game
from arena.bot import Limits
from arena.hosts.pipe import PipeHost, ProcessLimits
from arena.hosts.process_tree import namespace_prefix
from arena.referee import GameRecord, Player

ZOO = Path(__file__).parent / "zoo"
DECISION = 0.3
LIMITS = ProcessLimits(start_timeout=20.0)
HAS_NAMESPACE = bool(namespace_prefix())
NAMESPACES = [False, pytest.param(True, marks=pytest.mark.skipif(
    not HAS_NAMESPACE, reason="unshare cannot make a PID namespace here"))]


def zoo(name: str) -> str:
    """The path of a zoo bot."""
    return str(ZOO / name)


def wire(mode: str) -> list[str]:
    """The command of the raw-protocol zoo bot that misbehaves in this way."""
    return [sys.executable, zoo("wire.py"), mode]


def play_zoo(host: PipeHost, rules: str = "dice", seed: int = 1,
             options: Mapping[str, Any] | None = None, bot_options: Mapping[str, Any] | None = None,
             decision: float = DECISION, wall_factor: float = 2.0) -> GameRecord:
    """A game with the zoo bot in seat 0 against two inline random bots; the host is shut
    down afterwards."""
    player = Player("zoo", host, options=dict(bot_options or {}))
    try:
        return play_game(rules, [player, "random", "random"], seed=seed, options=options,
                         limits=Limits(decision, wall_factor=wall_factor))
    finally:
        host.shutdown()


def reports(host: PipeHost, marker: str) -> list[dict[str, Any]]:
    """The JSON reports an attack bot wrote to its stderr after `marker`, in order."""
    return [json.loads(t[len(marker) + 1:]) for t in host.stderr_tail().splitlines()
            if t.startswith(marker + " ")]


def require_sandbox() -> None:
    """A test of the sandbox needs a level with bubblewrap and seccomp."""
    from needs import require

    from arena.hosts import walls

    require(walls.strongest() != "none",
            "bubblewrap and libseccomp are needed: apt-get install bubblewrap libseccomp2")
