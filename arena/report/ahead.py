"""The report's one pass (arena.report.increment) kept up with `arena run` while it plays, so
the report at the end reads only the games after its last checkpoint, not every replay.

`arena run` hands the run this as its notes (arena.tournament.run.notes): the viewer's
(arena.report.as_played) do their part, and whenever they have just written a full pack
and the games kept since the last catch-up are a quarter of the log (never fewer than
CATCH_UP), the pass is brought up to the end of the log, its checkpoint saved as any
build saves it. A catch-up re-reads only the games after the last one (and hashes the log
and stats the replays before them, as every build does), so its cost over a run stays a
few times one pass; the page at the end is the same, byte for byte, as a build from the
first game would make (arena.report.increment's promise).

This module writes only what a report's build writes under replays/.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena.referee import GameRecord
from arena.report.as_played import ViewerNotes
from arena.report.increment import read_games

__all__ = ["CATCH_UP", "ReportAhead"]

CATCH_UP = 5000
"""Games kept before the first catch-up: a smaller run's report reads its games at the end."""


class ReportAhead:
    """The viewer's notes, and the report's pass caught up a quarter of the log at a time."""

    def __init__(self, viewer: ViewerNotes, every: int = CATCH_UP) -> None:
        self.viewer, self.every = viewer, every
        self.kept = self.since = 0

    @property
    def make(self) -> Callable[[GameRecord, bytes], bytes]:
        """The viewer's notes of one game's record and replay text, made in the worker."""
        return self.viewer.make

    def keep(self, game_id: str, replay: bytes, notes: bytes) -> None:
        """One game appended to the log: the viewer's notes kept; the pass caught up when due."""
        self.viewer.keep(game_id, replay, notes)
        self.kept, self.since = self.kept + 1, self.since + 1
        if self.since >= max(self.every, self.kept // 4) and not self.viewer.games:
            self.since = 0  # just after a full pack: the pass redoes no half-made pack
            self.catch_up(self.viewer.folder)

    def close(self) -> None:
        """The run's games are over: the viewer's last pack written."""
        self.viewer.close()

    @staticmethod
    def catch_up(folder: Path) -> None:
        """The pass brought up to the log's end; a failure leaves it to the report at the end."""
        try:
            passed = read_games(folder, (), frozenset(), workers=1, viewer=True, progress=None)
        except Exception:  # noqa: BLE001 - never a run's failure: the end's build starts over
            return
        passed.kept.close()
