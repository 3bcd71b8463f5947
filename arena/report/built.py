"""What the last report build packed, kept so that a rebuild reads only the games added since:
the sums over the games up to a pack's end (the checkpoint), in replays/chances/built.json,
and the list of games' rows up to it, encoded, in replays/chances/rows.tsv.

A rebuild trusts them only if everything they were made from is as it was then: the same
code (a stamp), the same bytes of games.jsonl up to the checkpoint (their digest), the same
packs and rows file (inode, size, change time, which a copy or any write changes and no one
can set back), and the same packed replays (their inode, size and times). Anything else,
and the build starts over from the first game: a folder someone sent, or one edited, is
never reported from sums it did not come with.

This module must not read games.jsonl's games or the replays' contents; it keeps the sums.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from arena import __version__
from arena.report import viewer
from arena.report.chances import chances_stamp
from arena.report.folder import FaultExample
from arena.report.viewer import CHANCES_FOLDER, chances_name, pack_name
from arena.tournament.run import results as folder_files
from arena.tournament.run import safe_read

__all__ = ["ROWS", "STATE", "Built", "code_stamp", "forget_built", "load_built", "save_built",
           "stat_key"]

STATE, ROWS = "built.json", "rows.tsv"
"""The state and the rows file, under replays/chances/."""
TallyKey = tuple[str, str, str, str, bool, bool]


@dataclass(slots=True)
class Built:
    """The sums over the games of games.jsonl's first `offset` bytes, a pack's end."""

    games: int = 0
    replays: int = 0
    scanned: int = 0
    offset: int = 0
    names: dict[str, None] = field(default_factory=dict)
    """Every name seated, in order of first appearance (not the standings')."""
    stages: dict[str, None] = field(default_factory=dict)
    examples: dict[str, list[FaultExample]] = field(default_factory=dict)
    links: dict[str, int] = field(default_factory=dict)
    """The pack of each game linked outside the list (its faults shown, the bracket)."""
    spreads: dict[str, Counter[int]] = field(default_factory=dict)
    tally: Counter[TallyKey] = field(default_factory=Counter)
    missing: list[str] = field(default_factory=list)
    rows: int = 0
    """Bytes of the rows file."""

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games, "replays": self.replays, "scanned": self.scanned,
            "offset": self.offset, "rows": self.rows, "names": list(self.names),
            "stages": list(self.stages), "links": dict(self.links),
            "missing": list(self.missing),
            "examples": {n: [[e.game, e.index, e.kind, e.message, e.sent, list(e.trace)]
                             for e in listed] for n, listed in self.examples.items()},
            "spreads": {n: list(c.items()) for n, c in self.spreads.items()},
            "tally": [[*key, count] for key, count in self.tally.items()],
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Built:
        """(Any shape but the one written raises KeyError, TypeError or ValueError.)"""
        examples = {str(n): [_example(e) for e in listed]
                    for n, listed in dict(data["examples"]).items()}  # fmt: skip
        spreads = {str(n): Counter({_score(s): int(c) for s, c in pairs})
                   for n, pairs in dict(data["spreads"]).items()}  # fmt: skip
        tally: Counter[TallyKey] = Counter()
        for kind, who, against, claim, blind, holds, count in data["tally"]:
            tally[(str(kind), str(who), str(against), str(claim), bool(blind), bool(holds))] = (
                int(count))
        return cls(
            int(data["games"]), int(data["replays"]), int(data["scanned"]),
            int(data["offset"]), dict.fromkeys(map(str, data["names"])),
            dict.fromkeys(map(str, data["stages"])), examples,
            {str(k): int(v) for k, v in dict(data["links"]).items()}, spreads, tally,
            [str(m) for m in data["missing"]], int(data["rows"]),
        )  # fmt: skip


def _example(fields: list[Any]) -> FaultExample:
    game, index, kind, message, sent, trace = fields
    return FaultExample(str(game), int(index), str(kind), str(message),
                        None if sent is None else str(sent), tuple(map(str, trace)))  # fmt: skip


def _score(value: Any) -> Any:
    """A score as the log has it (a whole number; a finite float in a folder someone sent)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise TypeError("a score is a number")
    return value


_SOURCES = ("arena.report.built", "arena.report.increment", "arena.report.folder",
            "arena.report.scan", "arena.report.viewer", "arena.hosts.text", "arena.hosts.trace")
"""The modules whose code makes the sums and rows (the chances' own are in their stamp)."""


def code_stamp(with_viewer: bool, linked: Iterable[str]) -> str:
    """What the sums depend on besides the folder: the code that makes them and the packs
    (its version and sources, the chances' stamp), the viewer or not, the games linked."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{__version__} {viewer.PACK} {with_viewer} ".encode() + chances_stamp())
    for module in _SOURCES:
        path = getattr(importlib.import_module(module), "__file__", None)
        digest.update(Path(path).read_bytes() if path else module.encode())
    digest.update(json.dumps(sorted(linked)).encode())
    return digest.hexdigest()


def stat_key(path: str | os.PathLike[str], folder: int | None = None) -> list[int]:
    """A file's inode, links, size and times, not following a link ([] if it is not
    there): a copy, a write or a new link changes it, and its change time cannot be set."""
    try:
        found = os.stat(path, dir_fd=folder, follow_symlinks=False)
    except (OSError, ValueError):
        return []
    return [found.st_ino, found.st_nlink, found.st_size, found.st_mtime_ns, found.st_ctime_ns]


def _packs_key(replays: Path, packs: int) -> str:
    """The digest of the complete packs' and their chances' stat keys."""
    digest = hashlib.blake2b(digest_size=16)
    for pack in range(packs):
        keys = stat_key(replays / pack_name(pack)), stat_key(replays / chances_name(pack))
        digest.update(json.dumps(keys).encode())
    return digest.hexdigest()


def _keys(root: Path, built: Built, prefix: str) -> dict[str, Any]:
    replays = root / folder_files.REPLAYS
    return {"prefix": prefix, "rows_file": stat_key(replays / CHANCES_FOLDER / ROWS),
            "packs": _packs_key(replays, built.replays // viewer.PACK)}  # fmt: skip


def save_built(root: Path, built: Built, stamp: str, prefix: str, replays: str) -> None:
    """Keep the sums with what they were made from (after the packs and rows are written)."""
    state = {"stamp": stamp, "keys": _keys(root, built, prefix), "replays_key": replays,
             "built": built.to_json()}  # fmt: skip
    path = root / folder_files.REPLAYS / CHANCES_FOLDER / STATE
    folder_files.write_atomic(path, json.dumps(state, separators=(",", ":")), durable=False)


def load_built(root: Path, stamp: str) -> tuple[Built, dict[str, Any], str] | None:
    """The last build's sums, its keys and its replays' key if made by this code and its
    packs and rows are untouched since; None otherwise (the games.jsonl prefix and the
    replays are for the caller to check)."""
    path = root / folder_files.REPLAYS / CHANCES_FOLDER / STATE
    try:  # a regular file, bounded; its depth as json's own parser allows
        state = json.loads(safe_read.read_file(path, follow=False))
        if not isinstance(state, dict) or state.get("stamp") != stamp:
            return None
        built = Built.from_json(state["built"])
        keys = state["keys"]
        if keys != _keys(root, built, str(keys["prefix"])):
            return None
        return built, keys, str(state["replays_key"])
    except (safe_read.Unreadable, OSError, KeyError, TypeError, ValueError, AttributeError,
            RecursionError):
        return None


def rows_lines(handle: IO[bytes], size: int) -> Iterator[bytes]:
    """The rows file's first `size` bytes, a line at a time."""
    left = size
    while left > 0 and (line := handle.readline(left)):
        left -= len(line)
        yield line


def forget_built(root: Path) -> None:
    """Remove the state and rows of the last build (a published copy needs neither, and the
    state names the machine's inodes and times): the next build starts from the first game."""
    for name in (STATE, ROWS):
        (root / folder_files.REPLAYS / CHANCES_FOLDER / name).unlink(missing_ok=True)
