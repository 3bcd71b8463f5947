"""The bubblewrap sandbox of one bot process: the command line that starts it, the files it
shows, and (as root) the unprivileged uid it runs as.

The bot sees only the system files it needs (`arena.hosts.view`: its interpreter, the
packages it imports, a command's program and their libraries, at their own paths under /usr
and the interpreter's prefixes), the few /etc files the dynamic loader needs, arena's own
package read-only (under the neutral folder /arena, never the repository: its results/ and
tests/ stay out), its own file or bot folder (or a command's program and the files its
arguments name) read-only, all of them from memory (tmpfs: no page it reads was ever cold,
so timing a read tells it nothing of what another bot read; and from the image of its seat
index, so no table-mate maps a page it maps), a private writable /tmp (its
working folder, HOME and TMPDIR) and /dev/shm, both empty at the start (what it must see
that lies in the host's /tmp, such as a venv, a checkout or a bot file, appears under
/outside instead), a /proc of fixed files and a minimal /dev. Nothing
else: no other entrant's files, no results folder, no host /proc, /root, /home or /sys. It
runs in new PID, IPC, UTS, cgroup and network namespaces (its own loopback only, unless the
entrant may use the network), with every capability dropped, in a new session, under the
seccomp filter of `arena.hosts.seccomp` (and the launcher's start gate, `arena.hosts.gate`),
and dies with the referee. bubblewrap stays PID 1 of the namespace (its reaper), so the bot
is not init and its own signals act as outside.

Its /proc is no procfs: a process's own folder there tells of its memory whether each page it
maps is present (pagemap, smaps), how many are (status's RssFile, statm), how often it faulted
(stat), read the disk (io) or waited (status's switches). After a fault maps the cached pages
around the one touched, or a read loads one from the disk, each tells whether a page of a file
every sandbox shares was cached already: two bots passed a hand through that exactly (issue
38). So /proc holds only quiet copies of the machine-wide counters (PROC_COUNTERS) and
/proc/self/exe, a link to the bot's program (the dynamic loader finds a program's libraries
beside it through it: java does).

As root, each bot process gets a uid of its own from UIDS, held with a flock'ed lock file so
no two live bot processes on the machine share one, and released when the process is gone.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import importlib.util
import json
import os
import re
import stat
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.botfile import BotFile
from arena.hosts import seccomp, view
from arena.hosts.gate import Gate
from arena.hosts.python_path import module_folders, module_location, site_folders, site_path
from arena.hosts.trace import VIEW_VARIABLE
from arena.hosts.walls import Level
from arena.plugins import is_folder

ROOT = "/arena"
"""Where arena's package (and its built-in bots) appear in the sandbox."""
ARENA = Path(__file__).resolve().parent.parent
LAUNCHER = f"{ROOT}/arena/hosts/launcher.py"
UIDS = range(61000, 65000)
UID_LOCKS = Path("/run/arena-uids")
SYSTEM = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")
ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
       "/etc/localtime", "/etc/ssl/openssl.cnf")
KERNEL = ("/proc", "/sys", "/dev", "/run")
"""Folders of the kernel's and the running system's: never shown from a command's arguments."""
PROC_COUNTERS = ("loadavg", "stat", "uptime", "meminfo", "vmstat", "schedstat", "diskstats",
                 "interrupts", "softirqs", "sched_debug", "timer_list", "locks", "swaps",
                 "zoneinfo", "buddyinfo", "pagetypeinfo", "slabinfo", "key-users", "cgroups")
"""The machine-wide counters in /proc (load, processes, memory, CPU time): two bots could
signal each other through them (one sets a thread count, the other reads the load), so each
reads a fixed, quiet copy instead. /proc/pressure and /proc/sys (pty/nr, fs/aio-nr, file-nr:
machine-wide counts a bot can move) are empty folders."""
QUIET = {"loadavg": b"0.00 0.00 0.00 1/1 1\n"}
TMP_BYTES = 64 * 1024 * 1024
SHM_BYTES = 16 * 1024 * 1024
PATH = os.pathsep.join([os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"])
"""A command's PATH in the sandbox: this interpreter's folder first (`python3` is the Python
arena runs on, never a shim whose tool the sandbox does not show), then the system's."""
PRIVATE = ("/tmp", "/dev/shm")
"""The bot's own empty, writable folders: nothing of the host's is shown inside them."""
OUTSIDE = "/outside"
"""Where a host path in PRIVATE is shown (/tmp/x as /outside/tmp/x): a bind beneath the bot's
/tmp would leave the skeleton of the host's folders (the organiser's temp folder's name) in it."""
CAPS_FOR_SETPRIV = ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")
"""All bubblewrap keeps as root, for setpriv to change to the bot's uid and drop them too."""


_FREED: list[int] = []
"""Uids this process gave back, the latest last: tried first (most are still free), so a
start does not try the lock of every uid the machine's other bot processes hold."""


class UidLease:
    """One uid of UIDS held by this process (a flock on its lock file) until released."""

    def __init__(self, locks: Path = UID_LOCKS) -> None:
        locks.mkdir(mode=0o700, parents=True, exist_ok=True)
        for uid in [*reversed(_FREED[-8:]), *UIDS]:  # only the lock keeps two bots apart
            fd = os.open(f"{locks}/{uid}", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            with contextlib.suppress(ValueError):  # another lane's thread may take it out
                _FREED.remove(uid)
            return
        raise OSError("every sandbox uid is in use by a live bot process")

    def release(self) -> None:
        """Give the uid back (its bot process is gone)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
            _FREED.append(self.uid)
            del _FREED[:-64]


@functools.cache
def _package_folder(name: str) -> Path | None:
    """The folder of an importable package, found without importing it."""
    spec = importlib.util.find_spec(name)
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]).resolve() if locations else None


def _under(path: str, folders: Iterable[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def shown_at(path: str) -> str:
    """Where a host path appears in the sandbox: at its own path, but under OUTSIDE when it
    lies in one of the bot's PRIVATE folders."""
    return OUTSIDE + path if _under(path, PRIVATE) else path


def host_words(text: str) -> str:
    """A sandboxed bot's words with the host paths it saw under OUTSIDE named as the host's
    (what the organiser wrote, and can open)."""
    for folder in PRIVATE:
        text = text.replace(OUTSIDE + folder + "/", folder + "/")
    return text


def _parents(path: str) -> list[str]:
    """The folders above `path`, outermost first, '/' excluded."""
    parts = Path(path).parts[1:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def _system_args(root: Path) -> list[str]:
    """The system's folders, from the image (`arena.hosts.view`), and the loader's /etc files
    (a few pages every program's start reads, so never cold)."""
    args: list[str] = []
    for path in SYSTEM:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += _from_image(root, path, path)
    for path in ETC:  # bubblewrap would make the folders above a bind target mode 0700
        for parent in _parents(path):
            args += ["--perms", "0755", "--dir", parent]
        copy = f"{root}{path}"
        args += (["--symlink", os.readlink(copy), path] if os.path.islink(copy)
                 else ["--ro-bind-try", copy, path])
    shown = {p.split("/")[2] for p in ETC}
    for name in sorted(os.listdir(f"{root}/etc")) if os.path.isdir(f"{root}/etc") else []:
        if name not in shown:  # a runtime's own configuration (Java's, on Debian)
            args += ["--ro-bind", f"{root}/etc/{name}", f"/etc/{name}"]
    return args


def _from_image(root: Path, path: str, at: str) -> list[str]:
    """Show an image's copy of a host folder at `at`, or an empty folder if it holds none."""
    copy = f"{root}{path}"
    return ["--ro-bind", copy, at] if os.path.isdir(copy) else ["--perms", "0755", "--dir", at]


def python_folders() -> list[str]:
    """The interpreter's prefixes (the venv's and its base) and any other site-packages on
    its path (the user's), outside the system folders: where installed plugins live."""
    found: list[str] = []
    for prefix in (sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable)),
                   *filter(os.path.isdir, site_folders())):
        real = os.path.realpath(prefix)
        if not _under(real, SYSTEM) and not _under(real, found):
            found.append(real)
    return found


class Sandbox:
    """The sandbox of one bot process: its bubblewrap command line, the file descriptors it
    reads (the seccomp filter, copies of files shown to another uid) and its uid lease."""

    def __init__(self, level: Level, exposed: Sequence[str], network: bool = False,
                 seat: int = 0) -> None:
        self.level = level
        self.network = network
        self.seat = seat
        """The seat index whose images it shows (`arena.hosts.view`): its table-mates' differ."""
        self.fds: list[int] = []
        self._proc_end = 0
        self.moved: list[str] = []
        self.own: Path | None = None
        self.lease = UidLease() if level.uses("uids") else None
        try:
            self.gate = Gate(shuts=not network)
            self.fds += self.gate.fds()
            self.prefix = self._prefix(exposed)
        except BaseException:
            self.close_fds()
            self.release()
            raise

    @property
    def uid(self) -> int | None:
        """The uid the bot runs as (None: this user's)."""
        return None if self.lease is None else self.lease.uid

    def argv(self, python: str, launch: Mapping[str, Any]) -> list[str]:
        """The full command line: bubblewrap, (setpriv to the bot's uid), then the launcher
        without `site` (`arena.hosts.python_path`) with its config, which finds arena under ROOT
        and walls itself in with Landlock."""
        landlock = {"network": self.network} if self.level.uses("landlock") else None
        path = [ROOT, *map(shown_at, [*site_folders(), *module_folders(launch.get("bot"))])]
        config = {**launch, "path": path, "site": [*map(shown_at, site_path())],
                  "landlock": landlock, "gate": self.gate.launch()}
        if isinstance(launch.get("bot"), str):
            config["bot"] = self._moved(launch["bot"])
        if isinstance(launch.get("command"), list):
            config["command"] = [self._moved(str(word)) for word in launch["command"]]
        exe = ["--symlink", shown_at(_program(python, launch.get("command"))), "/proc/self/exe"]
        prefix = [*self.prefix[:self._proc_end], *exe, "--remount-ro", "/proc",
                  *self.prefix[self._proc_end:]]
        return [*prefix, shown_at(python), "-I", "-S", "-B", "-u", LAUNCHER, json.dumps(config)]

    def _moved(self, text: str) -> str:
        """A bot reference or command word with each shown host path that `shown_at` moved
        replaced by where the bot sees it (a longer path first: /tmp/a/b before /tmp/a)."""
        for host in sorted(self.moved, key=len, reverse=True):
            text = re.sub(rf"(?<![\w.~/-]){re.escape(host)}(?![\w.~-])",
                          shown_at(host).replace("\\", r"\\"), text)
        return text

    def _fd(self, fd: int) -> str:
        self.fds.append(fd)
        return str(fd)

    def _prefix(self, exposed: Sequence[str]) -> list[str]:
        bwrap = _bwrap()
        folders = python_folders()
        paths = tuple(os.path.abspath(p) for p in exposed)
        root = view.system_image(SYSTEM, tuple(folders), ETC, paths,
                                 ("/usr/bin/setpriv",) if self.uid is not None else (), self.seat)
        args = [bwrap, *self._namespaces(), *_system_args(root), *self._quiet_proc()]
        self._proc_end = len(args)
        args += ["--dev", "/dev",
                "--size", str(TMP_BYTES), "--perms", "1777", "--tmpfs", "/tmp",
                "--size", str(SHM_BYTES), "--perms", "1777", "--tmpfs", "/dev/shm"]
        files = [p for p in paths if not view.shown_from_image(p, [*SYSTEM, *folders])]
        self.moved = [p for p in [*folders, *files] if shown_at(p) != p]
        dirs = {p for f in [*folders, *files] for p in _parents(shown_at(f))} | {ROOT}
        for path in sorted(dirs, key=lambda d: d.count("/")):
            args += ["--perms", "0755", "--dir", path]
        for folder in folders:
            args += _from_image(root, folder, shown_at(folder))
        args += _from_image(view.package_image(str(ARENA), self.seat), str(ARENA), ROOT + "/arena")
        bots = _package_folder("arena_bots")
        if bots is not None:
            args += _from_image(view.package_image(str(bots), self.seat), str(bots),
                                ROOT + "/arena_bots")
        if files:
            self.own = view.own_copy(files)
            args += [a for p in files for a in (
                "--ro-bind", f"{self.own}{os.path.realpath(p)}", shown_at(p))]
        args += ["--chdir", "/tmp", "--seccomp", self._fd(seccomp.filter_fd())]
        if self.uid is not None:
            args += ["--", "/usr/bin/setpriv", f"--reuid={self.uid}", f"--regid={self.uid}",
                     "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
                     "--no-new-privs"]
        return [*args, "--"]

    def _quiet_proc(self) -> list[str]:
        """A /proc of fixed files only: no procfs, so no process's own counters; the
        machine-wide ones a program may read are quiet copies (PROC_COUNTERS), files of one
        tmpfs that `argv` makes read-only whole (one remount, not a bind mount per file)."""
        args = ["--perms", "0555", "--tmpfs", "/proc", "--perms", "0555", "--dir", "/proc/self"]
        args += [a for f in ("/proc/pressure", "/proc/sys") if os.path.isdir(f)
                 for a in ("--perms", "0555", "--dir", f)]
        for name in PROC_COUNTERS:
            if os.path.exists(f"/proc/{name}"):
                fd = os.memfd_create(f"arena-{name}")
                os.write(fd, QUIET.get(name, b""))
                os.lseek(fd, 0, os.SEEK_SET)
                args += ["--perms", "0444", "--file", self._fd(fd), f"/proc/{name}"]
        return args

    def _namespaces(self) -> list[str]:
        args = ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try",
                "--hostname", "arena", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        if not self.network:
            args.append("--unshare-net")
        if self.uid is not None:
            for cap in CAPS_FOR_SETPRIV:
                args += ["--cap-add", cap]
        elif os.geteuid() != 0:
            args += ["--unshare-user", "--disable-userns"]
        return args

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """The bot's environment in the sandbox: `env` with the sandbox's PATH, and the mark
        that its view of site-packages is narrowed (a missing module's fault says so)."""
        return {**env, "PATH": os.pathsep.join(map(shown_at, PATH.split(os.pathsep))),
                VIEW_VARIABLE: "narrowed"}

    def close_fds(self) -> None:
        """Close the descriptors bubblewrap has inherited (after it started)."""
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds.clear()

    def release(self) -> None:
        """Give back the uid and remove the copy of the bot's own files (the bot process is
        gone)."""
        if self.lease is not None:
            self.lease.release()
        if self.own is not None:
            view.remove_copy(self.own)
            self.own = None


def _program(python: str, command: object) -> str:
    """The real path of the program the bot runs as: a command's, or else the interpreter."""
    if isinstance(command, list) and command:
        from shutil import which

        found = which(str(command[0]), path=PATH)
        if found:
            return os.path.realpath(found)
    return os.path.realpath(python)


def _bwrap() -> str:
    from arena.hosts.walls import find_program

    found = find_program("bwrap")
    if found is None:
        raise OSError("bubblewrap is not installed: apt-get install bubblewrap")
    return found


def exposed_for(config: Mapping[str, Any]) -> list[str]:
    """The files a launcher config names that the bot needs to see: its bot file, its bot
    folder (bound whole, read-only: a symlink in it resolves in the sandbox's view), or its
    command's program and the existing files its arguments name by absolute path."""
    bot = config.get("bot")
    if isinstance(bot, str) and is_folder(bot):
        return [os.path.abspath(bot)] if os.path.isdir(bot) else []
    if isinstance(bot, str):
        file = BotFile.parse(bot)
        if file is None:
            return module_location(bot) if ":" in bot else []
        return [file.path] if os.path.exists(file.path) else []
    command = config.get("command")
    if not isinstance(command, list) or not command:
        return []
    from shutil import which

    program = which(str(command[0]), path=PATH)
    paths = [program] if program and os.path.isfile(program) else []
    words = [w for a in command[1:] for w in str(a).split()]  # `sh -c "python /x/bot.py"` too
    paths += [w for w in (w.strip(";&|()'\"") for w in words) if _anyones_file(w)]
    return paths


def _anyones_file(word: str) -> bool:
    """Whether a command's argument names a file its own mode lets anyone read (never a
    folder, nothing of the kernel's, nothing its owner keeps private: the results' secret
    (0600), /etc/shadow (0640)), so that a command line cannot hand a bot the machine."""
    if not word.startswith("/") or _under(os.path.realpath(word), KERNEL) or _under(word, KERNEL):
        return False
    try:
        return os.path.isfile(word) and bool(os.stat(word).st_mode & stat.S_IROTH)
    except OSError:
        return False
