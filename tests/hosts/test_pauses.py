"""Pauses: a referee stopped from outside (SIGSTOP then SIGCONT, as a suspended laptop, a
VM moved or a swapping machine stops it) longer than a decision's wall limit, even past the
backstop, costs the bot deciding nothing, in every host; the time is recorded as the
machine's (arena.hosts.strain)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHILD = Path(__file__).with_name("paused_referee.py")
DECISION, NAP = 0.2, 0.05
"""Each decision sleeps a quarter of its limit: nearly all the referee's time is inside a
decision, so a pause lands in one."""
PAUSE = 2.0
"""Longer than the wall limit (0.4 s) and than the backstop (4 × 0.4 s)."""


def paused_run(mode: str, pauses: int) -> dict[str, object]:
    """Run the child referee, stop it `pauses` times for PAUSE seconds, and read its verdict."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [
        str(Path(__file__).parent), os.environ.get("PYTHONPATH")]))}
    child = subprocess.Popen([sys.executable, str(CHILD), mode, str(DECISION), str(NAP)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdin is not None and child.stdout is not None
    try:
        assert child.stdout.readline().strip() == "PLAYING"
        for _ in range(pauses):
            time.sleep(0.7)
            os.kill(child.pid, signal.SIGSTOP)
            time.sleep(PAUSE)
            os.kill(child.pid, signal.SIGCONT)
        time.sleep(0.5)
        out, _ = child.communicate("stop\n", timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, out
    verdict: dict[str, object] = json.loads(out.splitlines()[-1])
    return verdict


@pytest.mark.parametrize("mode", ["inline", "process"])
def test_a_referee_paused_past_the_wall_limit_costs_the_deciding_bot_nothing(mode: str) -> None:
    verdict = paused_run(mode, pauses=2)
    assert verdict["faults"] == [], verdict
    strain = verdict["strain"]
    assert isinstance(strain, dict), verdict
    assert strain["extended"] >= 1 and strain["most"] >= PAUSE * 0.9, verdict
