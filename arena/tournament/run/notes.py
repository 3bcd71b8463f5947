"""What a layer above the run keeps of each game as it is played: computed in the worker
from the game's record and its replay's text as the game ends, kept by the main process in
games.jsonl order.

`arena run` gives the report's (arena/report/as_played.py): the viewer's chances that each
claim holds, and its packs, written a pack at a time while the games are played, and what
the report's pass tallies of each game, so the report at the end finds them made instead of
re-walking every game. The run knows no rule of the game and never imports the report: it is
handed this, and calls it, and carries the notes it makes as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from arena.referee import GameRecord

__all__ = ["GameNotes"]


class GameNotes(Protocol):
    """Notes on each game's replay: made in the worker, kept in the run's process."""

    @property
    def make(self) -> Callable[[GameRecord, bytes], object]:
        """What a worker runs on each game's record and replay's text (a module's function:
        it is pickled)."""
        ...

    def keep(self, game_id: str, replay: bytes, notes: object) -> None:
        """One game just appended to games.jsonl (in its order): its replay file's bytes and
        its notes."""
        ...

    def close(self) -> None:
        """The run's games are over: keep what is held."""
        ...
