"""Zoo: two bots at one table that try to pass their dice through kernel state every sandbox
shares (issue 38). The `hold` one, at each decision with dice, takes a flock and a POSIX read
lock on a file of /usr, opens another that its partner may watch, and moves the machine's
task and socket counters; the `look` one, at each decision, reports on stderr as
`SHARED {json}` what reached it: whether it found the locks, whether its inotify, fanotify
and dnotify watches fired, and whether it could read a task's pidfs number, a socket's
cookie or open sock_diag at all. Option `role` (hold or look).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import signal
import socket
import struct
import sys
import threading
from types import MappingProxyType
from typing import Any

import arena

LIBC = ctypes.CDLL(None, use_errno=True)
LOCKED, WATCHED = os.__file__, os.path.__file__  # the stdlib: every Python sandbox shows it
kept: dict[str, Any] = {}
SOCKETS = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM), socket.socketpair()
"""Made at import (a sandboxed bot may make no socket once it plays): what the cookie and the
peer's pidfd are asked of, so that those options' refusal is what the test sees."""


def _outcome(call: Any) -> Any:
    try:
        return call()
    except OSError as exc:
        return f"error: {exc.strerror}"


def _thread_pidfs() -> int:
    done = threading.Event()
    thread = threading.Thread(target=done.wait)
    thread.start()
    try:
        fd = os.pidfd_open(thread.native_id or 0, os.O_EXCL)  # PIDFD_THREAD
        number = os.fstat(fd).st_ino
        os.close(fd)
        return number
    finally:
        done.set()
        thread.join()


def _cookie() -> int:
    return int.from_bytes(SOCKETS[0].getsockopt(socket.SOL_SOCKET, 57, 8), "little")  # SO_COOKIE


def _peer_pidfd() -> int:
    return SOCKETS[1][0].getsockopt(socket.SOL_SOCKET, 77)  # SO_PEERPIDFD


def _sock_diag() -> str:
    with socket.socket(16, socket.SOCK_RAW, 4):  # AF_NETLINK, NETLINK_SOCK_DIAG
        return "opened"


def hold() -> dict[str, Any]:
    """Lock one shared file, read another, take numbers from the shared counters."""
    if "fd" not in kept:
        kept["fd"] = os.open(LOCKED, os.O_RDONLY)
        kept["flock"] = _outcome(lambda: fcntl.flock(kept["fd"], fcntl.LOCK_SH | fcntl.LOCK_NB))
        kept["posix"] = _outcome(lambda: fcntl.lockf(kept["fd"], fcntl.LOCK_SH | fcntl.LOCK_NB))
    with open(WATCHED, "rb") as f:
        f.read(1)
    return {"flock": kept["flock"], "posix": kept["posix"], "pidfs": _outcome(_thread_pidfs),
            "cookie": _outcome(_cookie)}


def _watches() -> None:
    kept["inotify"] = LIBC.inotify_init1(os.O_NONBLOCK)
    if kept["inotify"] >= 0:
        LIBC.inotify_add_watch(kept["inotify"], WATCHED.encode(), 0x20 | 0x1)  # OPEN, ACCESS
    LIBC.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int,
                                   ctypes.c_char_p]
    kept["fanotify"] = LIBC.fanotify_init(0x200 | 0x2, os.O_RDONLY)  # REPORT_FID, NONBLOCK
    if kept["fanotify"] >= 0:
        LIBC.fanotify_mark(kept["fanotify"], 1, 0x20 | 0x1, -100, WATCHED.encode())
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN})
    kept["folder"] = os.open(os.path.dirname(WATCHED), os.O_RDONLY)
    fcntl.fcntl(kept["folder"], 10, signal.SIGRTMIN)  # F_SETSIG: dnotify's signal
    kept["dnotify"] = _outcome(lambda: fcntl.fcntl(kept["folder"], fcntl.F_NOTIFY,
                                                   fcntl.DN_ACCESS | fcntl.DN_MULTISHOT))


def _fired(fd: int) -> bool:
    if fd < 0:
        return False
    with contextlib.suppress(OSError):
        return bool(os.read(fd, 4096))
    return False


def _locks() -> dict[str, Any]:
    fd = os.open(LOCKED, os.O_RDONLY)
    try:
        query = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
        found = _outcome(lambda: struct.unpack("hhqqi", fcntl.fcntl(fd, fcntl.F_GETLK, query))[0])
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            blocked: Any = False
        except BlockingIOError:
            blocked = True
        except OSError as exc:
            blocked = f"error: {exc.strerror}"
        return {"flock_blocked": blocked, "posix_found": found == fcntl.F_RDLCK}
    finally:
        os.close(fd)


def look() -> dict[str, Any]:
    """What of the partner's doing reached this sandbox."""
    if "inotify" not in kept:
        _watches()
    pending = signal.SIGRTMIN in signal.sigpending()
    if pending:
        signal.sigtimedwait({signal.SIGRTMIN}, 0)
    return {**_locks(), "inotify": _fired(kept["inotify"]), "fanotify": _fired(kept["fanotify"]),
            "dnotify": pending, "dnotify_watch": repr(kept["dnotify"]),
            "pidfs": _outcome(_thread_pidfs), "cookie": _outcome(_cookie),
            "peer_pidfd": _outcome(_peer_pidfd), "sock_diag": _outcome(_sock_diag)}


class Sharer(arena.Bot):
    name = "zoo-sharer"
    options = MappingProxyType({"role": "look"})

    def act(self, observation: arena.Observation) -> arena.Action:
        if self.settings["role"] == "look":
            sys.stderr.write("SHARED " + json.dumps(look()) + "\n")
        elif observation.hand is not None:
            sys.stderr.write("HELD " + json.dumps(hold()) + "\n")
        sys.stderr.flush()
        return observation.legal_actions()[0]
