"""A bot's process tree: its own PID namespace where the kernel allows it, finding its
processes (descendants, its group and session, the token in their environment), freezing and
killing them all, and the processes this referee started that are still alive (leftovers).

A bot's end looks at the whole machine only when its PID namespace cannot vouch for it: the
kernel kills every process of a namespace before its init's exit is seen (a pidfd held on the
init says when), while the bot's cgroup, where it has one, is killed first and holds any
process that left the namespace (a root bot at `none` can). A bot without a namespace is
looked for by its group, session, descendants and token through all of /proc (at `none` it
could leave its cgroup).

It knows nothing of pipes, the protocol or the game: it finds and stops processes. Starting
one and talking to it is `arena.hosts.processes`'s.
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass

TOKEN_VARIABLE = "ARENA_BOT_TOKEN"
"""The environment variable that carries each bot process's token (inherited by helpers)."""


@functools.cache
def namespace_prefix() -> tuple[str, ...]:
    """The command prefix that gives a bot its own PID namespace, or () where that fails."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return ()
    prefix = [unshare, "--pid", "--fork", "--kill-child", "--mount-proc"]
    if os.geteuid() != 0:
        prefix[1:1] = ["--user", "--map-root-user"]
    setpriv = shutil.which("setpriv")
    if setpriv is not None:
        prefix = [setpriv, "--pdeathsig", "KILL", *prefix]
    try:
        done = subprocess.run([*prefix, "true"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(prefix) if done.returncode == 0 else ()


def _stat_fields(pid: int | str) -> list[bytes] | None:
    """Fields of /proc/<pid>/stat from the state onwards (index 0 is field 3), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def runnable(pid: int) -> bool:
    """Whether a process is runnable now (state R): running, or queued for a CPU."""
    fields = _stat_fields(pid)
    return fields is not None and fields[:1] == [b"R"]


def descendants(pid: int) -> list[int]:
    """Every live descendant of a process, found through /proc/<pid>/task/*/children."""
    found: list[int] = []
    stack = [pid]
    while stack:
        parent = stack.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children", "rb") as f:
                    children = [int(c) for c in f.read().split()]
            except OSError:
                continue
            found.extend(children)
            stack.extend(children)
    return found


def holds_pipe(pid: int, inode: int) -> bool:
    """Whether a process holds the pipe with this inode open (True if that cannot be read)."""
    target = f"pipe:[{inode}]"
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return True
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                return True
    return False


def _token_of(pid: str) -> str | None:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            environ = f.read()
    except OSError:
        return None
    start = environ.find(f"{TOKEN_VARIABLE}=".encode())
    if start < 0:
        return None
    end = environ.find(b"\0", start)
    return environ[start + len(TOKEN_VARIABLE) + 1 : end if end >= 0 else None].decode()


def tagged(tokens: Collection[str] | None = None) -> list[int]:
    """Live (not zombie) processes carrying one of these bot tokens (any bot's if None)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        fields = _stat_fields(name)
        if fields is None or fields[0] in (b"Z", b"X"):
            continue
        token = _token_of(name)
        if token is not None and (tokens is None or token in tokens):
            found.append(int(name))
    return found


_STARTED: list[str] = []


def note_started(token: str) -> None:
    """Remember the token of a bot process this referee process starts."""
    _STARTED.append(token)


def started_tokens() -> tuple[str, ...]:
    """The tokens of every bot process this referee process started, oldest first."""
    return tuple(_STARTED)


def leftovers(tokens: Collection[str] | None = None) -> list[int]:
    """Live processes of bots this referee started (or of the given tokens): after every
    host is shut down this must be empty."""
    return tagged(set(_STARTED if tokens is None else tokens))


def _members(group: int, token: str) -> set[int]:
    """Processes in the bot's process group or session, or carrying its token."""
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        fields = _stat_fields(name)
        if fields is None or fields[0] in (b"Z", b"X"):
            continue
        if group in (int(fields[2]), int(fields[3])) or _token_of(name) == token:
            found.add(int(name))
    return found


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signum)


def stop_all(pids: Iterator[int] | Sequence[int]) -> None:
    """Freeze, then SIGKILL, a set of processes (frozen first so none can fork meanwhile)."""
    pids = list(pids)
    for pid in pids:
        _signal(pid, signal.SIGSTOP)
    for pid in pids:
        _signal(pid, signal.SIGKILL)


def _kill_tree(leader: int | None, token: str) -> None:
    """Kill the bot's group, session, descendants and token carriers, until none is left.

    `leader` is the process we started, while it is not yet reaped (so its pid, which is
    also its group and session id, cannot have been reused); None once it is, and then only
    the token finds the bot's processes.
    """
    me = os.getpid()
    victims: set[int] = set()
    for _ in range(50):
        if leader is None:
            found = set(tagged({token}))
        else:
            found = {leader, *descendants(leader)} | _members(leader, token)
        found = {pid for pid in found - victims - {me}
                 if (_stat_fields(pid) or [b"X"])[0] not in (b"Z", b"X")}
        if not found:
            break
        for pid in found:
            _signal(pid, signal.SIGSTOP)
        victims |= found
    for pid in victims:
        _signal(pid, signal.SIGKILL)
    if leader is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(leader, signal.SIGKILL)


def pidfd_of_child(pid: int, parent: int, init: bool = False) -> int:
    """A pidfd of `parent`'s child `pid` (checked after opening, so never a reused pid's) and,
    with `init`, only if it is PID 1 of its own namespace; else -1 (no pidfds here, the
    child is gone, or it is no namespace's init)."""
    try:
        fd = os.pidfd_open(pid)
    except (OSError, AttributeError):
        return -1
    fields = _stat_fields(pid)
    if (fields is None or int(fields[1]) != parent or fields[0] in (b"Z", b"X")
            or (init and _namespace_pids(pid)[1:][-1:] != [b"1"])):
        os.close(fd)
        return -1
    return fd


def namespace_init(started: int) -> int:
    """A pidfd of the init of the PID namespace the process we started made (its child), or
    -1 (none found: it made none, or it is gone)."""
    return next((pidfd_of_child(init, started, init=True) for init in descendants(started)[:1]),
                -1)


def _namespace_pids(pid: int) -> list[bytes]:
    """A process's pid in each PID namespace it is in, outermost first (status's NSpid)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            status = f.read()
    except OSError:
        return []
    at = status.find(b"\nNSpid:")
    return status[at + 7:].split(b"\n", 1)[0].split() if at >= 0 else []


def ended(pidfd: int, wait: float) -> bool:
    """Whether the process of a pidfd exited, waiting up to `wait` seconds for it (the kernel
    wakes the wait at the exit: no polling)."""
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    return bool(poller.poll(max(0, round(wait * 1000))))


def await_exit(popen: subprocess.Popen[bytes], wait: float) -> None:
    """Wait up to `wait` seconds for a child we started to exit, without reaping it: woken by
    the exit itself through a pidfd (Popen.wait(timeout) sleeps in growing steps), or by
    short looks where pidfds are missing."""
    if popen.returncode is not None or wait <= 0:
        return
    fd = pidfd_of_child(popen.pid, os.getpid())
    if fd < 0:
        _exited(popen.pid, wait)
        return
    try:
        ended(fd, wait)
    finally:
        os.close(fd)


def _exited(pid: int, wait: float) -> bool:
    """Wait up to `wait` seconds for a child to exit, without reaping it."""
    until = time.monotonic() + wait
    while True:
        try:
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
        except ChildProcessError:
            return True
        if time.monotonic() >= until:
            return False
        time.sleep(0.005)


@dataclass(slots=True)
class ProcessHandle:
    """What it takes to kill and clean up one bot process (shared with its finalizer)."""

    popen: subprocess.Popen[bytes]
    token: str
    folder: str
    namespace: bool
    bot_pid: int | None = None
    init: int = -1
    """A pidfd of the init of the bot's PID namespace, once found (-1: none, or not yet)."""
    done: bool = False


def _end_namespace(handle: ProcessHandle) -> bool:
    """Kill the init of the bot's PID namespace; return whether it is gone, and with it
    every process of the namespace (the kernel kills and reaps them before its exit shows)."""
    popen = handle.popen
    if handle.init < 0:
        if popen.returncode is None:
            for init in descendants(popen.pid)[:1]:
                _signal(init, signal.SIGKILL)  # the whole namespace dies with its init
            await_exit(popen, 0.5)
        return False
    try:
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(handle.init, signal.SIGKILL)
        return ended(handle.init, 5.0)
    finally:
        os.close(handle.init)
        handle.init = -1


def terminate(handle: ProcessHandle) -> None:
    """Kill every process of the bot, reap the one we started, remove its working folder."""
    if handle.done:
        return
    handle.done = True
    popen = handle.popen
    if not (handle.namespace and _end_namespace(handle)):  # else look through the machine
        _kill_tree(popen.pid if popen.returncode is None else None, handle.token)
    elif popen.returncode is None:  # bubblewrap or unshare: outside the namespace
        _signal(popen.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        popen.wait(5)
    for stream in (popen.stdin, popen.stdout, popen.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    shutil.rmtree(handle.folder, ignore_errors=True)
