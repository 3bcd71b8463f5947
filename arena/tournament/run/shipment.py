"""Bot files sent with the work to the machines that play it: a cluster's workers see none
of the organiser's folders, so each file bot's source travels with the job, is written
there once under its digest, and the entrant is played from that copy.

`pack` reads the files the entrants name (on the organiser's machine, once, when the run
starts: a file edited or deleted later changes no game); `Shipment.unpack` writes them on a
worker (content-addressed, so a run's second batch or a second run finds them there, checked
again) and `located` gives the entrants' references pointing at the copies, still named,
described and reported by the config's path. Every run ships, on one machine too: one
mechanism. A file is never imported here: it is only bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena.botfile import BotFile
from arena.entrants import Reference
from arena.plugins import is_folder
from arena.tournament.config import EntrantConfig
from arena.tournament.errors import TournamentError

__all__ = ["NOTHING_SHIPPED", "SHIPPED_FOLDER", "Shipment", "bot_path", "folder_refusal", "located",
           "pack"]

SHIPPED_FOLDER = "arena-shipped-bots"
"""Under the worker's temporary folder, with the worker's uid: one folder per digest, the
file under its name."""


@dataclass(frozen=True, slots=True)
class Shipment:
    """Bot files by their path as the config names them, with their bytes."""

    files: tuple[tuple[str, bytes], ...] = ()

    def unpack(self, root: str | os.PathLike[str] | None = None) -> dict[str, str]:
        """Write each file where this machine keeps shipped bots; their paths by config path."""
        if not self.files:
            return {}
        base = _own_folder(Path(root or tempfile.gettempdir()) / f"{SHIPPED_FOLDER}-{os.getuid()}")
        return {path: str(_written(base, path, data)) for path, data in self.files}


NOTHING_SHIPPED = Shipment()
"""The shipment of a setup that names no bot file."""


def _own_folder(base: Path) -> Path:
    """The folder, made now or before by this user and writable by no other: anyone else's
    (or a symlink to it) could swap a copy for a bot of their own between two games. Nobody
    else may list it: a copy is found only by its digest, which only its source gives."""
    with contextlib.suppress(FileExistsError):
        base.mkdir(mode=0o711)
    found = os.lstat(base)
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid():
        raise OSError(f"{base} belongs to another user: shipped bots are not kept there")
    if found.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise OSError(f"{base} is writable by other users: shipped bots are not kept there")
    os.chmod(base, 0o711)  # others may pass through to a copy (a bot's uid) but not list
    return base


def bot_path(ref: str) -> str | None:
    """The file a bot reference names (`path.py` or `path.py:Class`), else None."""
    file = BotFile.parse(ref)
    return None if file is None else file.path


def pack(entrants: Sequence[EntrantConfig]) -> Shipment:
    """The bot files of these entrants, read once (each file once)."""
    paths = dict.fromkeys(p for e in entrants if e.bot and (p := bot_path(e.bot)))
    return Shipment(tuple((path, _read(path)) for path in paths))


def folder_refusal(entrants: Sequence[EntrantConfig]) -> str | None:
    """Why these entrants cannot play on a cluster (a bot folder: only files are shipped)."""
    for entrant in entrants:
        if entrant.bot and is_folder(entrant.bot):
            return (f"bot folder {entrant.bot!r} cannot play on a cluster (arena ships bot "
                    "files, not folders): play it without --cluster")
    return None


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise TournamentError(f"bot file {path!r} cannot be read: {exc.strerror}") from None


def located(entrants: Sequence[EntrantConfig], places: Mapping[str, str]
            ) -> tuple[Reference, ...]:
    """The entrants' references, each shipped bot file located where it was written here."""
    moved = []
    for entrant in entrants:
        reference = entrant.reference
        file = BotFile.parse(entrant.bot or "")
        if file is not None and file.path in places:
            reference = replace(reference, located=str(file.at(places[file.path])))
        moved.append(reference)
    return tuple(moved)


def _written(base: Path, path: str, data: bytes) -> Path:
    """The copy of one file, written atomically unless an identical one is there; readable
    by anyone (a bot's sandbox runs under its own uid), changeable only by this user."""
    digest = hashlib.sha256(data).hexdigest()
    folder = base / digest[:32]
    target = folder / Path(path).name
    if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == digest:
        return target
    folder.mkdir(mode=0o755, exist_ok=True)
    os.chmod(folder, 0o755)
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target
