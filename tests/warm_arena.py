"""`arena ARGS` run in a process of its own, forked from a warm one: a server that imported
arena's command line once, so each command costs a fork instead of an interpreter start and
its imports (0.15-0.4 s of CPU a command, measured against ~0.005 s for the command's work on
a small folder). The child is what `python -m arena ARGS` is from `arena.cli.main()` on: its
own process with its own exit status, stdout and stderr (captured as `subprocess.run(...,
capture_output=True, text=True)` captures them), its memory capped before the command starts
and killed at the timeout."""

from __future__ import annotations

import atexit
import json
import locale
import os
import select
import subprocess
import sys
import tempfile
from pathlib import Path

SERVER = r"""
import atexit, importlib, json, os, resource, select, signal, sys, time, traceback
from arena.cli import main  # (before arena.cli.main, the module, takes the name)
for name in sys.argv[1:]:
    importlib.import_module(name)  # what every command would import again: paid once
MAIN = os.path.join(os.path.dirname(importlib.import_module("arena").__file__), "__main__.py")


def child(ask):
    os.chdir(ask["cwd"])
    os.environ.clear()
    os.environ.update(ask["env"])
    if ask["memory"]:
        resource.setrlimit(resource.RLIMIT_AS, (ask["memory"], ask["memory"]))
    for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, ask["out"], os.O_WRONLY),
                            (2, ask["err"], os.O_WRONLY)):
        os.dup2(os.open(path, flags), fd)
    sys.argv = [MAIN, *ask["argv"]]
    sys.modules["__main__"].__package__ = "arena"  # as `python -m arena` (click's usage lines)
    code = 0
    try:
        main()
    except SystemExit as stop:  # as the interpreter ends on one
        if stop.code is None:
            code = 0
        elif isinstance(stop.code, int):
            code = stop.code
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def ran(asks):
    started = time.monotonic()
    pids = []
    for ask in asks:  # all at once: each its own process, as if typed in several terminals
        pid = os.fork()
        if pid == 0:
            child(ask)
        pids.append(pid)
    told = []
    for pid, ask in zip(pids, asks):
        pidfd = os.pidfd_open(pid)  # readable once the child ends
        left = max(0.0, started + ask["timeout"] - time.monotonic())
        ended = select.select([pidfd], [], [], left)[0]
        os.close(pidfd)
        if not ended:
            os.kill(pid, signal.SIGKILL)
        status = os.waitpid(pid, 0)[1]
        told.append({"code": os.waitstatus_to_exitcode(status), "timeout": not ended})
    return told


for line in sys.stdin:
    print(json.dumps(ran(json.loads(line))), flush=True)
"""

_server: subprocess.Popen[bytes] | None = None
WARM = ("arena.cli.main", "arena.cli.run", "arena.cli.replay", "arena.cli.publish",
        "arena.report", "arena.replay", "arena.tournament.load", "arena.tournament.run.runner")
"""The modules the server imports before its first fork: the commands' own and what they load."""


def _started() -> subprocess.Popen[bytes]:
    """The warm server, started on first use (stopped by `stop`, or when this process ends)."""
    global _server
    if _server is None or _server.poll() is not None:
        _server = subprocess.Popen([sys.executable, "-c", SERVER, *WARM], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, )
        atexit.register(stop)
    return _server


def stop() -> None:
    """Stop the warm server, if one runs: a module that used it leaves no child of the test
    process behind (tests/hosts checks that none lives after each of its tests)."""
    global _server
    if _server is not None:
        _server.kill()
        _server.wait()
        for pipe in (_server.stdin, _server.stdout):
            if pipe is not None:
                pipe.close()
        _server = None


def run_arena(*args: object, timeout: float = 60,
              memory: int = 0) -> subprocess.CompletedProcess[str]:
    """Run `arena ARGS` in a forked child (address space capped at `memory` bytes, 0: not);
    a hang is killed at `timeout` and raises TimeoutExpired, as `subprocess.run` does."""
    return run_arenas([args], timeout=timeout, memory=memory)[0]


def run_arenas(commands: list[tuple[object, ...]], timeout: float = 60,
               memory: int = 0) -> list[subprocess.CompletedProcess[str]]:
    """Run each `arena ARGS` of `commands` at the same time, each in a forked child as
    `run_arena` runs one: a test of commands that each wait out a limit waits it once. A
    hang is killed at `timeout` (from the start) and raises TimeoutExpired."""
    argvs = [[str(a) for a in args] for args in commands]
    server = _started()
    assert server.stdin is not None and server.stdout is not None
    with tempfile.TemporaryDirectory() as folder:
        files = [(Path(folder, f"out{n}"), Path(folder, f"err{n}")) for n in range(len(argvs))]
        for out, err in files:
            out.touch()
            err.touch()
        asks = [{"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "memory": memory,
                 "timeout": timeout, "out": str(out), "err": str(err)}
                for argv, (out, err) in zip(argvs, files, strict=True)]
        server.stdin.write(json.dumps(asks).encode() + b"\n")
        server.stdin.flush()
        if not select.select([server.stdout], [], [], timeout + 30)[0]:
            server.kill()  # the server itself is stuck: never seen, but never a hang
            raise subprocess.TimeoutExpired(["arena", *argvs[0]], timeout)
        told = json.loads(server.stdout.readline())
        for argv, result in zip(argvs, told, strict=True):
            if result["timeout"]:
                raise subprocess.TimeoutExpired(["arena", *argv], timeout)
        return [subprocess.CompletedProcess(["arena", *argv], result["code"],
                                            _text(out.read_bytes()), _text(err.read_bytes()))
                for argv, result, (out, err) in zip(argvs, told, files, strict=True)]


def _text(data: bytes) -> str:
    """Bytes as `subprocess.run(text=True)` decodes them (universal newlines)."""
    text = data.decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")
