"""The results folder of one tournament: the append-only game log, atomic writes (its lock
is arena/tournament/run/folder_lock.py).

Layout of `results/<name>/`:

    .lock            held (fcntl.flock) by the one `arena run` using the folder, and
                     removed when it ends (a killed run leaves it; the next run takes it)
    config.yaml      the configuration as run (without its seed)
    skipped.json     the entrants a `--skip-broken` run was started without, and why
                     (arena/tournament/run/skipped.py); only when it left someone out
    secret           the run's root seed, mode 0600: drawn when the config gives none,
                     read back on resume; no bot's sandbox shows this folder
    games.jsonl      one JSON line per finished game, appended in schedule order
    load.json        decisions the machine strained, billed to no bot (only if it did one)
    replays/         one `<game id>.json.gz` per game (see arena/replay.py)
    ratings.json, standings.csv, standings.md, crosstable.csv, stages.json, and grades.json,
    grades.csv       (a config with `grades:` only) derived from games.jsonl, each atomically

Durability: every line of games.jsonl is written with one `write` call and flushed at
once, so a killed process (even `kill -9`) loses nothing already appended; the kernel
has it. `fsync` is costly (about 3.5 ms per call on the development disk, more than a
whole game takes), so the log syncs at most once per `sync_every` seconds and when it is
closed: a power cut can lose the last second of games, which `--resume` plays again. A
torn last line (a crash mid-write) is cut off by `repair_games`. Derived files are written
to a temporary file and renamed into place (`os.replace`): no reader sees half a file. A
game's replay is written whole before its line, which is what readers go by (a replay no
line names is never read, and is written again when its game is played on resume), so it
is written in place (`write_unlisted`); one rewritten after its line is out is renamed.

This module knows files, not games: it must not import the rules, the referee or click,
and it never decides what a line means beyond "one JSON object, whose replay, if it names
one, is a file under replays/" (read boundedly, arena/tournament/run/safe_read.py).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, Self

from arena.tournament.run import safe_read

GAMES = "games.jsonl"
CONFIG = "config.yaml"
SECRET = "secret"
SKIPPED = "skipped.json"
LOAD = "load.json"
REPLAYS = "replays"
LOCK = ".lock"
DERIVED = ("ratings.json", "standings.csv", "standings.md", "crosstable.csv", "stages.json")
GRADES = "grades.json"  # derived too, where the config has `grades:` (arena/ratings/grades.py)
GRADE_SHEET = "grades.csv"  # the same grades, a row per graded entrant, for a spreadsheet
PAGES = ("report.html", "viewer.html", "viewer-rules.js")
"""Written by `arena report` (and at the end of `arena run`) beside the results."""
TEMPORARY_SUFFIX = ".tmp"
_TAIL_CHUNK = 1 << 16


class ResultsError(Exception):
    """A results folder that cannot be used as it is; the message says why and what to do."""


# --- atomic writes ------------------------------------------------------------------------


def write_atomic(
    path: str | os.PathLike[str],
    data: bytes | str | Iterable[bytes | str],
    *,
    durable: bool = True,
) -> int:
    """Replace a file in one step (temp file, then rename), so readers never see half of it;
    return the bytes written. `data` may come in parts, so a big file is never held whole.

    `durable` also fsyncs the file and its folder, so the new content survives a power cut.
    """
    target = Path(path)
    parts = (data,) if isinstance(data, bytes | str) else data
    temporary = target.with_name(f".{target.name}.{os.getpid()}{TEMPORARY_SUFFIX}")
    size = 0
    try:
        with open_fresh(temporary) as handle:
            for part in parts:
                size += handle.write(part.encode("utf-8") if isinstance(part, str) else part)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    if durable:
        sync_folder(target.parent)
    return size


def open_fresh(path: str | os.PathLike[str]) -> IO[bytes]:
    """A new temporary file for writing: whatever had its name is removed first and a new
    file made (O_EXCL, O_NOFOLLOW), so a symbolic link left there by whoever sent the folder
    is never written through."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    return os.fdopen(os.open(path, _NEW_FILE | os.O_EXCL | os.O_NOFOLLOW, 0o666), "wb")


def write_replaced(path: str, data: bytes) -> None:
    """`write_atomic(path, data, durable=False)` in four system calls (open, write, close,
    rename), for the file a run writes per game: Python's file objects and paths cost more
    than the calls themselves."""
    head, _, name = path.rpartition("/")
    temporary = f"{head}/.{name}.{os.getpid()}{TEMPORARY_SUFFIX}"
    _write_new(temporary, data, _NEW_FILE)
    try:
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_unlisted(path: str, data: bytes) -> None:
    """A file no one reads before a line written after it names it (a game's replay, written
    before its line in games.jsonl), written in place: open, write, close, which change the
    folder once where `write_replaced`'s temporary file and its rename change it twice.
    Whatever had its name is unlinked first (a name not there costs a lookup), so a link
    left there is never written through. A kill -9 mid-write leaves a torn file no line
    names: its game is played again on resume, and this replaces it."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    _write_new(path, data, _NEW_FILE | os.O_EXCL)


def _write_new(path: str, data: bytes, flags: int) -> None:
    """`data` written to a file opened with `flags` by plain system calls; the file removed
    if the writing fails, so no torn file is left behind by an error."""
    descriptor = os.open(path, flags, 0o666)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view):]
        finally:
            os.close(descriptor)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise


_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW


def own(path: str | os.PathLike[str], *, folder: bool = False, make: bool = False) -> Path:
    """A file or folder of the results folder that arena writes in place (games.jsonl, .lock,
    replays/, replays/chances/; a folder made if `make`): ResultsError if it is a symbolic
    or hard link or of the other kind, since what is written would land wherever it leads."""
    target = Path(path)
    with contextlib.suppress(FileExistsError):
        if make:
            os.mkdir(target)
    with contextlib.suppress(FileNotFoundError):
        status = os.lstat(target)
        mode = status.st_mode
        what = "a symbolic link" if stat.S_ISLNK(mode) else \
            ("not a folder" if folder else "not a regular file") \
            if stat.S_ISDIR(mode) != folder else \
            None if folder else safe_read.hard_link_problem(status.st_nlink)
        if what is not None:
            raise ResultsError(f"{target}: {what}; arena writes only inside the results "
                               "folder (put a real one there, or start over with --force)")
    return target


def sync_folder(folder: str | os.PathLike[str]) -> None:
    """fsync a folder, so a rename inside it is on disk."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def foreign(folder: str | os.PathLike[str]) -> list[str]:
    """Names in a folder that a run did not write, sorted: a reason not to use it for results."""
    root = Path(folder)
    if not root.is_dir():
        return []
    ours = {GAMES, CONFIG, SECRET, SKIPPED, LOAD, REPLAYS, LOCK, *DERIVED, GRADES, GRADE_SHEET,
            *PAGES}
    return sorted(
        p.name
        for p in root.iterdir()
        if p.name not in ours and not (p.name.startswith(".") and p.name.endswith(TEMPORARY_SUFFIX))
    )


def remove_temporaries(folder: str | os.PathLike[str]) -> int:
    """Delete temporary files an interrupted run left behind; return how many."""
    root = Path(folder)
    removed = 0
    replays = own(root / REPLAYS, folder=True)  # a link: refused, not emptied
    for place in (root, replays, own(replays / "chances", folder=True)):  # the viewer's packs
        if not place.is_dir():
            continue
        for stray in place.glob(f".*{TEMPORARY_SUFFIX}"):
            with contextlib.suppress(FileNotFoundError):
                stray.unlink()
                removed += 1
    return removed


def remove_derived(folder: str | os.PathLike[str]) -> None:
    """Remove the derived files and pages, which must not outlive the log they came from."""
    for name in (*DERIVED, GRADES, GRADE_SHEET, *PAGES):
        with contextlib.suppress(FileNotFoundError):
            (Path(folder) / name).unlink()


def clear(folder: str | os.PathLike[str]) -> None:
    """Remove what a run writes (not the lock), to start over with `--force`."""
    root = Path(folder)
    for name in (GAMES, CONFIG, SECRET, SKIPPED, LOAD, *DERIVED, GRADES, GRADE_SHEET, *PAGES):
        with contextlib.suppress(FileNotFoundError):
            (root / name).unlink()
    if (root / REPLAYS).is_symlink():
        (root / REPLAYS).unlink()  # the link goes, never what it leads to
    shutil.rmtree(root / REPLAYS, ignore_errors=True)
    remove_temporaries(root)


# --- games.jsonl --------------------------------------------------------------------------


def repair_games(path: str | os.PathLike[str]) -> int:
    """Cut off a torn last line (no newline, or not JSON); return how many bytes were cut."""
    target = own(path)
    if not target.exists():
        return 0
    with open(target, "r+b") as handle:
        size = handle.seek(0, os.SEEK_END)
        keep = _end_of_last_line(handle, size)
        if keep < size:
            handle.truncate(keep)
            handle.flush()
            os.fsync(handle.fileno())
        return size - keep


def _end_of_last_line(handle: IO[bytes], size: int) -> int:
    """Offset just after the last complete, readable line."""
    end = _last_newline(handle, size)
    if end == 0:
        return 0
    start = _last_newline(handle, end - 1)
    handle.seek(start)
    last = handle.read(end - start)
    try:
        safe_read.json_value(last)  # bounded: a line nested deep is unreadable, not a crash
    except ValueError:
        return start  # a complete but unreadable last line is torn too (zero-filled blocks)
    return end


def _last_newline(handle: IO[bytes], before: int) -> int:
    """Offset just after the last newline before `before`, or 0 if there is none."""
    position = before
    while position > 0:
        start = max(0, position - _TAIL_CHUNK)
        handle.seek(start)
        found = handle.read(position - start).rfind(b"\n")
        if found >= 0:
            return start + found + 1
        position = start
    return 0


def count_lines(path: str | os.PathLike[str]) -> int:
    """The whole lines of a log (0 if there is none), read a chunk at a time."""
    try:
        with open(path, "rb") as handle:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


def iter_games(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Yield the games of a log one at a time, so memory does not grow with the tournament."""
    for _, game in iter_game_lines(path):
        yield game


def iter_game_lines(path: str | os.PathLike[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield each game of a log with its line as written (newline included): the audit
    compares the text itself with what the run wrote. A log from someone else is read as
    arena.tournament.run.safe_read reads any: a regular file, lines of bounded length and depth,
    each replay a file under replays/."""
    target = Path(path)
    if not target.exists():
        return
    try:
        handle = safe_read.open_regular(target)
    except safe_read.Unreadable as exc:
        raise ResultsError(f"{target}: cannot read: {exc}") from None
    number = 0
    with handle:
        try:
            for number, line in enumerate(safe_read.lines(handle), 1):
                yield line, _game_line(target, number, line)
        except safe_read.Unreadable as exc:
            raise ResultsError(f"{target}:{number + 1}: {_NOT_A_GAME} ({exc}){_FIX}") from None


class GameFile:
    """A game log as an iterable that reads the file afresh, one game at a time, each time
    it is iterated: what a reader needs to make a second pass without holding the games."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter_games(self.path)


def _game_line(path: Path, number: int, line: str) -> dict[str, Any]:
    try:
        game = safe_read.json_object(line)
    except safe_read.Unreadable as exc:
        raise ResultsError(f"{path}:{number}: {_NOT_A_GAME} ({exc}){_FIX}") from None
    problem = safe_read.listed_problem(game["replay"]) if game.get("replay") else None
    if problem is not None or not line.endswith("\n"):
        why = f" ({problem})" if problem else ""
        raise ResultsError(f"{path}:{number}: {_NOT_A_GAME}{why}{_FIX}")
    return game


_NOT_A_GAME, _FIX = "not a game record", "; fix the line or start over with --force"


class GameLog:
    """Appends game lines to games.jsonl: each line flushed at once, fsynced every so often."""

    def __init__(self, path: str | os.PathLike[str], sync_every: float = 1.0) -> None:
        self.path = Path(path)
        self.folder, self.sync_every = str(self.path.parent), sync_every
        self._handle: IO[bytes] | None = open(own(self.path), "ab")  # noqa: SIM115 - closed
        self._synced = time.monotonic()

    def append(self, lines: Iterable[str]) -> None:
        """Write whole lines (without their newline) and flush them to the kernel."""
        handle = self._require()
        for line in lines:
            handle.write(line.encode("utf-8") + b"\n")
        handle.flush()
        if time.monotonic() - self._synced >= self.sync_every:
            self.sync()

    def append_game(self, line: str, replay: tuple[str, bytes] | None = None) -> None:
        """One game: its replay (path in the folder, bytes) renamed into place before its
        line, so a line never names a missing replay (one without its line is played again)."""
        if replay is not None:
            write_unlisted(f"{self.folder}/{replay[0]}", replay[1])
        self.append((line,))

    def sync(self) -> None:
        """Force what was appended onto the disk."""
        handle = self._require()
        handle.flush()
        os.fsync(handle.fileno())
        self._synced = time.monotonic()

    def close(self) -> None:
        """Sync and close; safe to call twice."""
        if self._handle is None:
            return
        try:
            self.sync()
        finally:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _require(self) -> IO[bytes]:
        if self._handle is None:
            raise ResultsError(f"{self.path} is closed")
        return self._handle
