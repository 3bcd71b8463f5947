"""What the trusted launcher of an isolated bot (`arena.hosts.launcher`) does, first in the
bot's own process, before any bot code: it sets the resource limits,
asks the kernel to kill the bot when the referee dies (PR_SET_PDEATHSIG) and to keep orphaned
helpers as its descendants (PR_SET_CHILD_SUBREAPER), in the sandbox loads the start gate's
filter and hands its listener to the referee (`arena.hosts.gate`), then either serves a
Python bot class over the JSON-lines protocol (`arena.hosts.server`, docs/protocol.md) or
replaces itself with a bot command (exec), which inherits the limits. CONFIG is one JSON
argument written by `arena.hosts.processes`. The launcher loads this module by its path,
compiled (a script run by path is compiled at every start), without importing arena: a
command bot starts without it.

It must not import bot code before the limits are in place, and it holds nothing secret:
it knows only what the referee sends this seat on stdin.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import sys
from collections.abc import Mapping
from typing import Any

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
SIGKILL = 9
"""Linux's SIGKILL, spelled here: `signal` builds its enums at import, 3M instructions of a
Python bot's start (bare Python: 144M)."""
SET_MODE_FILTER, FLAG_NEW_LISTENER = 1, 1 << 3
"""seccomp(2)'s SECCOMP_SET_MODE_FILTER and SECCOMP_FILTER_FLAG_NEW_LISTENER."""


def main(argv: list[str]) -> None:
    """Apply the limits in CONFIG, then serve the Python bot or exec the bot command."""
    config = json.loads(argv[0])
    if config.get("launched") is not None:  # tell the referee arena's code runs here
        os.write(config["launched"], b"L")
        os.close(config["launched"])
    apply_limits(config["limits"])
    guard_parent(config.get("parent"))
    if config.get("gate") is not None:
        hand_over_gate(config["gate"])
    if config.get("landlock") is not None:
        wall_off(config["landlock"])
    if config.get("command"):
        import signal

        command = config["command"]
        for default in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores them; exec keeps that
            signal.signal(default, signal.SIG_DFL)
        try:
            os.execvp(command[0], command)
        except OSError as exc:
            sys.stderr.write(f"arena launcher: cannot run {command[0]!r}: {exc}\n")
            os._exit(127)
    if sys.flags.no_site:
        without_site(config.get("site", []))
    for entry in reversed(config.get("path", [])):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    from arena.hosts.server import serve

    serve(config["bot"], config["limits"].get("memory"))


def without_site(folders: list[str]) -> None:
    """Started without `site` (`-S`, in the sandbox): append the folders it would have (the
    referee found them: `arena.hosts.python_path`) and add the builtins it adds (`exit`,
    `quit`, `help`, `copyright`, `credits`, `license`), so a bot sees what it would with it."""
    sys.path.extend(folder for folder in folders if folder not in sys.path)
    import site

    site.setquit()
    site.setcopyright()
    site.sethelper()


def wall_off(landlock: Mapping[str, Any]) -> None:
    """Restrict this process with Landlock (the sibling module, loaded by its path), or exit."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "arena_landlock", os.path.join(os.path.dirname(__file__), "landlock.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        module.restrict(bool(landlock.get("network")))
    except OSError as exc:
        sys.stderr.write(f"arena launcher: {exc}\n")
        os._exit(70)


class _Program(ctypes.Structure):
    """struct sock_fprog: a BPF program's length (in 8-byte instructions) and its code."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def hand_over_gate(gate: Mapping[str, int]) -> None:
    """Load the start gate's filter (`arena.hosts.gate`) with a listener and send the listener
    to the referee, which answers the gated calls of this process and all it starts; or exit."""
    import _socket  # not `socket`, whose enums cost a start 16M instructions
    import array

    code = os.read(gate["filter"], 1 << 20)
    os.close(gate["filter"])
    program = _Program(len(code) // 8, code)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    listener = libc.syscall(gate["seccomp"], SET_MODE_FILTER, FLAG_NEW_LISTENER,
                            ctypes.byref(program))
    if listener < 0:
        sys.stderr.write(f"arena launcher: cannot load the start gate's seccomp filter: "
                         f"{os.strerror(ctypes.get_errno())}\n")
        os._exit(70)
    referee = _socket.socket(fileno=gate["socket"])
    try:  # socket.send_fds, spelled out
        referee.sendmsg([b"L"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS,
                                  array.array("i", [listener]))])
    finally:
        referee.close()
    os.close(listener)


def _cap(kind: int, value: int | None, hard_extra: int = 0) -> None:
    """Lower one limit to `value` (soft) and `value + hard_extra` (hard), never raising it."""
    if value is None:
        return
    _, hard = resource.getrlimit(kind)
    high = value + hard_extra
    if hard != resource.RLIM_INFINITY:
        high = min(high, hard)
    resource.setrlimit(kind, (min(value, high), high))


def user_tasks() -> int:
    """Count the tasks (processes and threads) of this user: what RLIMIT_NPROC counts. A
    sandbox's /proc lists none: there they are this process and bubblewrap (PID 1, the
    user's own uid unless arena runs as root)."""
    uid, count = os.getuid(), 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                if os.stat(f"/proc/{name}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{name}/task"))
    return count or (2 if os.getppid() == 1 else 1)


def apply_limits(limits: Mapping[str, Any]) -> None:
    """Set RLIMIT_CORE, AS, CPU, FSIZE, NOFILE and NPROC from the launcher config."""
    _cap(resource.RLIMIT_CORE, 0)
    _cap(resource.RLIMIT_AS, limits.get("memory"))
    _cap(resource.RLIMIT_CPU, limits.get("cpu"), hard_extra=1)
    _cap(resource.RLIMIT_FSIZE, limits.get("file_size"))
    _cap(resource.RLIMIT_NOFILE, limits.get("open_files"))
    extra = limits.get("processes")
    if extra is not None:
        # RLIMIT_NPROC counts every task of the user, so the bot gets headroom over what the
        # user already runs (the kernel does not apply it to root).
        _cap(resource.RLIMIT_NPROC, user_tasks() + extra)


def _prctl(option: int, value: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def guard_parent(parent: int | None) -> None:
    """Die with the referee: SIGKILL on parent death, and exit now if it is already gone."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, SIGKILL)
    if parent is not None and os.getppid() not in (parent, 0):
        os._exit(70)
