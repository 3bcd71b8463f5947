"""Zoo: a cheat. On each decision where it has not seen the dice under the cup, it searches its
own process (gc.get_objects, every thread's frames, sys.modules) and the file system
($TMPDIR, which is its own folder in a process; the folder named by the `look_in` option;
/proc/<parent>/...) for the dice, then challenges. It reports what it found on stderr as
`PEEK {json}` and in `Peeker.reports`.

Run inline it finds the dice in the referee's state; run in a process it must find nothing.
"""

from __future__ import annotations

import gc
import itertools
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

import arena

_DICE_TEXT = re.compile(rb"[9TJQKA](?:[ ,\"']+[9TJQKA]){4}")
_FACES = {"9": 9, "T": 10, "J": 11, "Q": 12, "K": 13, "A": 14}


def _is_dice(value: object) -> bool:
    return (isinstance(value, tuple) and len(value) == 5
            and all(type(v) is int and 9 <= v <= 14 for v in value))


def _inside(obj: object, depth: int) -> Iterator[object]:
    """The object and what it holds, a few levels deep."""
    yield obj
    if depth == 0:
        return
    if isinstance(obj, dict):
        children: Any = list(obj.values())
    elif isinstance(obj, tuple | list):
        children = obj
    else:
        children = list(getattr(obj, "__dict__", {}).values())
    for child in children[:64]:
        yield from _inside(child, depth - 1)


def _hands_in_memory() -> list[list[int]]:
    """Every `hand` field holding five dice, in any object this process can reach."""
    roots: list[object] = list(gc.get_objects())
    for frame in sys._current_frames().values():
        while frame is not None:
            roots.append(dict(frame.f_locals))
            frame = frame.f_back
    roots.extend(vars(m) for m in list(sys.modules.values()) if m is not None)
    found = []
    for root in roots:
        try:
            for obj in _inside(root, 1):
                named = isinstance(obj, tuple) and hasattr(type(obj), "_fields")
                hand = getattr(obj, "hand", None) if named else None
                if _is_dice(hand):
                    found.append(list(hand))  # type: ignore[arg-type]
        except Exception:  # noqa: BLE001, S112 - odd objects (lazy modules) are skipped
            continue
    return found


def _files(folders: list[Path]) -> Iterator[Path]:
    """Files in these folders and their subfolders (the first 200 of each)."""
    for folder in folders:
        if folder.is_dir():
            yield from itertools.islice((p for p in folder.rglob("*") if p.is_file()), 200)


def _hands_in_files(look_in: list[str]) -> tuple[list[list[int]], dict[str, bool]]:
    """Dice written as text in any file it can read; and which parent files it could open."""
    parent = os.getppid()
    folders = [Path(os.environ.get("TMPDIR", "/tmp")), *map(Path, look_in)]
    proc = [Path(f"/proc/{parent}/{name}") for name in ("cmdline", "environ", "status")]
    found: list[list[int]] = []
    opened: dict[str, bool] = {"files read": False}
    for path in [*proc, *_files(folders)]:
        try:
            data = path.read_bytes()[: 1 << 20]
        except OSError:
            opened.setdefault(path.name, False)
            continue
        opened[path.name if path in proc else "files read"] = True
        for match in _DICE_TEXT.findall(data):
            faces = re.findall(rb"[9TJQKA]", match)
            found.append([_FACES[f.decode()] for f in faces])
    try:
        with open(f"/proc/{parent}/mem", "rb"):
            opened["parent memory"] = parent > 0
    except OSError:
        opened["parent memory"] = False
    return found, opened


class Peeker(arena.Bot):
    name = "zoo-peeker"
    options = MappingProxyType({"look_in": ()})
    reports: ClassVar[list[dict[str, Any]]] = []

    def act(self, observation: arena.Observation) -> arena.Action:
        if observation.hand is None and observation.decision == "respond":
            files, opened = _hands_in_files(list(self.settings["look_in"]))
            report = {"seat": self.seat, "memory": _hands_in_memory(), "files": files,
                      "opened": opened, "parent": os.getppid()}
            Peeker.reports.append(report)
            sys.stderr.write("PEEK " + json.dumps(report) + "\n")
            sys.stderr.flush()
        if observation.is_legal(arena.Challenge()):
            return arena.Challenge()
        return observation.legal_actions()[0]
