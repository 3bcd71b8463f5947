"""A season's totals kept between runs (ladder-state.json), so that a run's start and end
cost the same at 500 games played as at 100,000 (issue 34).

The file holds what the run after needs of every game before it: the ladder's running
state (state.py), the derived tables' running totals (arena.ratings.summary.Summary), the
progress tally, and the marks of the logs they were fed from: games.jsonl's and
ladder-batches.jsonl's length and sha256 of those bytes, and the voided list. A run reads
the file, checks each log's first bytes against their mark (a hash at C speed, no line
parsed) and feeds only the lines after it (a run a kill cut). A log shorter than its mark,
or whose bytes differ (truncated, edited, another season's), a voided list changed, or a
file that is not this one's form, is read whole instead, as before there was a file: the
standing is always the logs', never the file's. The file is written atomically at each
run's end (and each live refresh), after the logs it marks and the files derived from the
totals (ladder.json, standings, ratings, crosstable: the bytes a run reading the logs whole
writes). It must not play games; it is read only to avoid re-reading the logs.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from arena.ratings.render import crosstable_csv, ratings_json, standings_csv
from arena.ratings.summary import Summary, summarise
from arena.tournament.config import TournamentConfig
from arena.tournament.formats.ladder.log import (
    BATCHES,
    batch_starts,
    counted,
    ladder_json,
    last_rated,
    read_final,
    read_log,
    voided,
)
from arena.tournament.formats.ladder.state import LadderState
from arena.tournament.run import results as folder_files
from arena.tournament.run import safe_read

__all__ = ["STATE", "Ledger"]

STATE = "ladder-state.json"
"""The season's totals after the games its marks name (not a result: a cache of them)."""

FORM = 1
"""The file's form; another is read as no file (its logs read whole)."""

_CHUNK = 1 << 20


class _Stale(Exception):
    """The kept file does not match the logs: they are read whole."""


class Mark:
    """A log's bytes fed so far: their length and running sha256."""

    def __init__(self) -> None:
        self.size, self.hash = 0, hashlib.sha256()

    def feed(self, data: bytes) -> None:
        self.size += len(data)
        self.hash.update(data)

    def value(self) -> list[Any]:
        return [self.size, self.hash.hexdigest()]


class Ledger:
    """A season's running totals over its logs, with the marks of what they were fed."""

    def __init__(self, state: LadderState, summary: Summary | None, names: set[str]) -> None:
        self.state, self.summary, self.names = state, summary, names
        """`summary`: the derived tables' totals over the games that count, in id order;
        None once a final's game counts (its ids sort first: the tables are made whole)."""
        self.games, self.batches = Mark(), Mark()
        self.faults, self.wins = 0, Counter[str]()
        """The progress tally of every game logged (arena.tournament.run.progress.Tally)."""
        self.note: str | None = None
        """Why the logs were read whole although a kept file was there (None: they were not)."""

    def add(self, line: str) -> None:
        """One games.jsonl line as it was appended (without its newline)."""
        self.games.feed(line.encode("utf-8") + b"\n")
        self._count(json.loads(line))

    def begun(self, line: str) -> None:
        """One ladder-batches.jsonl line as it was appended (with its newline)."""
        self.batches.feed(line.encode("utf-8"))

    def _count(self, game: Mapping[str, Any]) -> None:
        self.state.add(game)
        self.faults += len(game.get("faults") or ())
        for name, place in zip(game["entrants"], game["placements"], strict=False):
            if place == 1:
                self.wins[str(name)] += 1
        if str(game["id"]) in self.state.voided:
            return
        new = {str(n) for n in game["entrants"]} - self.names
        self.names |= new
        if self.summary is None:
            return
        if new:
            self.summary.admit(sorted(self.names))
        try:
            self.summary.add(game)
        except ValueError:  # a final's game sorts before the ladder's: made whole at the end
            self.summary = None

    def derive(self, folder: Path, cfg: TournamentConfig) -> dict[str, Any]:
        """ladder.json from the state and the logs; every format's tables from the running
        totals (from the games themselves once a final's game counts); the totals kept last."""
        value = ladder_json(cfg, read_log(folder), self.state, read_final(folder))
        folder_files.write_atomic(folder / "ladder.json",
                                  json.dumps(value, sort_keys=True, indent=1) + "\n")
        summary = self.summary or summarise(
            counted(folder, list(folder_files.iter_games(folder / folder_files.GAMES))),
            sorted(self.names))
        folder_files.write_atomic(folder / "standings.csv", standings_csv(summary.standings()))
        folder_files.write_atomic(folder / "ratings.json",
                                  ratings_json(summary.openskill(), summary.elo()))
        folder_files.write_atomic(folder / "crosstable.csv",
                                  crosstable_csv(summary.crosstable()))
        self.write(folder)
        return value

    def write(self, folder: Path) -> None:
        """The kept file after the logs as fed, in one atomic rename."""
        body = {"form": FORM, "games": self.games.value(), "batches": self.batches.value(),
                "voided": sorted(self.state.voided), "state": self.state.kept(),
                "summary": None if self.summary is None else self.summary.kept(),
                "names": sorted(self.names), "faults": self.faults,
                "wins": list(self.wins.items())}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        sealed = {**body, "digest": hashlib.sha256(text.encode()).hexdigest()}
        folder_files.write_atomic(folder / STATE,
                                  json.dumps(sealed, sort_keys=True, separators=(",", ":")))

    @classmethod
    def read(cls, folder: Path) -> Ledger:
        """The season's totals: the kept file's and the lines after its marks, else (no
        file, or one that does not match its logs) every log read whole."""
        path = folder / STATE
        if path.exists():
            try:
                return _resumed(folder, _kept(path))
            except (_Stale, safe_read.Unreadable, folder_files.ResultsError, KeyError,
                    TypeError, ValueError) as exc:
                ledger = _whole(folder)
                ledger.note = f"{path.name} does not match the season's logs ({exc}): read whole"
                return ledger
        return _whole(folder)


def _kept(path: Path) -> dict[str, Any]:
    """The kept file, checked whole: its form and its own digest."""
    kept = safe_read.json_file(path)
    if not isinstance(kept, dict) or kept.get("form") != FORM:
        raise _Stale("another form")
    body = {k: v for k, v in kept.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    if hashlib.sha256(text.encode()).hexdigest() != kept.get("digest"):
        raise _Stale("its digest differs")
    return kept


def _resumed(folder: Path, kept: Mapping[str, Any]) -> Ledger:
    """The ledger the kept file gave, fed the lines its logs gained since."""
    now = voided(folder)
    if sorted(now) != kept["voided"]:
        raise _Stale("the voided list changed")
    state = LadderState.resumed(kept["state"], now)
    summary = None if kept["summary"] is None else Summary.resumed(kept["summary"],
                                                                   kept["names"])
    ledger = Ledger(state, summary, set(kept["names"]))
    ledger.faults, ledger.wins = int(kept["faults"]), Counter(dict(kept["wins"]))
    for line in _after(folder / BATCHES, ledger.batches, kept["batches"]):
        state.starts.append(int(safe_read.json_object(line)["after"]))
    for line in _after(folder / folder_files.GAMES, ledger.games, kept["games"]):
        game = safe_read.json_object(line)
        if game.get("replay") and safe_read.listed_problem(game["replay"]) is not None:
            raise _Stale("a game names a replay outside replays/")  # refused by the whole read
        ledger._count(game)
    state.restart(last_rated(folder))
    return ledger


def _after(path: Path, mark: Mark, kept: list[Any]) -> Iterator[str]:
    """The log's lines after its kept mark, once its first bytes are checked against it."""
    size, digest = int(kept[0]), str(kept[1])
    if not path.exists():
        if size:
            raise _Stale(f"{path.name} is gone")
        return iter(())
    with safe_read.open_regular(path) as handle:
        while mark.size < size:
            data = handle.read(min(_CHUNK, size - mark.size))
            if not data:
                raise _Stale(f"{path.name} is shorter than its mark")
            mark.feed(data)
        if mark.hash.hexdigest() != digest:
            raise _Stale(f"{path.name}'s first {size} bytes differ")
        rest = handle.read()
    mark.feed(rest)
    found = rest.decode("utf-8").splitlines(keepends=True)
    if found and not found[-1].endswith("\n"):
        raise _Stale(f"{path.name} ends in a torn line")
    return iter(found)


def _whole(folder: Path) -> Ledger:
    """The ledger of every log read whole (a new season's, or one whose kept file is stale)."""
    state = LadderState.of((), voided(folder), batch_starts(folder), last_rated(folder))
    ledger = Ledger(state, Summary(()), set())
    for path, mark in ((folder / BATCHES, ledger.batches),
                       (folder / folder_files.GAMES, ledger.games)):
        if path.exists():
            with safe_read.open_regular(path) as handle:
                while data := handle.read(_CHUNK):
                    mark.feed(data)
    for game in folder_files.iter_games(folder / folder_files.GAMES):
        ledger._count(game)
    return ledger
