"""One control group per bot process: the kernel's totals for the bot and every helper it
starts (memory, tasks, an equal CPU share), its CPU time, its wait for a CPU (the CPU
pressure of its cgroup2 group: the time it wanted one and got none), whether the kernel's
OOM killer struck, freezing it between its turns (`arena.hosts.freezer`), and killing and
removing it all.

cgroup v2 is used where this referee's own group delegates the `cpu`, `memory` and `pids`
controllers (its cgroup.subtree_control names them); else the v1 hierarchies of `cpu`,
`cpuacct`, `memory` and `pids`, where they are mounted and writable; else none, and the
per-process RLIMITs (`arena.hosts.launcher`) are the only wall. A bot's group is frozen
through a cgroup2 hierarchy wherever one is mounted and writable (v2's freezer needs no
controller, so a hybrid machine's unified hierarchy serves; it freezes and thaws in a few
µs), else v1's `freezer` hierarchy (some 100 µs). The files are those of the
kernel's documentation (Documentation/admin-guide/cgroup-v2.rst, cgroup-v1/*.rst): nothing
is counted here that the kernel counts.

A group is created beside this referee's own (`arena-<referee pid>-<n>` in the referee's
cgroup of each controller), not under a common parent: under v1's `cpu` controller a group
competes with the referee's other tasks as one task of default weight, so each bot gets one
process's share however many helpers it runs, while one parent would give all bots together
the share of a single process. A bot process joins its group before any of its code runs:
`BotGroup.wrap` puts a /bin/sh trampoline before its argv that writes its own pid into each
controller's cgroup.procs, then execs the argv (no preexec_fn, which is unsafe with threads).
Groups of referees that died are removed once per referee, as `remove_stale_folders` does.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from arena.hosts.freezer import CgroupFreezer
from arena.hosts.trace import size_text

PREFIX = "arena-"
"""Group names: arena-<referee pid>-<n>."""
V1 = ("cpu", "memory", "pids", "cpuacct")
"""In the order a process joins them: `cpuacct` last, so its CPU time is 0 until it is in all."""
V2 = ("cpu", "memory", "pids")
TRAMPOLINE = ('unset PWD; while [ "$1" != -- ]; do echo $$ > "$1" || '
              '{ echo "arena: cannot join the bot\'s cgroup $1" >&2; exit 125; }; shift; done; '
              'shift; exec "$@"')
"""Join each cgroup.procs named before `--`, then become the bot's argv."""
_NUMBERS = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Delegated:
    """What this machine lets the referee use: the cgroup version and the controllers, with
    the folder of each (the referee's own group, where bot groups are created)."""

    version: int | None
    folders: tuple[tuple[str, str], ...] = ()
    freezer: tuple[int, str] | None = None
    """The freezer's version and the folder its groups are made in, or None."""

    @property
    def names(self) -> tuple[str, ...]:
        """The controllers, by name."""
        return tuple(name for name, _ in self.folders)

    def folder(self, controller: str) -> Path | None:
        """Where groups of this controller are made, or None if it is not delegated."""
        return next((Path(f) for name, f in self.folders if name == controller), None)

    def __str__(self) -> str:
        if self.version is None:
            return "no cgroups (per-process RLIMITs only)"
        return f"cgroup v{self.version}: {', '.join(self.names)}"


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """(mount root, mount point, type, options) of each cgroup file system mounted here."""
    found = []
    with contextlib.suppress(OSError), open("/proc/self/mountinfo", encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            rest = fields[fields.index("-") + 1:]
            if rest[0] in ("cgroup", "cgroup2"):
                found.append((fields[3], fields[4], rest[0], set(rest[2].split(","))))
    return found


def _own_groups() -> dict[str, str]:
    """This process's group path by controller ('' for the v2 hierarchy)."""
    groups = {}
    with contextlib.suppress(OSError), open("/proc/self/cgroup", encoding="utf-8") as f:
        for line in f:
            _, names, path = line.rstrip("\n").split(":", 2)
            for name in names.split(",") if names else [""]:
                groups[name] = path
    return groups


groups_now = _own_groups
groups_found = functools.cache(_own_groups)
"""This referee's groups when `controllers` first looked: its bot groups are made beside them."""


def _under(mount_root: str, point: str, path: str) -> Path:
    relative = os.path.relpath(path, mount_root) if path.startswith(mount_root) else path
    return Path(point) / relative.lstrip("/").removeprefix(".")


def _usable(folder: Path) -> bool:
    return folder.is_dir() and os.access(folder, os.W_OK)


def _v2(mounts: list[tuple[str, str, str, set[str]]], own: dict[str, str]) -> Delegated | None:
    for root, point, kind, _ in mounts:
        if kind != "cgroup2" or "" not in own:
            continue
        folder = _under(root, point, own[""])
        with contextlib.suppress(OSError):
            enabled = (folder / "cgroup.subtree_control").read_text().split()
            if set(V2) <= set(enabled) and _usable(folder):
                return Delegated(2, tuple((name, str(folder)) for name in V2))
    return None


def _v1(mounts: list[tuple[str, str, str, set[str]]], own: dict[str, str]) -> Delegated | None:
    folders = []
    for name in V1:
        for root, point, kind, options in mounts:
            if kind == "cgroup" and name in options and name in own:
                folder = _under(root, point, own[name])
                if _usable(folder):
                    folders.append((name, str(folder)))
                break
    if {name for name, _ in folders} != set(V1):
        return None
    return Delegated(1, tuple(folders))


@functools.cache
def controllers() -> Delegated:
    """The cgroup controllers this machine delegates to this referee (for `arena doctor`,
    the isolation levels and every bot process)."""
    if os.environ.get("ARENA_NO_CGROUPS"):
        return Delegated(None)
    mounts, own = _mounts(), groups_found()
    found = _v2(mounts, own) or _v1(mounts, own)
    if found is None:
        return Delegated(None)
    return Delegated(found.version, found.folders, _freezer(mounts, own))


def _freezer(mounts: list[tuple[str, str, str, set[str]]],
             own: dict[str, str]) -> tuple[int, str] | None:
    """Where bot groups can be frozen: a cgroup2 hierarchy (no controller needed), else v1's
    freezer hierarchy, writable by this referee; None if neither."""
    for version, key in ((2, ""), (1, "freezer")):
        for root, point, kind, options in mounts:
            if key in own and kind == ("cgroup2" if version == 2 else "cgroup") and (
                    version == 2 or key in options):
                folder = _under(root, point, own[key])
                if _usable(folder):
                    return version, str(folder)
    return None


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
    except OSError:
        return False
    return True


def _full_pressure(folder: Path | None) -> int:
    """The group's cpu.pressure opened to read where the kernel keeps its `full` line (a
    cgroup's since Linux 5.13), else -1."""
    if folder is None:
        return -1
    try:
        fd = os.open(folder / "cpu.pressure", os.O_RDONLY)
    except OSError:
        return -1
    try:
        if b"full " in os.pread(fd, 256, 0):
            return fd
    except OSError:
        pass
    os.close(fd)
    return -1


def _pids(folder: Path) -> list[int]:
    try:
        return [int(p) for p in (folder / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _kill_all(folders: list[Path]) -> None:
    """Stop, then kill, every process in the groups until none is left (v1 has no kill
    file; processes are stopped first so none can fork meanwhile), then thaw the groups: a
    task v1's freezer holds dies of its SIGKILL only once thawed, before its code runs."""
    for _ in range(50):
        pids = {pid for folder in folders for pid in _pids(folder)}
        if not pids:
            return
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, sig)
        for folder in folders:
            _write(folder / "cgroup.freeze", "0") or _write(folder / "freezer.state", "THAWED")
        time.sleep(0.002)


def _remove(folders: list[Path]) -> None:
    """Remove emptied groups (the kernel refuses while a task is still leaving)."""
    for folder in folders:
        for _ in range(100):
            try:
                folder.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.005)


@dataclass(frozen=True, slots=True)
class GroupLimits:
    """The totals of one bot process and all its helpers: bytes of memory (swap none),
    tasks (processes and threads), and its CPU weight (equal for every bot)."""

    memory: int | None
    tasks: int | None


class BotGroup:
    """One bot process's group in each delegated controller: its limits, its CPU time,
    whether the OOM killer struck it, and its end."""

    def __init__(self, limits: GroupLimits, delegated: Delegated | None = None) -> None:
        self.delegated = delegated or controllers()
        if self.delegated.version is None:
            raise OSError("no cgroups are delegated here")
        remove_stale_groups()
        self.limits = limits
        name = f"{PREFIX}{os.getpid()}-{next(_NUMBERS)}"
        parents = dict.fromkeys(str(self.delegated.folder(c)) for c in self.delegated.names)
        frozen = self.delegated.freezer
        parents.update({frozen[1]: None} if frozen else {})
        self.folders = [Path(parent) / name for parent in parents]
        self.freezer: CgroupFreezer | None = None
        try:
            for folder in self.folders:
                folder.mkdir()
            self._set_limits()
            if frozen:
                self.freezer = CgroupFreezer(Path(frozen[1]) / name, frozen[0])
        except OSError:
            self.remove()
            raise
        self._usage = os.open(self._usage_file(), os.O_RDONLY)
        self._events = [os.open(self._file(c, n), os.O_RDONLY) for c, n in self._event_files()]
        self._pressure = _full_pressure(self._unified(frozen))
        self._seen = (0, 0)
        self.closed = False
        self.used: float | None = None  # its CPU seconds when removed

    def _unified(self, frozen: tuple[int, str] | None) -> Path | None:
        """The group's folder in a cgroup2 hierarchy (a hybrid machine's unified one, where
        it is frozen), or None."""
        if self.delegated.version == 2:
            return self.folders[0]
        if frozen is not None and frozen[0] == 2:
            return Path(frozen[1]) / self.folders[0].name
        return None

    @property
    def counts_waits(self) -> bool:
        """Whether the kernel counts the group's waits for a CPU (`queued`)."""
        return self._pressure >= 0

    def queued(self) -> float:
        """Seconds the group wanted a CPU and got none: every task of it that was not asleep
        waited while others held the CPUs (the kernel's CPU pressure, `full total`: a wait
        still under way counted, a thread's or helper's as much as the bot's own; a wait
        behind its own tasks is not `full`). Only where `counts_waits`."""
        try:
            full = os.pread(self._pressure, 256, 0).split(b"full ", 1)[1]
            return int(full.split(b"total=", 1)[1].split()[0]) / 1e6
        except (OSError, ValueError, IndexError):
            return 0.0

    def _file(self, controller: str, name: str) -> Path:
        parent = self.delegated.folder(controller)
        assert parent is not None
        return parent / self.folders[0].name / name

    def _set_limits(self) -> None:
        memory, tasks = self.limits.memory, self.limits.tasks
        if self.delegated.version == 2:
            if memory is not None:
                self._file("memory", "memory.max").write_text(str(memory))
                _write(self._file("memory", "memory.swap.max"), "0")
            if tasks is not None:
                self._file("pids", "pids.max").write_text(str(tasks))
            return
        if memory is not None:
            self._file("memory", "memory.limit_in_bytes").write_text(str(memory))
            _write(self._file("memory", "memory.memsw.limit_in_bytes"), str(memory))
            _write(self._file("memory", "memory.swappiness"), "0")
        if tasks is not None:
            self._file("pids", "pids.max").write_text(str(tasks))

    def _usage_file(self) -> Path:
        if self.delegated.version == 2:
            return self._file("cpu", "cpu.stat")
        return self._file("cpuacct", "cpuacct.usage")

    def wrap(self, argv: list[str]) -> list[str]:
        """The argv that joins this group, then runs `argv` (before any of its code runs)."""
        procs = [str(folder / "cgroup.procs") for folder in self.folders]
        return ["/bin/sh", "-c", TRAMPOLINE, "arena-cgroup", *procs, "--", *argv]

    def cpu(self) -> float:
        """CPU seconds used by every process that was ever in the group (one pread; read
        twice a decision, so try rather than contextlib.suppress, which costs more)."""
        try:
            data = os.pread(self._usage, 4096, 0)
            if self.delegated.version == 2:
                return int(data.split(b"usage_usec", 1)[1].split()[0]) / 1e6
            return int(data) / 1e9
        except (OSError, ValueError, IndexError):
            return 0.0

    def _event_files(self) -> tuple[tuple[str, str], tuple[str, str]]:
        """Where the kernel counts OOM kills and refused forks."""
        memory = "memory.events" if self.delegated.version == 2 else "memory.oom_control"
        return ("memory", memory), ("pids", "pids.events")

    def _count(self, fd: int, key: bytes) -> int:
        """The number on the file's line `key N` (0 if it has none): read after every
        decision, so found with one search rather than line by line."""
        try:
            data = b"\n" + os.pread(fd, 4096, 0)
            at = data.find(b"\n" + key + b" ")
            return int(data[at + len(key) + 2:].split(b"\n", 1)[0]) if at >= 0 else 0
        except (OSError, ValueError):
            return 0

    def counts(self) -> tuple[int, int]:
        """(processes the OOM killer killed, forks refused at pids.max) in the group so far."""
        return self._count(self._events[0], b"oom_kill"), self._count(self._events[1], b"max")

    def out_of_memory(self) -> bool:
        """Whether the kernel's OOM killer killed a process of the group."""
        return self.counts()[0] > 0

    def broken(self) -> str | None:
        """What total the bot broke since the last call (two preads), or None."""
        counts = self.counts()
        oom, refused = counts[0] - self._seen[0], counts[1] - self._seen[1]
        self._seen = counts
        if oom:
            return f"memory limit ({self.memory_text()}): the kernel killed {oom} of its processes"
        if refused:
            return (f"task limit ({self.limits.tasks} processes and threads for the bot and "
                    f"its helpers): {refused} forks refused")
        return None

    def memory_text(self) -> str:
        """'1 GiB for the bot and its helpers' (the total, as a fault says it)."""
        return f"{size_text(self.limits.memory or 0)} for the bot and its helpers"

    def ran(self) -> bool:
        """Whether a process ever ran in the group (joined every controller): a bot process
        that never did failed to join, the referee's failure rather than the bot's."""
        return (self.cpu() if self.used is None else self.used) > 0

    def pids(self) -> list[int]:
        """The processes in the group now."""
        return _pids(self.folders[0])

    def kill(self) -> None:
        """Kill every process in the group (the v2 kill file, else one by one)."""
        if self.delegated.version == 2 and _write(self.folders[0] / "cgroup.kill", "1"):
            return
        _kill_all(self.folders)

    def remove(self) -> None:
        """Kill what is left and remove the group (once)."""
        if getattr(self, "closed", False):
            return
        self.closed = True
        self.used = self.cpu() if hasattr(self, "_usage") else 0.0
        freezer = getattr(self, "freezer", None)
        if freezer is not None:
            freezer.close()
        for fd in [getattr(self, "_usage", -1), *getattr(self, "_events", ()),
                   getattr(self, "_pressure", -1)]:
            with contextlib.suppress(OSError):
                os.close(fd)
        existing = [folder for folder in self.folders if folder.exists()]
        _kill_all(existing)
        _remove(existing)


def group_for(limits: GroupLimits) -> BotGroup | None:
    """A new bot's own cgroup where the machine delegates them, else None (RLIMITs only)."""
    return None if controllers().version is None else BotGroup(limits)


@functools.cache
def remove_stale_groups() -> list[str]:
    """Kill and remove bot groups left by referees that died (once per referee process);
    return the groups removed."""
    delegated = controllers()
    removed = []
    frozen = [Path(delegated.freezer[1])] if delegated.freezer else []
    for parent in dict.fromkeys([*(delegated.folder(c) for c in delegated.names), *frozen]):
        if parent is None:
            continue
        for folder in parent.glob(f"{PREFIX}*-*"):
            owner = folder.name[len(PREFIX):].split("-", 1)[0]
            if not owner.isdigit() or int(owner) == os.getpid() or _alive(int(owner)):
                continue
            _kill_all([folder])
            _remove([folder])
            removed.append(str(folder))
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
