"""The viewer's data made while `arena run` plays (arena.tournament.run.notes): each game's
chances (arena.report.chances) computed in its worker as the game ends (from its record,
arena.report.record_chances, where that reads the game; else from the replay's text), and
its pack and chances pack written here, a pack at a time in games.jsonl order; and what the
report's pass tallies of it (arena.report.scan.record_tally), summed over the packs written
here, for the pass to take instead of reading their replays again (arena.report.increment.
Ahead, handed on by arena.report.ahead).

The report at the end (arena.report.scan) then finds each pack holding its replays and its
chances stamped by the same code, and keeps them: no game is walked again there. The files
are the very bytes the report would write (the same functions make them); a pack this
wrote that the log no longer matches (a game played again) is found so and made again.
This module reads games.jsonl once, and only on a resume: where the run's first pack is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

from arena.referee import GameRecord
from arena.report import viewer
from arena.report.chances import chances_stamp, viewer_json
from arena.report.increment import Ahead, pack_stats
from arena.report.record_chances import record_json
from arena.report.scan import TallyKey, record_tally, text_tally
from arena.report.scan import _write_pack as write_pack
from arena.report.viewer import chances_name, chances_script, pack_name, pack_script
from arena.tournament.run import results as folder_files
from arena.tournament.run.worker import replay_name

__all__ = ["GameNote", "ViewerNotes", "game_chances", "game_notes"]

GameNote = tuple[bytes, "Counter[TallyKey] | None"]
"""A game's notes: its chances as the viewer reads them, and its tally (None: the pass reads
its replay)."""


def game_chances(record: GameRecord, text: bytes) -> bytes:
    """A game's chances as the viewer reads them (viewer_json of its replay's text), made in
    the worker: a replay the chances cannot follow has none ("null"), and never stops the run
    that played it. A game its record's walk cannot follow is read from its text, as the
    report would read it."""
    try:
        found = record_json(record)
    except Exception:  # noqa: BLE001 - the text's reading says what these chances are
        found = None
    return found or _read(text)


def game_notes(record: GameRecord, text: bytes) -> GameNote:
    """A game's chances (`game_chances`) and what the report's pass tallies of it, made in
    the worker: a `dice` game's tally from its record, another's from its text. A tally
    that cannot be made is None: its pack's replays are read by the pass."""
    try:
        tally = record_tally(record) if record.rules == "dice" else text_tally(text)
    except Exception:  # noqa: BLE001 - the pass reads its replay
        tally = None
    return game_chances(record, text), tally


def _read(text: bytes) -> bytes:
    """A game's chances from its replay's text (`viewer_json`); "null" if it cannot be read."""
    try:
        return viewer_json(text)
    except Exception:  # noqa: BLE001 - the viewer shows no chances; the game stands
        return b"null"


class ViewerNotes:
    """The viewer's chances made in the workers, and its packs written as games are kept."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.pack: int | None = None
        self.first = 0  # games of the first pack played before this run (a resume's)
        self.games: list[tuple[str, bytes, bytes]] = []
        self.said: list[TallyKey] | None = []  # the pack's keys so far (None: not all)
        self.ahead = Ahead()
        """The packs written here, for the report's pass (taken by arena.report.ahead)."""

    @property
    def make(self) -> Callable[[GameRecord, bytes], object]:
        """The notes of one game (its record, its replay's text): `game_notes`."""
        return game_notes

    def keep(self, game_id: str, replay: bytes, notes: object) -> None:
        """One game appended to the log; a pack written when it is full."""
        if self.pack is None:
            self._start()
        chances, tally = notes if isinstance(notes, tuple) else (notes, None)
        self.games.append((game_id, replay, chances))
        if self.said is not None and isinstance(tally, Counter):
            self.said += tally.elements()  # each key as often as it counts, where it first was
        else:
            self.said = None
        if self.first + len(self.games) == viewer.PACK:
            self._write()

    def close(self) -> None:
        """Write the last pack, if it is one this run began."""
        if self.games:
            self._write()

    def _start(self) -> None:
        """Where this run's games begin among the log's replays (the game just appended is
        the last line): a resume's first pack, begun before it, is left to the report."""
        log = folder_files.iter_games(self.folder / folder_files.GAMES)
        before = sum(1 for line in log if line.get("replay")) - 1
        self.pack, self.first = divmod(before, viewer.PACK)

    def _write(self) -> None:
        """The pack and its chances (the same bytes the report writes), unless the pack
        began before this run; the pack removed first, so chances never stand beside a
        pack they were not made for (a kill -9 between: the report makes both again)."""
        assert self.pack is not None
        if not self.first:
            replays = self.folder / folder_files.REPLAYS
            folder_files.own(replays / viewer.CHANCES_FOLDER, folder=True, make=True)
            pack = replays / pack_name(self.pack)
            pack.unlink(missing_ok=True)
            chances = [(game_id, notes) for game_id, _, notes in self.games]
            write_pack(replays / chances_name(self.pack), chances_stamp() + chances_script(chances))
            write_pack(pack, pack_script([(game_id, raw) for game_id, raw, _ in self.games]))
            if self.said is not None and len(self.games) == viewer.PACK:  # a whole pack
                names = [replay_name(game_id) for game_id, _, _ in self.games]
                self.ahead.add(self.pack, pack_stats(self.folder, names), self.said)
        self.pack, self.first, self.games, self.said = self.pack + 1, 0, [], []


