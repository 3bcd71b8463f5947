"""How far a run is, game by game: games in the log of planned, faults so far, who leads.

The leader is the entrant with the most wins (first places) so far, a plain count: the
standings' ranking (Bradley-Terry ratings over every game) is fitted once at the end, and
refitting it after every game would slow a run down. Ties share the lead.

`Refresher` says when a long run's tables and live report are due (every few minutes,
between two games) and turns a failed refresh into a note.

This module never prints and never reads the folder itself: `arena run` shows a `Tally`
(arena/cli/progress.py), and arena.tournament.run.runner feeds it each game's games.jsonl line
and gives the refresher the writing of the tables.
"""

from __future__ import annotations

import itertools
import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Refresher", "Tally", "Watch"]


@dataclass(slots=True)
class Tally:
    """The games of a run so far, as they are appended to games.jsonl (mutable)."""

    planned: int
    done: int = 0
    """Games in games.jsonl, those of an earlier run resumed included."""
    played: int = 0
    """Games played by this run."""
    faults: int = 0
    wins: Counter[str] = field(default_factory=Counter)

    def add(self, line: Mapping[str, Any], *, resumed: bool = False) -> None:
        """Count one game of games.jsonl: its faults and its winner(s)."""
        self.done += 1
        self.played += not resumed
        self.faults += len(line.get("faults") or ())
        for name, place in zip(line.get("entrants") or (), line.get("placements") or (),
                               strict=False):
            if place == 1:
                self.wins[str(name)] += 1

    def count_log(self, lines: Iterable[Mapping[str, Any]], count: int) -> None:
        """Count the first `count` games of the log, those an earlier run played."""
        for line in itertools.islice(lines, count):
            self.add(line, resumed=True)

    def add_text(self, text: str) -> None:
        """Count one game this run played, from its games.jsonl line."""
        self.add(json.loads(text))

    def leaders(self) -> tuple[tuple[str, ...], int]:
        """The entrants with the most wins so far (ties sorted by name), and those wins."""
        if not self.wins:
            return (), 0
        most = max(self.wins.values())
        return tuple(sorted(n for n, w in self.wins.items() if w == most)), most


Watch = Callable[[Tally], None]
"""Told the tally once before the first game is played and after every game."""


class Refresher:
    """Every `every` seconds between two games: the tables from the games so far, then
    `during` (the live report). A failure is a note through `info`; the run goes on."""

    def __init__(self, during: Callable[[Path, Tally], object], every: float,
                 info: Callable[[str], None]) -> None:
        self.during, self.every, self.info = during, every, info
        self.next = time.monotonic() + every

    def due(self) -> bool:
        """Whether the next refresh is due."""
        return time.monotonic() >= self.next

    def refresh(self, folder: Path, tally: Tally, tables: Callable[[], object]) -> None:
        """Write the tables, then call `during`; KeyboardInterrupt stops the run as ever."""
        try:
            tables()
            self.during(folder, tally)
        except Exception as exc:  # noqa: BLE001 - a refresh never fails a run or blames a bot
            self.info(f"note: the report was not refreshed mid-run ({type(exc).__name__}: "
                      f"{exc}); the final one is written at the end")
        self.next = time.monotonic() + self.every  # counted from the end: never back to back
