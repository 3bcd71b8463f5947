"""The lock of a results folder: one `arena run` (or ladder season) writes a folder at a time.

`.lock` is held with fcntl.flock for the span of a run and removed when it ends; a killed run
leaves the file, and the next run takes it (a lock dies with its process).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from arena.tournament.run.results import LOCK, ResultsError, own


class FolderLocked(ResultsError):
    """Another run holds the folder's lock."""


@contextlib.contextmanager
def locked(folder: str | os.PathLike[str]) -> Iterator[Path]:
    """Hold the folder's lock for the span of a run, so two runs never write one folder;
    the lock file is removed when the run ends, so a finished folder holds only results."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    handle = _take_lock(path / LOCK)
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        yield path
    finally:
        with contextlib.suppress(FileNotFoundError):
            (path / LOCK).unlink()  # while still held: nobody can take a file on its way out
        handle.close()  # closing the file releases the lock


def _take_lock(lock: Path) -> IO[str]:
    """Open and lock the lock file; FolderLocked if another run holds it. A file that was
    removed between our open and our lock (its run was ending) is not the lock any more:
    open the new one."""
    while True:
        if _a_link(lock):  # arena's lock is a file of its own: a link is removed, never opened
            lock.unlink()
        handle = open(own(lock), "a+", encoding="utf-8")  # noqa: SIM115 - held
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            try:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise
                raise FolderLocked(_locked_message(lock.parent, handle)) from None
            finally:
                handle.close()
        if _same_file(handle, lock):
            return handle
        handle.close()


def _a_link(lock: Path) -> bool:
    """Whether the lock's name is a symbolic link, or a hard link (a name of a file elsewhere,
    which truncating the lock would empty)."""
    try:
        status = os.lstat(lock)
    except FileNotFoundError:
        return False
    return stat.S_ISLNK(status.st_mode) or (stat.S_ISREG(status.st_mode) and status.st_nlink > 1)


def _same_file(handle: IO[str], path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(handle.fileno()), os.stat(path))
    except FileNotFoundError:
        return False


def _locked_message(path: Path, handle: IO[str]) -> str:
    handle.seek(0)
    owner = handle.read().strip()
    who = f" (process {owner})" if owner.isdigit() else ""
    return f"{path} is in use by another arena run{who}; wait for it to finish"
