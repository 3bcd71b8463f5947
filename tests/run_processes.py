"""The processes of a running `arena run`, found through /proc: for tests that kill a worker."""

from __future__ import annotations

import time
from pathlib import Path


def children(pid: int) -> set[int]:
    """The processes whose parent is `pid`."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def a_worker(pid: int) -> int:
    """A worker of the run `pid`: a child of its fork server (its child), once there is one."""
    return min(the_workers(pid, 1))


def the_workers(pid: int, count: int) -> set[int]:
    """The `count` workers of the run `pid` (children of its fork server), once all are up."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        workers = {w for server in children(pid) for w in children(server)}
        if len(workers) >= count:
            return workers
        time.sleep(0.01)
    raise AssertionError(f"fewer than {count} worker processes found")


def waiting_in_poll(pid: int) -> bool:
    """Whether the process's main thread sleeps in poll(2) or select(2) (its wchan): the main
    process of a run waiting for its workers' next message."""
    try:
        wchan = Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return False
    return "poll" in wchan or "select" in wchan
