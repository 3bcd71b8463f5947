"""The run's secret: its root seed, kept in the results folder readable by its owner only, so
no bot can foresee a die (docs/config.md, "Seeds")."""

from __future__ import annotations

import os
from pathlib import Path

from arena.tournament.run import safe_read
from arena.tournament.run.results import (
    SECRET,
    TEMPORARY_SUFFIX,
    ResultsError,
    open_fresh,
    sync_folder,
)

__all__ = ["read_secret", "write_secret"]

_LONGEST = 64
"""Bytes a seed's file may hold: a seed is one integer; a longer file is not one."""


def write_secret(folder: str | os.PathLike[str], seed: int) -> None:
    """Save the run's root seed readable by its owner only (created 0600, then renamed)."""
    target = Path(folder) / SECRET
    temporary = target.with_name(f".{SECRET}.{os.getpid()}{TEMPORARY_SUFFIX}")
    with open_fresh(temporary) as handle:  # through no link left there
        os.fchmod(handle.fileno(), 0o600)  # whatever the umask, before the seed is in it
        handle.write(f"{seed}\n".encode())
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, target)
    sync_folder(target.parent)


def read_secret(folder: str | os.PathLike[str]) -> int | None:
    """The run's root seed saved in the folder, or None when there is none (a new folder);
    read as a stranger's file, within bounds."""
    path = Path(folder) / SECRET
    if not os.path.lexists(path):
        return None
    try:
        text = safe_read.read_file(path, _LONGEST).decode("ascii").strip()
    except (safe_read.Unreadable, UnicodeDecodeError) as exc:
        raise ResultsError(f"{path}: cannot read the run's seed: {exc}") from None
    if not text.lstrip("-").isdigit():
        raise ResultsError(f"{path}: not a seed ({text[:20]!r}); put the run's seed back, "
                           "or start over with --force")
    return int(text)
