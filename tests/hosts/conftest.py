"""The check, after every isolation test, that no process of any bot started during the test
(and no child of the test process) is left running; and `level`, each sandboxed isolation
level this machine gives."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from multiprocessing import forkserver, resource_tracker

import pytest
from needs import require

from arena.hosts import walls
from arena.hosts.process_tree import descendants, leftovers, started_tokens


def _forkserver() -> set[int]:
    """The fork server and resource tracker an earlier test's worker pool left: they live as
    long as the test process, by design, and are no bot's."""
    pids = (getattr(forkserver._forkserver, "_forkserver_pid", None),
            getattr(resource_tracker._resource_tracker, "_pid", None))
    return {pid for pid in pids if pid is not None}


def _live_children() -> list[int]:
    alive = []
    for pid in set(descendants(os.getpid())) - _forkserver():
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in (b"Z", b"X"):
            alive.append(pid)
    return alive


@pytest.fixture(autouse=True)
def no_process_left() -> Iterator[None]:
    """After the test, no process of the bots it started (or any child of ours) may live."""
    before = set(started_tokens())
    yield
    mine = set(started_tokens()) - before
    until = time.monotonic() + 3.0
    while (left := leftovers(mine) + _live_children()) and time.monotonic() < until:
        time.sleep(0.05)
    assert not left, f"processes left running: {left}"


LEVELS = ["strict", "standard"]


@pytest.fixture(params=LEVELS)
def level(request: pytest.FixtureRequest) -> str:
    """Each sandboxed level this machine gives (CI's gives both)."""
    try:
        walls.level(request.param)
    except walls.IsolationError:
        require(False, f"isolation {request.param} is not available here")
    return str(request.param)
