"""The files a sandboxed bot sees besides its own, shown from images in memory (tmpfs) so that
no page it can read was ever cold: two bots that time their first read of a page of a file
both see could otherwise pass a hand through which pages the other warmed (issue 38).

An image is a folder under /dev/shm holding copies of host files at their host paths, made
once per machine and seat index and named by a digest of what it holds (each file's path,
size and modification time) and the seat index, so every sandbox at that seat index of every
run reuses it and a change of any file makes a new one. A tmpfs page is never dropped from
memory (only swapped, and the filter refuses MADV_PAGEOUT), so a read of it takes the same
time whoever read it first. Each process holds the images it uses until it ends, and
making a new image sweeps away those no process holds but the most recently used
(`arena.hosts.images`), so they do not pile up in memory.

There is one image per seat index (`seat`): the bot process at seat s of a table is shown
image s, a copy of its own, so two bots at one table never map one physical page of a file.
Two bots that did could pass a hand through the CPU's caches, one flushing a line of a page
both map and the other timing its reload (flush+reload, 30-50 of 64 bits a decision on
libc, issue 38). A table of k seats takes k images a machine, each made once.

The view is narrowed to what a bot needs: the interpreter, its standard library without its
tests, static libraries and tools (STDLIB_LEFT_OUT), the small top-level modules and `.pth`
files of its site-packages, the installed distributions arena needs, the installed plugins
(a bot named by its plugin name) and the ones a bot's files import by name
(`arena.hosts.needs`), a command's program and the files its arguments
name, and the shared libraries of every program and extension module in it (`ldd`), plus a
Java runtime's home and its configuration in /etc. A bot's own files are not shared: each
bot process reads a private copy (`own_copy`), made at its start and removed at its end.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from arena.hosts import images, needs
from arena.plugins import GROUP

PREFIX = images.PREFIX
OWN = "arena-own-"
"""The prefix of a bot's private copy of its own files, then the referee's pid."""
STDLIB_LEFT_OUT = frozenset({"test", "tests", "idlelib", "tkinter", "turtledemo", "ensurepip",
                             "lib2to3", "site-packages", "dist-packages", "__phello__"})
"""Folders of the standard library no bot needs (`config-*`, the static library, too)."""
JAVA_LEFT_OUT = frozenset({"src.zip", "jmods", "man", "demo", "legal", "include"})
ELF = b"\x7fELF"
ARENA_DISTRIBUTION = "liars-poker-arena"
Stamp = tuple[int, int, int, int, int] | None


class Files:
    """The host files of one image: regular files and symlinks, by absolute path."""

    def __init__(self) -> None:
        self.files: set[str] = set()
        self.links: dict[str, str] = {}
        self.folders: set[str] = set()

    def add(self, path: str) -> None:
        """Add a file (its folders' symlinks resolved), following a symlink to its target."""
        for _ in range(40):
            path = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
            if os.path.islink(path):
                target = os.readlink(path)
                self.links[path] = target
                path = os.path.join(os.path.dirname(path), target)
            elif os.path.isfile(path):
                self.files.add(path)
                return
            else:
                return

    def add_tree(self, folder: str, left_out: Iterable[str] | None = None) -> None:
        """Add a folder's files and folders; narrowed (the interpreter's), without the
        subfolders named in `left_out` (at any depth) and the files no bot needs."""
        skip = set(left_out or ())
        for top, dirs, names in os.walk(os.path.realpath(folder)):
            self.folders.add(top)
            if left_out is not None:
                dirs[:] = [d for d in dirs if d not in skip and not d.startswith("config-")]
                names = [n for n in names if _wanted(n)]
            for name in names:
                self.add(os.path.join(top, name))

    def add_own_tree(self, folder: str) -> None:
        """Add a bot's own folder: its files, its symlinks as links (never what they point to:
        the referee may read what the bot may not; a folder's check refuses links, but one
        may be put there after it)."""
        for top, dirs, names in os.walk(folder):
            self.folders.add(top)
            for name in [*names, *(d for d in dirs if os.path.islink(os.path.join(top, d)))]:
                path = os.path.join(top, name)
                if os.path.islink(path):
                    self.links[path] = os.readlink(path)
                elif os.path.isfile(path):
                    self.files.add(path)

    def add_links(self, folder: str) -> None:
        """Add a folder's files, its symlinks as they are (never what they point to)."""
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                self.links[path] = os.readlink(path)
            elif os.path.isfile(path):
                self.files.add(path)

    def digest(self) -> str:
        """A name for these files as they are now (path, size and modification time; not
        their bytecode, which the interpreter adds to its caches as it goes: an image made
        before has the rest of it, and a source's bytecode is checked against the source)."""
        hashed = hashlib.sha256()
        for path in sorted(p for p in self.files if not p.endswith(".pyc")):
            with contextlib.suppress(OSError):
                info = os.stat(path)
                hashed.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
        for link, target in sorted(self.links.items()):
            hashed.update(f"{link}\0->{target}\n".encode())
        for folder in sorted(self.folders):
            hashed.update(f"{folder}/\n".encode())
        return hashed.hexdigest()[:20]


def _wanted(name: str) -> bool:
    """Whether a file belongs in a view: no static library, no bytecode of other versions or
    optimisation levels."""
    if name.endswith(".a"):
        return False
    if name.endswith(".pyc"):
        tag = sys.implementation.cache_tag
        return name.endswith(f".{tag}.pyc")
    return True


def image(files: Files, libraries: bool = True, seat: int = 0) -> Path:
    """The image of these files (with the shared libraries their programs need) for the bots
    at one seat index of a table, made now if no process of this machine made it before,
    and held in use by this process until it ends (so no sweep removes it under a bot)."""
    final = images.IMAGES / f"{PREFIX}{files.digest()}-seat{seat}"
    for _ in range(5):
        if final.is_dir() and images.hold(final):
            return final
        with _build_lock():
            if not final.is_dir():
                images.sweep()
                _build(files, final, libraries)
    raise OSError(f"the image {final} was removed each time it was made")


def _build(files: Files, final: Path, libraries: bool) -> None:
    """Copy the files into a new image, renamed into place whole (never seen half made)."""
    if libraries:
        _add_libraries(files)
    work = Path(tempfile.mkdtemp(prefix=PREFIX + "new-", dir=images.IMAGES))
    try:
        _copy(files, work)
        work.chmod(0o700)  # the bot sees what is bound from inside, no one else
        work.rename(final)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


@contextlib.contextmanager
def _build_lock() -> Iterator[None]:
    """One builder or sweeper of images at a time on this machine."""
    fd = os.open(images.IMAGES / (PREFIX + "lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC,
                 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _copy(files: Files, root: Path, own: bool = False) -> None:
    """Copy each folder, file (readable by anyone, as the sandbox's uid must) and symlink
    under root; of the system's files, only those their mode lets anyone read (a key kept
    private beside a runtime's configuration stays out), of a bot's own, all."""
    for folder in sorted(files.folders):
        _folders(root, Path(str(root) + folder))
    for path in sorted(files.files):
        with contextlib.suppress(OSError):
            if not own and not os.stat(path).st_mode & stat.S_IROTH:
                continue
        target = Path(str(root) + path)
        _folders(root, target.parent)
        with contextlib.suppress(FileNotFoundError):
            shutil.copyfile(path, target, follow_symlinks=False)
            if target.is_symlink():  # the file became a link since: nothing done through it
                continue
            target.chmod(0o555 if os.access(path, os.X_OK) else 0o444)
            info = os.stat(path)  # a module's bytecode is valid while its source's time is
            os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
    for link, points_to in sorted(files.links.items()):
        target = Path(str(root) + link)
        _folders(root, target.parent)
        if not target.exists() and not target.is_symlink():
            target.symlink_to(points_to)


def _folders(root: Path, folder: Path) -> None:
    if not folder.is_dir():
        folder.mkdir(mode=0o755, parents=True)
        for parent in [folder, *folder.parents]:
            if parent == root:
                break
            parent.chmod(0o755)


def _add_libraries(files: Files) -> None:
    """Add the shared libraries each program and extension module needs, as `ldd` finds them
    (so the loader's search path, RPATHs and $ORIGIN included)."""
    elves = [path for path in sorted(files.files) if _is_elf(path)]
    seen: set[str] = set()
    while elves:
        seen.update(elves)
        found = _ldd(elves)
        before = set(files.files)
        for library in found:
            files.add(library)
        elves = [p for p in sorted(files.files - before) if p not in seen and _is_elf(p)]


def _is_elf(path: str) -> bool:
    try:
        with open(path, "rb") as file:
            return file.read(4) == ELF
    except OSError:
        return False


LOADER_FILES = ("/etc/ld.so.cache", "/etc/ld.so.preload")
"""The loader's files whose change may change what `ldd` finds for the same program."""
_LIBRARIES: dict[tuple[str, ...], tuple[tuple[tuple[str, Stamp], ...], frozenset[str]]] = {}
"""What `ldd` found for a list of programs, with the stamps of every file it depended on."""


def _stamp(path: str) -> Stamp:
    """A file as it is now (device, inode, size, modification and change time), None if it is
    gone: the change time, which every write moves and no `utime` sets back, tells a file
    rewritten in place with its old size and modification time."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _ldd(paths: list[str]) -> set[str]:
    """The shared libraries of these programs, as `ldd` finds them; asked once a process
    while neither a program, the loader's cache nor a library it found has changed (an
    image for a new set of a bot's files asked it for the same programs each time)."""
    key = (os.environ.get("LD_LIBRARY_PATH", ""), os.environ.get("LD_PRELOAD", ""), *paths)
    known = _LIBRARIES.get(key)
    if known is not None and all(_stamp(path) == stamp for path, stamp in known[0]):
        return set(known[1])
    stamps = [(path, _stamp(path)) for path in (*paths, *LOADER_FILES)]  # before it reads
    found = _run_ldd(paths)
    stamps += [(path, _stamp(path)) for path in sorted(found)]
    _LIBRARIES[key] = (tuple(stamps), frozenset(found))
    return found


def _run_ldd(paths: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(paths), 200):
        run = subprocess.run(["ldd", *paths[start:start + 200]], capture_output=True,
                             text=True, check=False)
        for line in run.stdout.splitlines():
            match = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
            if match:
                found.add(match.group(1))
    return found


def add_distribution(files: Files, name: str) -> None:
    """Add one installed distribution's files (but its static libraries and stale bytecode)."""
    for path in needs.distribution_files(name):
        if _wanted(os.path.basename(path)):
            files.add(path)


@functools.cache
def python_files(folders: tuple[str, ...]) -> Files:
    """The interpreter's files every Python bot needs, and arena's own distributions."""
    files = Files()
    files.add(sys.executable)
    stdlib = os.path.dirname(os.__file__)
    files.add_tree(stdlib, STDLIB_LEFT_OUT)
    for folder in folders:
        for name in ("pyvenv.cfg",):
            files.add(os.path.join(folder, name))
        bin_folder = os.path.join(folder, "bin")
        if os.path.isdir(bin_folder):
            for name in os.listdir(bin_folder):
                if name.startswith("python"):
                    files.add(os.path.join(bin_folder, name))
    for site in needs.site_folders():
        for name in os.listdir(site):
            if name.endswith((".py", ".pth")) or name == "_distutils_hack":
                path = os.path.join(site, name)
                files.add_tree(path, ()) if os.path.isdir(path) else files.add(path)
    names = needs.requirements(ARENA_DISTRIBUTION, set()) | needs.plugin_distributions(GROUP)
    for name in sorted(names):
        add_distribution(files, name)
    return files


def add_program(files: Files, program: str) -> None:
    """Add a command's program, the interpreter its `#!` line names, and a Java runtime's
    home (its `lib/modules`, which the loader does not list)."""
    files.add(program)
    real = os.path.realpath(program)
    home = os.path.dirname(os.path.dirname(real))
    if os.path.isfile(os.path.join(home, "lib", "modules")):
        for name in os.listdir(home):
            path = os.path.join(home, name)
            if name in JAVA_LEFT_OUT:
                continue
            if os.path.islink(path) and os.path.isdir(path):  # Debian's conf: in /etc
                files.links[path] = os.readlink(path)
            files.add_tree(path, ()) if os.path.isdir(path) else files.add(path)
    add_runtime(files, real)


def add_runtime(files: Files, program: str) -> None:
    """Add what a program outside the image runs on: the interpreter its `#!` line names
    (through `env`, the one found on the path), or the shared libraries an ELF one loads."""
    if _is_elf(program):
        for library in _ldd([program]):
            files.add(library)
        return
    with contextlib.suppress(OSError), open(program, "rb") as file:
        line = file.readline(256)
        if line.startswith(b"#!"):
            words = line[2:].decode(errors="replace").split()
            if words:
                files.add(words[0])
                if os.path.basename(words[0]) == "env" and len(words) > 1:
                    found = shutil.which(words[1])
                    if found:
                        files.add(found)


def shown_from_image(path: str, folders: Iterable[str]) -> bool:
    """Whether a file a bot needs lies in the system's or the interpreter's folders, and so
    is shown from the system image rather than bound from the host."""
    real = os.path.realpath(path)
    return any(p == f or p.startswith(f.rstrip("/") + "/")
               for p in (path, real) for f in folders)


def system_image(system: tuple[str, ...], python: tuple[str, ...], etc: tuple[str, ...],
                 exposed: tuple[str, ...], programs: tuple[str, ...], seat: int = 0) -> Path:
    """The image of the interpreter (its `python` folders) and arena's needs, with what this
    bot's files import as they are now, the programs it runs and the files it names
    (`exposed`) that lie in the system's or the interpreter's folders, for the bots at one
    seat index (`seat`). Made once a process for each such set, what the files import
    included: a bot file or folder at a path played before (a season's next version of a
    bot, an edited file) that imports another distribution is shown it."""
    imported = tuple(sorted(needs.imported_distributions(exposed)))
    return _system_image(system, python, etc, exposed, programs, seat, imported)


@functools.cache
def _system_image(system: tuple[str, ...], python: tuple[str, ...], etc: tuple[str, ...],
                  exposed: tuple[str, ...], programs: tuple[str, ...], seat: int,
                  imported: tuple[str, ...]) -> Path:
    """`system_image`, with the distributions the bot's files import (`imported`)."""
    folders = (*system, *python)
    files = Files()
    base = python_files(python)
    files.files, files.links = set(base.files), dict(base.links)
    for name in imported:
        add_distribution(files, name)
    for path in (p for p in exposed if shown_from_image(p, folders)):
        if os.path.isdir(path):
            files.add_tree(path, ())
        elif _is_elf(os.path.realpath(path)) or os.access(path, os.X_OK):
            add_program(files, path)
        else:
            files.add(path)
    for path in (p for p in exposed if not shown_from_image(p, folders)):
        if os.path.isfile(path) and os.access(path, os.X_OK):  # a bot's own program
            add_runtime(files, os.path.realpath(path))
    for program in programs:
        add_program(files, program)
    for path in etc:
        files.add_links(path) if os.path.isdir(path) else files.add(path)
    return image(files, seat=seat)


@functools.cache
def package_image(folder: str, seat: int = 0) -> Path:
    """The image of one package folder (arena's, its built-in bots') for the bots at one seat
    index, made once a process."""
    files = Files()
    files.add_tree(folder, ())
    return image(files, libraries=False, seat=seat)


def own_copy(paths: Iterable[str]) -> Path:
    """A private copy of a bot's own files and folders (each at its real path inside), for
    one bot process: no other bot reads its pages, so none can tell which it read. Removed
    with `remove_copy` when the process is gone."""
    _remove_stale_copies()
    files = Files()
    for path in paths:
        real = os.path.realpath(path)
        files.add_own_tree(real) if os.path.isdir(real) else files.add(real)
    root = Path(tempfile.mkdtemp(prefix=f"{OWN}{os.getpid()}-", dir=images.IMAGES))
    try:
        _copy(files, root, own=True)
    except BaseException:
        remove_copy(root)
        raise
    return root


def remove_copy(root: Path) -> None:
    """Remove a bot's private copy (its process is gone)."""
    shutil.rmtree(root, ignore_errors=True)


@functools.cache
def _remove_stale_copies() -> None:
    """Remove the copies left by referees that died without cleaning up (once a process)."""
    for path in images.IMAGES.glob(f"{OWN}*-*"):
        owner = path.name[len(OWN):].split("-", 1)[0]
        if owner.isdigit() and int(owner) != os.getpid():
            try:
                os.kill(int(owner), 0)
            except ProcessLookupError:
                remove_copy(path)
            except PermissionError:
                continue
