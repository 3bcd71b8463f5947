"""Which installed distributions a sandboxed Python bot needs (`arena.hosts.view` shows it
only those): arena's own, with what they need, and those the bot's own `.py` files name in
an `import` line (anywhere in them: a package imported only by a call is not found, and the
bot's fault says to add the line), with what those need. Found as the sandbox's interpreter
finds them: in site-packages, never in a checkout's metadata on this process's path.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import re
import stat
import sys
import threading
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path


def site_folders() -> list[str]:
    return [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))
            and os.path.isdir(p)]


def _distribution(name: str) -> metadata.Distribution | None:
    """An installed distribution as the sandbox's interpreter finds it: in site-packages
    (never a checkout's metadata on this process's path)."""
    return next(iter(metadata.distributions(name=name, path=site_folders())), None)


def requirements(name: str, seen: set[str]) -> set[str]:
    """A distribution's name and those of everything it needs (extras left out)."""
    distribution = _distribution(name)
    if distribution is None:
        return seen
    needs = distribution.requires or []
    seen.add(name)
    for need in needs:
        if "extra ==" in need:
            continue
        match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", need)
        if match and match.group(0) not in seen:
            requirements(match.group(0), seen)
    return seen


def distribution_files(name: str) -> list[str]:
    """One installed distribution's files, as its RECORD lists them."""
    distribution = _distribution(name)
    if distribution is None:
        return []
    return [os.path.normpath(str(distribution.locate_file(f))) for f in distribution.files or []]


@functools.cache
def _owners() -> dict[str, list[str]]:
    return {k: list(v) for k, v in metadata.packages_distributions().items()}


def imported_distributions(paths: Iterable[str]) -> set[str]:
    """The installed distributions a bot's Python files import by name, with their needs."""
    names: set[str] = set()
    for path in paths:
        for file in _python_files(path):
            names |= _imports(file)
    names -= set(sys.stdlib_module_names) | {"arena", "arena_bots"}
    found: set[str] = set()
    for name in sorted(names):
        for owner in _owners().get(name, []):
            requirements(owner, found)
    return found


def _python_files(path: str) -> list[str]:
    if os.path.isdir(path):
        return sorted(str(p) for p in Path(path).rglob("*.py"))
    return [path] if path.endswith(".py") else []


def _imports(path: str) -> set[str]:
    """The top-level names a Python file's `import` statements name, as its bytes are now
    (parsed again only for bytes not parsed before: each seat's image asks, and each run's
    built-in bots' package). Keyed by the bytes' digest, never by the file's path, size or
    time: a file rewritten, renamed over or a symlink turned, to one of the same size and
    time (which tar, rsync -t or `touch -r` give), is read as it is."""
    data = _regular_file_bytes(path)
    if data is None:
        return set()
    key = hashlib.sha256(data).digest()
    with _PARSED_LOCK:
        found = _PARSED.get(key)
    if found is None:
        found = _parsed_imports(data)
        with _PARSED_LOCK:
            _PARSED[key] = found
            while len(_PARSED) > PARSED_KEPT:
                del _PARSED[next(iter(_PARSED))]
    return set(found)


def _regular_file_bytes(path: str) -> bytes | None:
    """The bytes of a regular file (a symlink followed), else None: never a FIFO's (whose
    open would wait for a writer, hanging the referee) nor a device's (/dev/zero never
    ends), whatever a bot folder's `.py` name was made since it was checked."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as file:
            return file.read()
    except OSError:
        return None
    finally:
        os.close(fd)


PARSED_KEPT = 4096
_PARSED: dict[bytes, frozenset[str]] = {}
"""Each parsed file's imports by the sha256 of its bytes, the oldest dropped first."""
_PARSED_LOCK = threading.Lock()


def _parsed_imports(data: bytes) -> frozenset[str]:
    """`_imports` of these bytes."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # a crafted file's depth
        return frozenset()  # (its own process fails to compile it, and says so)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return frozenset(names)


def plugin_distributions(group: str) -> set[str]:
    """The installed distributions that declare plugins in arena's entry-point group, with
    what they need: a bot named by its plugin name is loaded from them."""
    found: set[str] = set()
    for distribution in metadata.distributions(path=site_folders()):
        if any(point.group == group for point in distribution.entry_points):
            requirements(distribution.metadata["Name"], found)
    return found
