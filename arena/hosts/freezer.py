"""A bot frozen between its turns: every process and thread of a bot that is not being asked
for something is stopped, so the bots of a table never run at the same time and none can
time the CPU another uses (docs/security.md, "CPU contention").

Through the bot's cgroup where the machine has a freezer (`arena.hosts.cgroups` finds it):
cgroup v2's `cgroup.freeze` (in any cgroup2 hierarchy mounted and writable here, the unified
one of a hybrid machine too: it needs no controller), else v1's `freezer.state`. A bot cannot
leave its cgroup, so every helper it starts, in any session or process group, freezes with
it. Without a freezer, SIGSTOP and SIGCONT to the process tree `arena.hosts.process_tree`
finds (in the sandbox's PID namespace, where an orphaned helper stays in the tree).

A freeze is asked for without waiting for it; before any bot is thawed or started, every
freeze asked for is waited for (`settle`, bounded), so no two bots run at once however
slowly the kernel freezes a busy one. A freeze reaches a task asleep (a bot waiting for its
next message) only once the task runs, so on a loaded machine the wait was mostly for the
scheduler to give it a CPU: a frozen bot's tasks and the referee thread that waits for them
ask the kernel for a short slice (`quicken`), so each preempts when woken, stops or looks in
microseconds, and keeps its equal CPU share. Frozen time is never a bot's: a bot is thawed
before its clock starts and frozen after its answer is read. A bot at isolation `none` is
trusted and is never frozen (`Unfrozen`): no channel between bots is closed there.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import platform
import signal
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path

from arena.hosts.shared_lines import flush_shared_lines

SETTLE = 0.5
"""Seconds a freeze is waited for at most (a task deep in one system call freezes when it
returns from it); past that the next bot runs anyway, as it did before freezing."""
SPIN = 0.0005
"""Seconds a freeze is waited for on the CPU, before the referee sleeps between looks."""
_PENDING: list[Freezer] = []
"""Freezes asked for in this referee process and not yet seen to take effect."""
SLICE = 100_000
"""Nanoseconds of scheduler slice (Linux 6.12's EEVDF custom slice, its least) asked for a
frozen bot's tasks and the waiting referee thread: woken, a task with a slice shorter than
the running one's preempts it (the default is some ms), without a larger share of the CPU."""
_SETATTR = {"x86_64": (314, 315), "aarch64": (274, 275)}
"""sched_setattr and sched_getattr's system call numbers, by machine."""
_ATTR = struct.Struct("IIQiIQQQII")
"""struct sched_attr (its first version, 56 bytes): size, policy, flags, nice, priority,
runtime (a fair task's slice), deadline, period, utilisation clamps."""
_QUICK: set[int] = set()
"""The referee's threads already quickened."""


class Freezer:
    """Stops and resumes one bot whole; the base freezes nothing (no freezer at all)."""

    frozen = False

    def freeze(self) -> None:
        """Stop the bot (every process and thread) until `thaw`, without waiting."""
        if not self.frozen:
            self.frozen = True
            self._stop()
            _PENDING.append(self)

    def thaw(self) -> None:
        """Let the bot run again, once every other bot's freeze has taken effect."""
        settle()
        if self.frozen:
            self.frozen = False
            flush_shared_lines()
            self._resume()

    def settled(self) -> bool:
        """Whether every task of the bot is stopped now."""
        return True

    def close(self) -> None:
        """Forget the bot (its processes are killed, or are about to be)."""
        self.frozen = False
        with contextlib.suppress(ValueError):
            _PENDING.remove(self)

    def _stop(self) -> None:
        pass

    def _resume(self) -> None:
        pass


def settle(wait: float = SETTLE) -> None:
    """Wait until every freeze asked for has taken effect, at most `wait` seconds (safe with
    the lanes' threads: a freeze another lane asks for meanwhile is left to its next look)."""
    if not _PENDING:
        return
    if (me := threading.get_native_id()) not in _QUICK:
        _QUICK.add(me)
        quicken(me)  # it looks again as soon as its sleep ends, not a slice later
    began = time.monotonic()
    asked = looking = list(_PENDING)
    while looking:
        looking = [f for f in looking if f.frozen and not f.settled()]
        waited = time.monotonic() - began
        if not looking or waited >= wait:
            break
        if waited < SPIN:
            os.sched_yield()  # a freeze mostly takes effect in microseconds
        else:
            time.sleep(0.0001)  # a CPU for the tasks still freezing (a loaded machine)
    for seen in asked:  # settled, or past the wait (it freezes when its system call returns)
        with contextlib.suppress(ValueError):
            _PENDING.remove(seen)


@functools.cache
def _syscall() -> Callable[..., int] | None:
    """libc's syscall(2), where this machine's sched_setattr number is known; else None."""
    if platform.machine() not in _SETATTR or not hasattr(ctypes, "CDLL"):
        return None
    call: Callable[..., int] = ctypes.CDLL(None, use_errno=True).syscall
    return call


def quicken(tid: int) -> None:
    """Ask for a short scheduler slice for one task (its policy, nice value and share kept):
    woken to stop, or to look, it runs at once. Nothing where the kernel cannot (before
    6.12 a fair task's runtime is ignored; another user's task is refused)."""
    call = _syscall()
    if call is None:
        return
    setattr_, getattr_ = _SETATTR[platform.machine()]
    attr = ctypes.create_string_buffer(_ATTR.size)
    if call(getattr_, tid, attr, _ATTR.size, 0) != 0:
        return
    fields = list(_ATTR.unpack(attr.raw))
    if fields[1] not in (0, 3):  # SCHED_OTHER, SCHED_BATCH: the fair class only
        return
    fields[0], fields[2], fields[5] = _ATTR.size, 0, SLICE
    call(setattr_, tid, ctypes.create_string_buffer(_ATTR.pack(*fields), _ATTR.size), 0)


class Unfrozen(Freezer):
    """A bot never frozen: one at isolation `none`, trusted, where no channel between bots is
    closed (docs/security.md), so a freeze, its wait and the flush would be pure cost."""

    def freeze(self) -> None:
        """Leave the bot running."""

    def thaw(self) -> None:
        """Nothing to resume, and no other bot's freeze to wait for: this one is trusted."""


class CgroupFreezer(Freezer):
    """A bot frozen through its cgroup: v2's cgroup.freeze, or v1's freezer.state."""

    def __init__(self, folder: Path, version: int) -> None:
        self.tasks = folder / ("cgroup.threads" if version == 2 else "tasks")
        self.quickened = False
        if version == 2:
            self.words, self.done = (b"1", b"0"), b"frozen 1"
            self.control = os.open(folder / "cgroup.freeze", os.O_WRONLY)
            self.state = os.open(folder / "cgroup.events", os.O_RDONLY)
        else:
            self.words, self.done = (b"FROZEN", b"THAWED"), b"FROZEN\n"
            self.control = os.open(folder / "freezer.state", os.O_RDWR)
            self.state = self.control

    def _stop(self) -> None:
        if not self.quickened:  # once, at its first freeze: the tasks it starts inherit it
            self.quickened = True
            with contextlib.suppress(OSError, ValueError):
                for tid in self.tasks.read_text().split():
                    quicken(int(tid))
        with contextlib.suppress(OSError):
            os.pwrite(self.control, self.words[0], 0)

    def _resume(self) -> None:
        with contextlib.suppress(OSError):
            os.pwrite(self.control, self.words[1], 0)

    def settled(self) -> bool:
        """Whether the kernel says the whole group is frozen (True if it cannot be read)."""
        try:
            return self.done in os.pread(self.state, 256, 0)
        except OSError:
            return True

    def close(self) -> None:
        """Thaw the group, so its processes can die, and close its files."""
        if self.frozen:
            self._resume()
        super().close()
        for fd in {self.control, self.state}:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.control = self.state = -1


class SignalFreezer(Freezer):
    """A bot without a cgroup freezer: SIGSTOP and SIGCONT to the processes of its tree."""

    def __init__(self, tree: Callable[[], list[int]]) -> None:
        self.tree = tree
        self.stopped: list[int] = []
        self.quickened: set[int] = set()

    def _stop(self) -> None:
        self.stopped = self.tree()
        for pid in set(self.stopped) - self.quickened:  # once a process: the threads it
            self.quickened.add(pid)  # starts later inherit it
            with contextlib.suppress(OSError, ValueError):
                for tid in os.listdir(f"/proc/{pid}/task"):
                    quicken(int(tid))
        for pid in self.stopped:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGSTOP)

    def _resume(self) -> None:
        for pid in self.stopped:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGCONT)
        self.stopped = []

    def settled(self) -> bool:
        """Whether every process stopped is stopped now (or gone)."""
        return all(_stopped(pid) for pid in self.stopped)


def _stopped(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in (b"T", b"t", b"Z", b"X")
