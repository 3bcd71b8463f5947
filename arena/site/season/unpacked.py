"""A version's bot as the season hands it to check-bot, the ladder or a gauntlet: a `.py`
file's bytes (store.read, which checks them against their sha256), or an archive unpacked
by store.unpack (which checks every member again): a Python bot folder (bot.py at its root)
plays as the ladder plays any bot folder; a command bot plays as a config's `command:`
entrant, its command's words that name its own files made absolute paths into its folder.

It guarantees that what plays is the stored bytes of this version (a file rewritten when
its bytes differ, a folder unpacked beside its place and renamed into it whole), and that a
folder is readable by the sandbox's uid (folders 0755, files 0644, programs 0755): the
sandbox binds a bot folder as it is, and shows a command only the files anyone may read.
"""

from __future__ import annotations

import os
import posixpath
import secrets
import shutil
from pathlib import Path

from arena.site.contest import store
from arena.site.contest.contest import Contest
from arena.site.contest.models import Version
from arena.tournament.config import EntrantConfig
from arena.tournament.run import results as folder_files

__all__ = ["is_command", "placed", "remove", "words"]


def is_command(version: Version) -> bool:
    """Whether the version is a command bot (an archive uploaded with its command)."""
    return version.kind == "archive" and bool(version.command)


def placed(contest: Contest, version: Version, path: Path) -> EntrantConfig:
    """The version at `path` (a `.py` file `path.py`, else a folder `path/`, either written
    only when it is not this version's already), as the entrant its bot's name names."""
    name = version.bot.name
    if version.kind != "archive":
        target, data = path.with_name(f"{path.name}.py"), store.read(version.sha256,
                                                                      contest.store)
        if not target.is_file() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            folder_files.write_atomic(target, data)
        return EntrantConfig(name, bot=str(target))
    if _unpacked_as(path) != version.sha256:
        _unpack(contest, version, path)
    if is_command(version):
        return EntrantConfig(name, command=words(version.command, path), mode="command")
    return EntrantConfig(name, bot=str(path))


def words(command: list[str], folder: Path) -> tuple[str, ...]:
    """The command as it runs from anywhere: its program, if named with a '/', and each
    argument that names one of the folder's files, as absolute paths into the folder."""
    out = []
    for index, word in enumerate(command):
        path = posixpath.normpath(word)
        inside = not (posixpath.isabs(word) or path == ".." or path.startswith("../"))
        if inside and (index > 0 or "/" in word) and (folder / path).is_file():
            out.append(str(folder / path))
        else:
            out.append(word)
    return tuple(out)


def _mark(path: Path) -> Path:
    """Where the sha256 of the archive unpacked at `path` is noted (beside it, hidden: no
    upload may hold a hidden name, and the ladder skips one)."""
    return path.with_name(f".{path.name}.sha256")


def _unpacked_as(path: Path) -> str:
    """The sha256 of the archive unpacked at `path`, or '' (none, or not known)."""
    mark = _mark(path)
    return mark.read_text("ascii").strip() if path.is_dir() and mark.is_file() else ""


def _unpack(contest: Contest, version: Version, path: Path) -> None:
    """Unpack the version's archive as the folder `path`, replacing whatever was there."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{path.name}.{secrets.token_hex(4)}.new")
    try:
        store.unpack(version.sha256, staging, list(version.command), contest.store)
        _readable(staging)
        _mark(path).unlink(missing_ok=True)
        remove(path)
        staging.rename(path)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    folder_files.write_atomic(_mark(path), version.sha256 + "\n")


def _readable(folder: Path) -> None:
    """Folders 0755, files 0644, or 0755 for a program: what the sandbox's uid may read."""
    folder.chmod(0o755)
    for root, folders, files in os.walk(folder):
        for name in folders:
            Path(root, name).chmod(0o755)
        for name in files:
            file = Path(root, name)
            file.chmod(0o755 if file.stat().st_mode & 0o100 else 0o644)


def remove(path: Path) -> None:
    """A file or folder gone (a folder whole, never through a link)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
