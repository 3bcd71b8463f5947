"""What the referee itself needs from the machine to start bots: the tools it runs them with,
and open files (its soft limit raised to the hard limit once per process, in the CLI and
every worker, and no more bot hosts kept by one worker than fit in it). Lacking them is the
referee's failure (`arena.hosts.inline.RefereeFailure`), never a bot's fault.

A kept process host holds `FILES_PER_HOST` descriptors: its three pipes, the epoll that
waits on them, its /proc schedstat file, a pidfd of its PID namespace's init (whose exit ends
the namespace), either its cgroup's three counters and its freezer's two files or up to
`arena.hosts.processes.TRACKED_FILES` /proc stat files of its tree, and in the sandbox its
start gate's listener and, as root, its uid's lock.
"""

from __future__ import annotations

import errno
import functools
import os
import resource
from collections.abc import Iterable

FILES_PER_HOST = 14
"""Descriptors one kept bot host holds (13 measured in the sandbox as root, 11 at `none`
with a cgroup; one spare)."""
RESERVE = 64
"""Descriptors kept for the referee itself: Python's own, the results files, the worker's
pipes, and the pipes a bot process's start holds for a moment."""


@functools.cache
def raise_open_files() -> int:
    """Raise this process's soft limit of open files to its hard limit; return the soft one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    for wanted in (hard, 1 << 20):
        if wanted == resource.RLIM_INFINITY or wanted <= soft:
            continue
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            return wanted
        except (ValueError, OSError):
            continue
    return soft


def hosts_that_fit(wanted: int) -> int:
    """How many of `wanted` kept hosts fit in the open-file limit (at least one)."""
    soft = raise_open_files()
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, (soft - RESERVE) // FILES_PER_HOST))


def require_tools(paths: Iterable[str]) -> None:
    """Raise FileNotFoundError unless each program (each absolute path: the rest are their
    arguments) the referee starts bots with can run: a missing tool is found here, not as a
    bot that "exited with code 127"."""
    for path in paths:
        if os.path.isabs(path) and not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise FileNotFoundError(errno.ENOENT, "a program arena starts bots with is missing",
                                    path)


MiB = 1024 * 1024
KEPT_BYTES = 16 * MiB
"""Memory one kept bot process takes from the machine: a sandboxed Python file bot (arena's
`random`, after a game) holds 11.8 MiB of its own (the proportional size of its process tree,
11.3 MiB private; its image of the system's files is shared) and some more of the kernel's
(page tables, its namespaces); `python benchmarks/hot_bots.py files --memory` measures it."""
LOW_MEMORY = 8
"""A kept process beyond the first few is let go when less than 1/LOW_MEMORY of the machine's
memory is available (bots larger than KEPT_BYTES, or other work on the machine)."""


def memory() -> tuple[int, int] | None:
    """The machine's memory available now and its total, in bytes (None: not known here)."""
    try:
        with open("/proc/meminfo", "rb") as info:
            fields = dict(line.split(b":", 1) for line in info.read().splitlines())
        return (int(fields[b"MemAvailable"].split()[0]) * 1024,
                int(fields[b"MemTotal"].split()[0]) * 1024)
    except (OSError, KeyError, ValueError):
        return None


def kept_in_memory(wanted: int, sharing: int = 1) -> int:
    """How many of `wanted` kept bot processes fit in half the memory available now, shared
    by `sharing` workers (at least one; `wanted` when the memory is not known)."""
    found = memory()
    if found is None:
        return wanted
    return max(1, min(wanted, found[0] // (2 * max(1, sharing) * KEPT_BYTES)))


def memory_low() -> bool:
    """Whether less than 1/LOW_MEMORY of the machine's memory is available now."""
    found = memory()
    return found is not None and found[0] * LOW_MEMORY < found[1]
