"""The lifetime of the images in memory that sandboxed bots are shown (`arena.hosts.view`):
each is held by the processes that use it, and a sweep removes one only when no process
does, keeping the few most recently used, so memory holds the images in use and the next
run's, not every image any run ever made (a day of test runs had left 17 GiB of them).

A process holds an image with a shared `flock` on the image's folder for as long as it
lives (the kernel lets go when it ends, however it ends); a sweep, run under the build
lock whenever a new image is made, takes each folder's lock exclusively without waiting,
so an image in use is never touched. A removed image is first renamed aside while locked:
a process that found its path just before and waits for the lock then sees it gone and
makes it again, never a half-removed one.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from pathlib import Path

IMAGES = Path("/dev/shm")
"""Where the images live: a tmpfs every Linux machine mounts."""
PREFIX = "arena-image-"
"""The prefix of an image's folder. Only code that holds what it uses makes these, so a
sweep never removes an image from under a process of an older arena that does not hold
(their images, `arena-view-*`, are left as they are: remove them by hand once none runs)."""
KEPT_UNUSED = 12
"""How many images no process uses a sweep keeps, the most recently used first (about
1 GiB of 89 MiB interpreter images): a run of the same bots again finds them made."""
IDLE_LIMIT = 24 * 3600.0
"""Seconds after its last use when an image no process uses is removed anyway."""
_held: dict[Path, int] = {}


def hold(path: Path) -> bool:
    """Hold an image in use for this process's life; False if a sweep removed it first."""
    if path in _held:
        return True
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    fcntl.flock(fd, fcntl.LOCK_SH)  # waits while a sweep renames it aside
    try:
        still = os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        still = False
    if not still:
        os.close(fd)
        return False
    os.utime(path)  # its last use, which the sweep keeps the newest of
    _held[path] = fd
    return True


def sweep(now: float | None = None) -> list[Path]:
    """Remove the images no process holds (all but the KEPT_UNUSED most recently used, and
    those idle for IDLE_LIMIT) and the leftovers of builders that died; run under the build
    lock, so no builder is at work."""
    now = time.time() if now is None else now
    unused: list[tuple[float, Path, int]] = []
    for path in sorted(IMAGES.glob(PREFIX + "*")):
        if path.is_symlink() or not path.is_dir():
            continue
        if path.name.startswith((PREFIX + "new-", PREFIX + "gone-")):
            shutil.rmtree(path, ignore_errors=True)
            continue
        fd = _unused(path)
        if fd is not None:
            unused.append((os.fstat(fd).st_mtime, path, fd))
    unused.sort(key=lambda entry: entry[0], reverse=True)
    removed = []
    for rank, (used, path, fd) in enumerate(unused):
        if rank >= KEPT_UNUSED or now - used > IDLE_LIMIT:
            _remove(path)
            removed.append(path)
        os.close(fd)
    return removed


def _unused(path: Path) -> int | None:
    """The folder locked exclusively, if no process holds it (and this user may)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _remove(path: Path) -> None:
    """Rename the image aside (its lock still held), then remove it."""
    gone = path.with_name(PREFIX + "gone-" + path.name[len(PREFIX):])
    try:
        path.rename(gone)
    except OSError:
        return
    shutil.rmtree(gone, ignore_errors=True)
