"""Reading a results folder as if a stranger wrote it (a participant's folder, a published
one): every replay is opened and unpacked here, and every JSON line parsed here, so a path
out of the folder, a device, a gzip bomb or JSON nested deep ends in one line saying what is
wrong, never in a hang, a traceback, memory running out, or a file copied into the report.

A replay a games.jsonl line lists is a path under the folder's `replays/` with every part
of it opened without following a symbolic link (O_NOFOLLOW, one part at a time below the
folder), and a regular file; a replay the user names is any regular file. A replay is read
up to REPLAY_BYTES and unpacked as a stream that stops at UNPACKED_BYTES. A JSON line is at
most LINE_BYTES long and nests at most DEPTH deep; whole JSON files at most FILE_BYTES.
docs/replay-format.md gives the limits and why they are far above any real game's.

This module reads files only: it imports nothing of arena's and writes nothing. Its errors
(`Unreadable`) say what is wrong; the caller names the file and the line, but for a whole
file (`read_file`, `json_file`), whose errors name it.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = ["DEPTH", "FILE_BYTES", "LINE_BYTES", "REPLAY_BYTES", "UNPACKED_BYTES", "Unreadable",
           "hard_link_problem", "json_file", "json_object", "json_value", "lines",
           "listed_problem", "open_regular", "read_file", "replay_bytes", "unpack"]

REPLAY_BYTES = 16 << 20
"""A replay file's bytes on disk: the longest real games (6 players, random bots) take 10 KB."""
UNPACKED_BYTES = 64 << 20
"""What a replay may unpack to: the longest real games take 75 KB, a game to 800 points 15 MB."""
LINE_BYTES = 4 << 20
"""A JSON line of games.jsonl or of a replay: real ones take under 2 KB."""
FILE_BYTES = 64 << 20
"""A whole JSON, CSV or YAML file of a results folder (ratings.json, stages.json, ...)."""
DEPTH = 64
"""How deep a JSON line may nest: real ones nest 4 deep."""
REPLAYS = "replays"
_GZIP = b"\x1f\x8b"
_READ = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK  # a FIFO opens at once, and is refused
_FOLDER = os.O_RDONLY | os.O_CLOEXEC | os.O_DIRECTORY | os.O_NOFOLLOW


class Unreadable(ValueError):
    """A file or line of a results folder that is not what it must be; the message says how."""


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB"


# --- files --------------------------------------------------------------------------------


def open_regular(path: str | os.PathLike[str], *, follow: bool = True) -> IO[bytes]:
    """Open a file the user named for reading; Unreadable unless it is a regular file.
    Without `follow`, a file of a folder someone sent: refused if it is a symbolic link
    or a hard link (one of several names of the same bytes)."""
    try:
        descriptor = os.open(path, _READ if follow else _READ | os.O_NOFOLLOW)
        return _regular(descriptor, single=not follow)
    except OSError as exc:
        raise Unreadable(_why(exc, "not followed in a results folder")) from None


def read_file(path: str | os.PathLike[str], limit: int = FILE_BYTES, *, follow: bool = True
              ) -> bytes:  # fmt: skip
    """A regular file's bytes, refused past `limit` (the error names the file); `follow`
    as for open_regular."""
    try:
        with open_regular(path, follow=follow) as handle:
            return _capped(handle, limit)
    except Unreadable as exc:
        raise Unreadable(f"{path}: {exc}") from None


def listed_problem(listed: object) -> str | None:
    """Why a games.jsonl line's `replay` is not a path under the folder's replays/, or None."""
    parts = listed.split("/") if isinstance(listed, str) else []
    if (len(parts) < 2 or parts[0] != REPLAYS or "\0" in str(listed)
            or any(part in ("", ".", "..") for part in parts)):  # fmt: skip
        return f"its replay {listed!r} is not a file under {REPLAYS}/"
    return None


def replay_bytes(path: str | os.PathLike[str], folder: str | os.PathLike[str] | None = None
                 ) -> bytes:  # fmt: skip
    """A replay file's bytes as stored (gzip or plain). With `folder`, `path` is what a
    games.jsonl line lists: a path under the folder's replays/, no part of it a symbolic
    link; else any regular file."""
    if folder is None:
        handle = open_regular(path)
    else:
        problem = listed_problem(str(path))
        if problem is not None:
            raise Unreadable(problem)
        handle = _open_below(Path(folder), str(path).split("/"))
    with handle:
        return _capped(handle, REPLAY_BYTES)


def _open_below(folder: Path, parts: list[str]) -> IO[bytes]:
    try:
        where = os.open(folder, os.O_RDONLY | os.O_CLOEXEC | os.O_DIRECTORY)
    except OSError as exc:
        raise Unreadable(_why(exc)) from None
    try:
        for part in parts[:-1]:
            inner = os.open(part, _FOLDER, dir_fd=where)
            os.close(where)
            where = inner
        return _regular(os.open(parts[-1], _READ | os.O_NOFOLLOW, dir_fd=where), single=True)
    except OSError as exc:
        raise Unreadable(_why(exc)) from None
    finally:
        os.close(where)


def _regular(descriptor: int, *, single: bool = False) -> IO[bytes]:
    """The descriptor as a file, if it is a regular one; `single`: also its only name."""
    status = os.fstat(descriptor)
    problem = "not a regular file" if not stat.S_ISREG(status.st_mode) else \
        hard_link_problem(status.st_nlink) if single else None
    if problem is not None:
        os.close(descriptor)
        raise Unreadable(problem)
    return os.fdopen(descriptor, "rb")


def hard_link_problem(links: int) -> str | None:
    """Why a file of a results folder with `links` names may not be used, or None: a hard
    link shares its bytes with a file elsewhere (an archive can make one to any file of
    whoever unpacks it), which the report would publish and a resume write into."""
    if links <= 1:
        return None
    return (f"a hard link (one of {links} names of the same file); a results folder's files "
            "have one name each (copy the folder without hard links)")


def _why(exc: OSError, must: str = f"a replay is a regular file under the folder's {REPLAYS}/"
         ) -> str:  # fmt: skip
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return f"a symbolic link or not a folder on its way; {must}"
    return exc.strerror or str(exc)


def _capped(handle: IO[bytes], limit: int) -> bytes:
    """The file's bytes, read as far as one past `limit`: in one read of its size, not into a
    buffer of `limit` (a file whose size says 0, or that grows, is read a MiB at a time)."""
    try:
        size = os.fstat(handle.fileno()).st_size
        data = handle.read(min(size, limit) + 1)
        while size < len(data) <= limit:  # its size said less (0 in /proc), or it grew
            more = handle.read(min(1 << 20, limit + 1 - len(data)))
            if not more:
                break
            data += more
    except OSError as exc:
        raise Unreadable(str(exc)) from None
    if len(data) > limit:
        raise Unreadable(f"larger than {_size(limit)}")
    return data


def unpack(raw: bytes) -> bytes:
    """A replay's text from its stored bytes: gzip unpacked as a stream that stops at
    UNPACKED_BYTES (a bomb is never unpacked whole), plain text as it is. A replay is one
    gzip member, as arena writes it: members one after another
    would each cost a copy of all the bytes after them (16 MiB of empty members: hours)."""
    if raw[:2] != _GZIP:
        return raw
    member = zlib.decompressobj(31)
    try:
        text = member.decompress(raw, UNPACKED_BYTES + 1)
    except zlib.error as exc:
        raise Unreadable(str(exc)) from None
    if len(text) > UNPACKED_BYTES:
        raise Unreadable(f"unpacks to more than {_size(UNPACKED_BYTES)}")
    if not member.eof:
        raise Unreadable("the gzip stream is cut short")
    if member.unused_data:
        raise Unreadable("bytes after its gzip stream (a replay is one gzip member, as arena "
                         "writes it)")
    return text


# --- JSON ---------------------------------------------------------------------------------


def json_value(text: str | bytes, limit: int = LINE_BYTES) -> Any:
    """One line's JSON value (or a whole file's, with its `limit`), at most `limit` long and
    DEPTH deep, its numbers finite."""
    if len(text) > limit:
        raise Unreadable(f"longer than {_size(limit)}")
    try:
        value = json.loads(text, parse_constant=_not_a_number, parse_float=_finite)
    except RecursionError:
        raise Unreadable(f"nested deeper than {DEPTH}") from None
    except ValueError as exc:  # UnicodeDecodeError too
        raise Unreadable(f"not JSON: {exc}") from None
    opened = text.count("[") + text.count("{") if isinstance(text, str) else \
        text.count(b"[") + text.count(b"{")
    if opened > DEPTH and _deeper_than(value, DEPTH):
        raise Unreadable(f"nested deeper than {DEPTH}")
    return value


def _not_a_number(word: str) -> Any:
    """NaN and Infinity, which Python's json reads but JSON has not and arena never writes
    (a score of NaN would end a report in a traceback)."""
    raise ValueError(f"{word} is not a JSON number")


def _finite(word: str) -> float:
    """A JSON number with a fraction or exponent, refused where it is too big for a float
    (1e999 would read as Infinity)."""
    number = float(word)
    if not math.isfinite(number):
        raise ValueError(f"{word} is too big a number")
    return number


def json_file(path: str | os.PathLike[str], *, follow: bool = True) -> Any:
    """A whole JSON file of a results folder (ratings.json, stages.json, ...): a regular
    file of at most FILE_BYTES, nested at most DEPTH deep; `follow` as for open_regular."""
    data = read_file(path, follow=follow)
    try:
        return json_value(data, FILE_BYTES)
    except Unreadable as exc:
        raise Unreadable(f"{path}: {exc}") from None


def json_object(text: str | bytes) -> dict[str, Any]:
    """One line that must be a JSON object, at most LINE_BYTES long and DEPTH deep."""
    value = json_value(text)
    if not isinstance(value, dict):
        raise Unreadable(f"not a JSON object but {type(value).__name__}")
    return value


def _deeper_than(value: Any, depth: int) -> bool:
    """Whether lists and objects nest deeper than `depth` in a parsed value (no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item \
            if isinstance(item, list) else None
        if children is None:
            continue
        if level > depth:
            return True
        stack.extend((child, level + 1) for child in children)
    return False


def lines(handle: IO[bytes]) -> Iterator[str]:
    """The lines of a JSON-lines file (newline kept), each at most LINE_BYTES: a file of one
    endless line is never read whole."""
    while line := handle.readline(LINE_BYTES + 1):
        if len(line) > LINE_BYTES:
            raise Unreadable(f"longer than {_size(LINE_BYTES)}")
        try:
            yield line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Unreadable(f"not UTF-8: {exc}") from None
