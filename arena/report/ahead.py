"""The report's one pass (arena.report.increment) kept up with `arena run` while it plays, so
the report at the end reads only the games after its last checkpoint, not every replay.

`arena run` hands the run this as its notes (arena.tournament.run.notes): the viewer's
(arena.report.as_played) do their part, and whenever they have just written a full pack
and the games kept since the last catch-up are a quarter of the log (never fewer than
CATCH_UP), and once more when the run's games are over, the pass is brought up to the end
of the log, its checkpoint saved as any build saves it. A catch-up reads only the games
after the last one (and hashes the log and stats the replays before them, as every build
does), and of those, the replays of no pack the viewer's notes wrote and tallied as the run
played (arena.report.increment.Ahead): the worker that played a game tallied it, the end
only sums. So its cost over a run stays a few times one pass over the log; the page at the
end is the same, byte for byte, as a build from the first game would make
(arena.report.increment's promise).

This module writes only what a report's build writes under replays/.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena.referee import GameRecord
from arena.report.as_played import ViewerNotes
from arena.report.increment import Ahead, read_games

__all__ = ["CATCH_UP", "ReportAhead"]

CATCH_UP = 5000
"""Games kept before the first catch-up: a smaller run's report reads its games at the end."""


class ReportAhead:
    """The viewer's notes, and the report's pass caught up a quarter of the log at a time."""

    def __init__(self, viewer: ViewerNotes, every: int = CATCH_UP) -> None:
        self.viewer, self.every = viewer, every
        self.kept = self.since = 0

    @property
    def make(self) -> Callable[[GameRecord, bytes], object]:
        """The viewer's notes of one game's record and replay text, made in the worker."""
        return self.viewer.make

    def keep(self, game_id: str, replay: bytes, notes: object) -> None:
        """One game appended to the log: the viewer's notes kept; the pass caught up when due."""
        self.viewer.keep(game_id, replay, notes)
        self.kept, self.since = self.kept + 1, self.since + 1
        if self.since >= max(self.every, self.kept // 4) and not self.viewer.games:
            self.since = 0  # just after a full pack: the pass redoes no half-made pack
            self.catch_up(self.viewer.folder, self._taken())

    def close(self) -> None:
        """The run's games are over: the viewer's last pack written, and the pass caught up
        with the packs it tallied (the report at the end then reads the last pack's, if any)."""
        self.viewer.close()
        if self.viewer.ahead.stats:
            self.catch_up(self.viewer.folder, self._taken())

    def _taken(self) -> Ahead:
        """The viewer's tallied packs, handed to a catch-up: the next ones start afresh."""
        ahead, self.viewer.ahead = self.viewer.ahead, Ahead()
        return ahead

    @staticmethod
    def catch_up(folder: Path, ahead: Ahead | None = None) -> None:
        """The pass brought up to the log's end, taking the packs the run tallied; a failure
        leaves it to the report at the end."""
        try:
            passed = read_games(folder, (), frozenset(), workers=1, viewer=True, progress=None,
                                ahead=ahead)
        except Exception:  # noqa: BLE001 - never a run's failure: the end's build starts over
            return
        passed.kept.close()
