"""A bot process's cgroup join, readied before it comes: moving a process into a cgroup
waits for an RCU grace period (cgroup v1, and v2 without `favordynmods`; 10 to 17 ms on the
2-core machine at load 1 to 15) unless one has just passed, and a bot process joins its group
(the trampoline of `arena.hosts.cgroups`) before any code of its own runs, so the start
waits for it.

`hasten_join` moves the referee into the group it is in (a move that changes nothing) in a
thread of its own, as the bot's group is made; the grace period runs while the referee makes
the sandbox and starts the process, and the bot's join waits only for what is left of it
(the trampoline's join 17 -> 7 ms at load 13 to 15, 14 -> 8 at load 4.5; benchmarks/starts.py
measures the start, and a join alone).
"""

from __future__ import annotations

import _thread
import contextlib
import os

from arena.hosts.cgroups import controllers, groups_found, groups_now


def hasten_join() -> None:
    """Start the move that readies the next join, where the machine has cgroups and this
    referee is still in the groups it was found in (else the move would move it)."""
    delegated = controllers()
    if delegated.version is None or groups_now() != groups_found():
        return
    try:  # opened here: the thread's first act is the move
        fd = os.open(os.path.join(delegated.folders[0][1], "cgroup.procs"), os.O_WRONLY)
    except OSError:
        return
    try:  # not threading's Thread, whose start waits for the thread to run: under load, a
        _thread.start_new_thread(_move, (fd,))  # wait for a CPU (start 217 -> 201 ms, load 14)
    except RuntimeError:  # no thread to spare: the join waits as it would have
        os.close(fd)


def _move(fd: int) -> None:
    with contextlib.suppress(OSError), os.fdopen(fd, "wb", buffering=0) as procs:
        procs.write(str(os.getpid()).encode())
