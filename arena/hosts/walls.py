"""The walls this machine can put around an untrusted bot, and the isolation levels built from
them: `strict` (every wall), `standard` (bubblewrap and seccomp, the rest where present) and
`none` (a launcher with rlimits and, where `unshare` works, a PID namespace: trusted bots only).

Each wall is found by looking, never assumed: the program on PATH and a sandbox that starts,
libseccomp loaded and a filter compiled, the Landlock ABI the kernel answers, the cgroup
controllers mounted and writable, and root (one unprivileged uid per bot needs it). A level
that is asked for and cannot be had is refused in one line naming the missing wall and the
command that installs it: nothing fails open.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from arena.hosts import landlock, seccomp

LEVELS = ("strict", "standard", "none")
NEEDS: Mapping[str, tuple[str, ...]] = {
    "strict": ("bubblewrap", "seccomp", "landlock", "cgroups", "uids"),
    "standard": ("bubblewrap", "seccomp"),
    "none": (),
}
"""The walls each level refuses to start without."""
USER_NAMESPACES = Path("/proc/sys/user/max_user_namespaces")
CGROUP_CONTROLLERS = ("memory", "pids", "cpu")
"""The controllers strict needs: total memory, tasks, CPU share and usage."""


class IsolationError(RuntimeError):
    """An isolation level that this machine cannot give; the message says what is missing."""


@dataclass(frozen=True, slots=True)
class Wall:
    """One wall: whether this machine has it, what it is, what it stops, how to get it."""

    key: str
    name: str
    found: bool
    detail: str
    protects: str
    install: str


def find_program(name: str) -> str | None:
    """Where a program is (the boundary the tests fake)."""
    return shutil.which(name)


def _run(argv: list[str]) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None


def bubblewrap() -> Wall:
    """bubblewrap, found and able to start a sandbox here."""
    path = find_program("bwrap")
    detail, found = "not installed", False
    if path is not None:
        version = _run([path, "--version"])
        detail = version.stdout.strip() if version and version.returncode == 0 else "bubblewrap"
        user = [] if os.geteuid() == 0 else ["--unshare-user"]
        probe = _run([path, "--ro-bind", "/", "/", *user, "--unshare-pid", "--unshare-net",
                      "--die-with-parent", "true"])
        found = probe is not None and probe.returncode == 0
        if not found:
            detail += " (cannot start a sandbox here)"
    return Wall("bubblewrap", "bubblewrap", found, detail,
                "a bot sees only the interpreter, arena's launcher and its own file, in its "
                "own PID, IPC, UTS and network namespaces", "apt-get install bubblewrap")


def user_namespaces() -> Wall:
    """Whether unprivileged users may make user namespaces (bubblewrap needs them for non-root)."""
    try:
        count = int(USER_NAMESPACES.read_text())
    except (OSError, ValueError):
        count = 0
    return Wall("userns", "user namespaces", count > 0, f"max {count}",
                "bubblewrap without root (arena as an ordinary user)",
                "sysctl user.max_user_namespaces=15000")


def seccomp_wall() -> Wall:
    """libseccomp, loaded, and a filter compiled by it."""
    try:
        found, detail = bool(seccomp.filter_bpf()), "libseccomp"
    except OSError:
        found, detail = False, "libseccomp not found"
    return Wall("seccomp", "seccomp", found, detail,
                "mount, ptrace, process_vm_*, new namespaces, keyrings, bpf, modules",
                "apt-get install libseccomp2")


def landlock_wall() -> Wall:
    """The kernel's Landlock ABI."""
    version = landlock.abi()
    return Wall("landlock", "Landlock", version > 0, f"Landlock {version}" if version else "none",
                "writing outside /tmp and /dev/shm; TCP (ABI 4); abstract sockets and "
                "signals out of the sandbox (ABI 6)",
                "a kernel with CONFIG_SECURITY_LANDLOCK=y and lsm=landlock (Linux 5.13+)")


def cgroup_controllers() -> tuple[str, tuple[str, ...]]:
    """The cgroup version and the controllers arena uses here ("", () if none), as
    `arena.hosts.cgroups` finds them for every bot process (one finder)."""
    from arena.hosts.cgroups import controllers

    delegated = controllers()
    if delegated.version is None:
        return "", ()
    names = {"cpuacct": "cpu"}  # v1 bills CPU time in cpuacct, beside cpu's share
    found = {names.get(c, c) for c in delegated.names}
    return f"v{delegated.version}", tuple(c for c in CGROUP_CONTROLLERS if c in found)


def cgroups() -> Wall:
    """The cgroup controllers for total memory, tasks and CPU."""
    version, found = cgroup_controllers()
    missing = [c for c in CGROUP_CONTROLLERS if c not in found]
    detail = f"cgroups {version} ({', '.join(found)})" if found else "none writable"
    return Wall("cgroups", "cgroups", not missing, detail,
                "a bot's total memory, processes and CPU, its helpers' included",
                "run arena as root, or delegate a cgroup v2 subtree with memory, pids and cpu "
                "(systemd-run --user --scope -p Delegate=yes)")


def uid_per_bot() -> Wall:
    """Root (and setpriv): each bot process gets its own unprivileged uid."""
    found = os.geteuid() == 0 and find_program("setpriv") is not None
    detail = "root" if found else "not root: every bot shares this user's uid"
    return Wall("uids", "one uid per bot", found, detail,
                "bots at one table signalling, reading or tracing each other as the same user",
                "run arena as root (util-linux setpriv: apt-get install util-linux)")


@functools.cache
def survey() -> tuple[Wall, ...]:
    """Every wall, found or missing, once per process."""
    return (bubblewrap(), user_namespaces(), seccomp_wall(), landlock_wall(), cgroups(),
            uid_per_bot())


@dataclass(frozen=True, slots=True)
class Level:
    """An isolation level as it runs here: its name and the walls it uses."""

    name: str
    walls: tuple[Wall, ...]

    def uses(self, key: str) -> bool:
        """Whether this level puts up that wall."""
        return any(w.key == key for w in self.walls)

    @property
    def sandboxed(self) -> bool:
        """Whether bots run inside bubblewrap."""
        return self.uses("bubblewrap")

    def describe(self) -> str:
        """One line: 'strict (bubblewrap 0.8.0, seccomp, Landlock 7, cgroups v1, ...)'."""
        if self.name == "none":
            return "none (a process with rlimits: trusted bots only)"
        words = [w.detail if w.key in ("bubblewrap", "landlock") else
                 w.detail.split(" (")[0] if w.key == "cgroups" else w.name
                 for w in self.walls]
        if not self.uses("cgroups"):
            words.append("rlimits, no cgroups")
        if not self.uses("uids"):
            words.append("one uid for all bots")
        return f"{self.name} ({', '.join(words)})"


def _wall(walls: tuple[Wall, ...], key: str) -> Wall:
    return next(w for w in walls if w.key == key)


def strongest(walls: tuple[Wall, ...] | None = None) -> str:
    """The strongest level this machine gives."""
    walls = survey() if walls is None else walls
    for name in LEVELS:
        if all(_wall(walls, key).found for key in NEEDS[name]):
            return name
    return "none"


def level(name: str | None = None, walls: tuple[Wall, ...] | None = None) -> Level:
    """The level asked for (None: the strongest here), or IsolationError naming what is missing."""
    walls = survey() if walls is None else walls
    name = strongest(walls) if name is None else name
    if name not in LEVELS:
        raise IsolationError(f"isolation must be one of {', '.join(LEVELS)}, not {name!r}")
    missing = [w for w in (_wall(walls, key) for key in NEEDS[name]) if not w.found]
    if len(missing) == 1:
        wall = missing[0]
        raise IsolationError(f"isolation {name} needs {wall.name}, which is missing here "
                             f"({wall.detail}): {wall.install}")
    if missing:  # every one named, so that fixing the first is not a dead end
        said = "; ".join(f"{w.name} ({w.detail}): {w.install}" for w in missing)
        raise IsolationError(f"isolation {name} needs {len(missing)} walls missing here: {said}")
    if name == "none":
        return Level(name, ())
    used = ("bubblewrap", "seccomp", "landlock", "cgroups", "uids")
    return Level(name, tuple(_wall(walls, k) for k in used if _wall(walls, k).found))
