"""Zoo: a command bot that looks at what it is shown and at the machine's counters, reports it
on stderr as `LOOKOUT {json}`, then plays legally (the wire zoo's `ok`).

Its first argument is the wire zoo it plays with; the rest are paths it was given (a folder,
/proc, a root-only file, its own data file): for each, what it could read. Then the
machine-wide counters two colluding bots could signal each other through: /proc/loadavg,
/proc/stat, sysinfo (os.getloadavg); and whether it could change its quiet /proc (write a
counter, loosen its mode, add a file), which must stay as the referee made it."""

from __future__ import annotations

import json
import os
import runpy
import sys
from pathlib import Path
from typing import Any


def looked(path: str) -> Any:
    """What the bot could see of one path."""
    try:
        if os.path.isdir(path):
            return {"folder": sorted(os.listdir(path))}
        return {"file": Path(path).read_text(errors="replace")[:80]}
    except OSError as exc:
        return {"error": exc.errno}


def counters() -> dict[str, Any]:
    """The machine-wide counters as the bot reads them."""
    try:
        load: Any = list(os.getloadavg())
    except OSError as exc:
        load = {"error": exc.errno}
    return {"loadavg": looked("/proc/loadavg"), "stat": looked("/proc/stat"),
            "getloadavg": load, "pressure": looked("/proc/pressure"),
            "pty": looked("/proc/sys/kernel/pty/nr"), "aio": looked("/proc/sys/fs/aio-nr"),
            "files": looked("/proc/sys/fs/file-nr"), "cgroups": looked("/proc/cgroups")}


def tampered() -> dict[str, Any]:
    """What came of each attempt to change its /proc: None if it worked, else the errno."""
    def attempt(change: Any) -> int | None:
        try:
            change()
        except OSError as exc:
            return exc.errno
        return None
    return {"write": attempt(lambda: Path("/proc/loadavg").write_text("9.99 9.99 9.99 9/9 9\n")),
            "chmod": attempt(lambda: os.chmod("/proc/loadavg", 0o666)),
            "chmod folder": attempt(lambda: os.chmod("/proc", 0o777)),
            "create": attempt(lambda: Path("/proc/planted").write_text("a message")),
            "symlink": attempt(lambda: os.symlink("/tmp", "/proc/self/planted"))}


wire, paths = sys.argv[1], sys.argv[2:]
report = {"paths": {p: looked(p) for p in paths}, "tampered": tampered(), **counters()}
sys.stderr.write("LOOKOUT " + json.dumps(report) + "\n")
sys.stderr.flush()
sys.argv = [wire, "ok"]
runpy.run_path(sys.argv[0], run_name="__main__")
