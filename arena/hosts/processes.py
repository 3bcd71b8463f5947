"""Bot processes: one started behind the trusted launcher with a clean environment, an empty
folder, resource limits and, at isolation strict or standard, in the bubblewrap sandbox of
`arena.hosts.sandbox` (at none, its own PID namespace where the kernel allows it); its pipes read
without blocking the referee; its CPU time; and its whole process tree killed (finding and
stopping the tree's processes is `arena.hosts.process_tree`'s).

It knows nothing of the protocol or the game (that is `arena.hosts.pipe`'s): it moves bytes,
counts CPU seconds, freezes a sandboxed bot between its turns (`arena.hosts.freezer`), stops
processes, and never trusts a byte the bot writes."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import select
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.hosts import grace, walls
from arena.hosts.bot_folder import FOLDER_PREFIX, clean_env, remove_stale_folders
from arena.hosts.cgroups import BotGroup, GroupLimits, group_for
from arena.hosts.freezer import Freezer, SignalFreezer, Unfrozen, settle
from arena.hosts.machine import require_tools
from arena.hosts.process_limits import KiB, MiB, ProcessLimits
from arena.hosts.process_tree import (
    ProcessHandle,
    await_exit,
    descendants,
    holds_pipe,
    namespace_init,
    namespace_prefix,
    note_started,
    runnable,
    stop_all,
    terminate,
)
from arena.hosts.sandbox import Sandbox, exposed_for

__all__ = ["BotProcess", "InputStuck", "KiB", "LineTooLong", "MiB", "OutputClosed",
           "ProcessLimits", "remove_stale_folders"]

LAUNCHER = Path(__file__).with_name("launcher.py")
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
TRACKED_FILES = 4  # /proc/<pid>/stat files of a bot's tree held open; more are read by name


def _end(handle: ProcessHandle, group: BotGroup | None, sandbox: Sandbox | None) -> None:
    """Kill every process of the bot (its whole group first), reap it, remove its group, and
    only then give back its sandbox's uid (none of its processes is left)."""
    try:
        if group is not None:
            group.kill()
        terminate(handle)
        if group is not None:
            group.remove()
    finally:
        if sandbox is not None:
            sandbox.release()


def _close(mark: list[int]) -> None:
    """Close the launcher's mark, once."""
    while mark:
        os.close(mark.pop())


class OutputClosed(Exception):
    """The bot's output ended (it exited or closed stdout)."""


class LineTooLong(Exception):
    """The bot wrote a line longer than the cap."""


class InputStuck(Exception):
    """The bot stopped reading its input."""


class BotProcess:
    """One bot process and its pipes: reads capped lines with deadlines, drains stderr into a
    bounded tail, reads the process's CPU time, and kills its whole tree."""

    def __init__(self, config: Mapping[str, Any], limits: ProcessLimits) -> None:
        self.group = group_for(GroupLimits(limits.memory, limits.processes))
        grace.hasten_join()  # made first: the kernel readies its join while the sandbox is made
        try:
            self._launch(config, limits)
        except BaseException:
            if self.group is not None:
                self.group.remove()
            raise

    def _launch(self, config: Mapping[str, Any], limits: ProcessLimits) -> None:
        self.level = walls.level(limits.isolation)
        sandbox = self.sandbox = (Sandbox(self.level, exposed_for(config), limits.network,
                                          limits.seat) if self.level.sandboxed else None)
        prefix: tuple[str, ...] = ()
        if sandbox is None and limits.pid_namespace is not False:
            prefix = namespace_prefix()
            if limits.pid_namespace and not prefix:
                raise OSError("a PID namespace was asked for, but `unshare` does not work here")
        self.limits = limits
        self.namespace = bool(prefix) or sandbox is not None
        remove_stale_folders()
        folder = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")
        token = secrets.token_hex(8)
        note_started(token)
        mark, marked = os.pipe()  # the launcher's first act: one byte, before any bot code
        self._mark = [mark]
        launch = {**config, "limits": limits.rlimits(), "launched": marked,
                  "parent": None if self.namespace else os.getpid()}
        site = ("-S",) if config.get("command") else ()  # it only execs: `site` costs a start
        argv = [*prefix, sys.executable, "-I", *site, "-B", "-u", str(LAUNCHER),
                json.dumps(launch)]
        tools = [*prefix, sys.executable]
        if sandbox is not None:
            argv = sandbox.argv(sys.executable, launch)
            tools = [argv[0], sys.executable, *(["/usr/bin/setpriv"] if sandbox.uid else [])]
        settle()  # no bot starts while another's freeze is still taking effect
        try:
            require_tools(tools)
            argv = argv if self.group is None else self.group.wrap(argv)
            popen = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=folder, env=sandbox.environment(clean_env("/tmp", token)) if sandbox
                else clean_env(folder, token),
                start_new_session=True, bufsize=0,
                pass_fds=(*(sandbox.fds if sandbox else ()), marked),
            )
        except OSError:
            _close(self._mark)
            shutil.rmtree(folder, ignore_errors=True)
            if sandbox is not None:
                sandbox.release()
            raise
        finally:
            os.close(marked)
            if sandbox is not None:
                sandbox.close_fds()
        os.set_blocking(mark, False)
        weakref.finalize(self, _close, self._mark)
        self.handle = ProcessHandle(popen, token, folder, self.namespace)
        self.freezer: Freezer = Unfrozen() if sandbox is None else (
            self.group and self.group.freezer) or SignalFreezer(
            lambda: [popen.pid, *descendants(popen.pid)])  # stopped between its turns
        self._finalizer = weakref.finalize(self, _end, self.handle, self.group, sandbox)
        assert popen.stdin and popen.stdout and popen.stderr
        self.input, self.output, self.errors = (
            popen.stdin.fileno(), popen.stdout.fileno(), popen.stderr.fileno())
        os.set_blocking(self.input, False)
        self.poller = select.epoll()  # used directly: selectors' wrapper costs a decision ~1 µs
        self.reading = {self.output, self.errors}  # the bot's pipes not at their end yet
        for fd in self.reading:
            self.poller.register(fd, select.EPOLLIN)
        self.buffer = bytearray()
        self.scanned = 0
        self.eof = False
        self.stderr = bytearray()
        self.stderr_seen = 0  # bytes written to stderr in all (the tail keeps the last)
        self._stats: dict[int, int] = {}  # pid -> open /proc/<pid>/stat of the bot's tree
        self._schedstat = -1  # the bot process's /proc/<pid>/schedstat, once it is found
        self._launched = False

    def launched(self) -> bool:
        """Whether arena's launcher ran in this process (its first act writes one byte): a
        process that ended without it never ran a line of the bot's, so its end is the
        machine's or the referee's failure (a sandbox that could not start), not the bot's."""
        if self._mark:
            try:
                self._launched = os.read(self._mark[0], 1) == b"L"
            except BlockingIOError:  # not yet: still starting
                return False
            _close(self._mark)
        return self._launched

    @property
    def pid(self) -> int:
        """The pid of the process we started (the launcher, or `unshare` in a namespace)."""
        return self.handle.popen.pid

    def locate(self) -> None:
        """Find the bot's own process (the namespace's init) and follow its CPU counters."""
        pid = self.pid
        if self.namespace and self.handle.init < 0:
            self.handle.init = namespace_init(pid)  # its end is every process's in it
        for _ in range(2 if self.sandbox else 1 if self.namespace else 0):
            pid = next(iter(descendants(pid)), pid)  # unshare's init; bubblewrap's init
        self.handle.bot_pid = pid
        with contextlib.suppress(OSError):
            self._schedstat = os.open(f"/proc/{pid}/schedstat", os.O_RDONLY)
        self.track()

    def waited(self) -> float:
        """Seconds the bot waited for a CPU others held: its group wanting one and getting
        none, a wait under way too, whichever of its tasks waited (its cgroup's CPU
        pressure); else its own process's main thread (schedstat: a wait counted once that
        thread runs again)."""
        if self.group is not None and self.group.counts_waits:
            return self.group.queued()
        try:
            return int(os.pread(self._schedstat, 256, 0).split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return 0.0

    def queued_uncounted(self) -> bool:
        """Whether the bot may be queued for a CPU with the wait not counted yet: where only
        schedstat counts its waits, its process runnable now (state R; one queued since its
        request was written shows none of that wait until it runs)."""
        if self.group is not None and self.group.counts_waits:
            return False  # the pressure counts a wait under way
        pid = self.handle.bot_pid
        return pid is not None and runnable(pid)

    def track(self) -> None:
        """Follow the CPU counters of the bot's process and of its helpers alive now."""
        root = self.handle.bot_pid
        if root is None or self.group is not None:
            return
        pids = {root, *descendants(root)}
        for pid in set(self._stats) - pids:
            with contextlib.suppress(OSError):
                os.close(self._stats.pop(pid))  # -1 (read by name) raises, and is dropped
        for pid in pids - set(self._stats):
            with contextlib.suppress(OSError):  # a few held open: the referee's fds are finite
                held = sum(fd >= 0 for fd in self._stats.values()) < TRACKED_FILES
                self._stats[pid] = os.open(f"/proc/{pid}/stat", os.O_RDONLY) if held else -1

    def cpu_times(self) -> dict[int, float]:
        """CPU seconds by followed process (and reaped helpers), or the cgroup's total at -1."""
        if self.group is not None:
            return {-1: self.group.cpu()}
        times = {}
        for pid, fd in self._stats.items():
            try:
                data = os.pread(fd, 1024, 0) if fd >= 0 else Path(f"/proc/{pid}/stat").read_bytes()
                fields = data.rsplit(b")", 1)[1].split()
            except OSError:
                continue
            times[pid] = sum(int(f) for f in fields[11:15]) / _CLOCK_TICKS
        return times

    def cpu_since(self, before: Mapping[int, float]) -> float:
        """CPU seconds the bot's tree used since `before` (helpers found since: all of theirs)."""
        return sum(max(0.0, t - before.get(pid, 0.0)) for pid, t in self.cpu_times().items())

    def cpu(self) -> float:
        """CPU seconds used by the bot's tree so far."""
        return sum(self.cpu_times().values())

    def holds_output(self) -> bool:
        """Whether the bot process still holds the pipe it answers on (True if unknown)."""
        pid = self.handle.bot_pid
        return pid is None or holds_pipe(pid, os.fstat(self.output).st_ino)

    def alive(self) -> bool:
        """Whether the process we started is still running."""
        return not self.handle.done and self.handle.popen.poll() is None

    def send(self, data: bytes, until: float) -> None:
        """Write all of `data` to the bot's stdin by `until` (a frozen bot is thawed only if the
        pipe is full); raise OutputClosed or InputStuck."""
        try:
            written = os.write(self.input, data)
        except BlockingIOError:
            written = 0
        except (BrokenPipeError, ValueError):
            raise OutputClosed() from None
        if written < len(data):
            self.freezer.thaw()  # it must read to make room
            self._send_slowly(memoryview(data)[written:], until)

    def _send_slowly(self, rest: memoryview, until: float) -> None:
        """The pipe is full: wait for room, reading the bot's output meanwhile."""
        with selectors.DefaultSelector() as waiting:
            waiting.register(self.input, selectors.EVENT_WRITE)
            for fd in self.reading:
                waiting.register(fd, selectors.EVENT_READ)
            while rest:
                left = until - time.monotonic()
                if left <= 0:
                    raise InputStuck()
                for key, _ in waiting.select(left):
                    if key.fd != self.input:
                        self._read(key.fd)
                        if key.fd not in self.reading:
                            waiting.unregister(key.fd)
                        continue
                    try:
                        rest = rest[os.write(self.input, rest):]
                    except BlockingIOError:
                        pass
                    except BrokenPipeError:
                        raise OutputClosed() from None

    def _read(self, fd: int) -> None:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if fd == self.output:
            if chunk:
                self.buffer += chunk
            else:
                self.eof = True
                self._unregister(fd)
        elif chunk:
            self.stderr_seen += len(chunk)
            self.stderr += chunk
            if len(self.stderr) > self.limits.stderr_bytes:
                del self.stderr[: len(self.stderr) - self.limits.stderr_bytes]
        else:
            self._unregister(fd)

    def _unregister(self, fd: int) -> None:
        self.reading.discard(fd)
        self.poller.unregister(fd)

    def _pop(self) -> bytes | None:
        end = self.buffer.find(b"\n", self.scanned)
        if end < 0:
            self.scanned = len(self.buffer)
            if self.scanned > self.limits.line_bytes:
                raise LineTooLong()
            return None
        if end > self.limits.line_bytes:
            raise LineTooLong()
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        self.scanned = 0
        return line

    def next_line(self, wait: float) -> bytes | None:
        """The next line within `wait` seconds, or None; raise OutputClosed or LineTooLong."""
        until = time.monotonic() + wait
        while True:
            line = self._pop()
            if line is not None:
                return line
            if self.eof:
                raise OutputClosed()
            left = until - time.monotonic()
            ready = self.poller.poll(max(left, 0.0))
            if not ready and left <= 0:
                return None
            for fd, _ in ready:
                self._read(fd)

    def drain(self) -> None:
        """Read whatever the bot has written so far, without waiting."""
        for fd, _ in self.poller.poll(0):
            self._read(fd)

    def exit_reason(self, wait: float) -> str | None:
        """How the process ended ('exited with code 3', 'killed by SIGSEGV'), or None if alive."""
        await_exit(self.handle.popen, wait)
        try:
            code = self.handle.popen.wait(0)
        except subprocess.TimeoutExpired:
            return None
        if self.sandbox is not None and code > 128 and code - 128 in signal.valid_signals():
            code = 128 - code  # bubblewrap exits 128 + N when its child dies of signal N
        if code >= 0:
            return f"exited with code {code}"
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        hint = {"SIGKILL": " (CPU or memory limit?)", "SIGXCPU": " (CPU time limit)",
                "SIGXFSZ": " (file size limit)"}.get(name, "")
        if name == "SIGKILL" and self.group is not None and self.group.out_of_memory():
            hint = f" (memory limit: {self.group.memory_text()})"
        return f"killed by {name}{hint}"

    def over_limit(self) -> str | None:
        """Which total of its cgroup the bot broke since last asked (memory, tasks), or None."""
        return None if self.group is None else self.group.broken()

    def stderr_tail(self, since: int = 0) -> str:
        """The last bytes the bot wrote to stderr (those after the first `since`), as text."""
        kept = min(len(self.stderr), max(0, self.stderr_seen - since))
        return self.stderr[len(self.stderr) - kept:].decode("utf-8", "replace")

    def sweep(self, spare: bool = False) -> list[int]:
        """Kill helper processes the bot left running (keeping the bot itself, and those its
        start gate spares; `spare`: kill none, only list them)."""
        root = self.handle.bot_pid or self.pid
        kept = self.sandbox.gate.spared if self.sandbox is not None else ()
        helpers = [pid for pid in descendants(root) if pid not in kept]
        stop_all([] if spare else helpers)
        return helpers

    def terminate(self) -> None:
        """Kill the whole process tree and reap it."""
        with contextlib.suppress(OSError):
            self.poller.close()
        for fd in [*self._stats.values(), self._schedstat]:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._stats.clear()
        self._schedstat = -1
        self._finalizer()
        self.freezer.close()
