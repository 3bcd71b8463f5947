"""The audit of a results folder: each game of games.jsonl checked against its replay, the
one mechanism behind `arena replay RESULTS_DIR --verify` and the check a run makes before it
writes the standings.

A game passes when its replay re-applies through the rules (arena.verify) and tells the same
story as its games.jsonl line (id, entrants, placements, scores, decisions). Before the
standings, the log must also hold exactly the games the run played or resumed, each with the
placements the run saw; each game the run itself played must be, byte for byte, the line and
the replay it wrote (digests kept in its memory: cheaper than re-applying every game, and
stricter, since a forged game that the rules would accept is refused too); the games of an
earlier run (a resume's) are re-applied through the rules. A log or replay rewritten by
anyone but the run (a bot not kept away from the folder) stops the run, never its standings.
This module writes nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.replay import Replay, ReplayError, read_listed
from arena.tournament.run import results as folder_files
from arena.tournament.run import safe_read
from arena.verify import verify_replay

__all__ = ["PARALLEL_FROM", "GameCheck", "Written", "WrittenGames", "audit_log", "check_folder",
           "check_game", "digest"]

PARALLEL_FROM = 200
"""Folders with at least this many replays are verified on several processes."""
_CHUNK = 25


@dataclass(frozen=True, slots=True)
class GameCheck:
    """The outcome of checking one game of a results folder: None when it verified."""

    game: str
    problem: str | None


def check_game(folder: str, line: Mapping[str, Any]) -> GameCheck:
    """Verify one game's replay through the rules, and against its games.jsonl line."""
    game_id = str(line.get("id"))
    try:
        replay = read_listed(folder, line["replay"])
    except ReplayError as exc:
        return GameCheck(game_id, str(exc))
    difference = verify_replay(replay)
    if difference is not None:
        return GameCheck(game_id, str(difference))
    return GameCheck(game_id, _against_log(replay, line))


def _against_log(replay: Replay, line: Mapping[str, Any]) -> str | None:
    """Where the replay and its games.jsonl line tell different stories, if anywhere."""
    names = [e.get("name") for e in replay.header.get("entrants", ())]
    pairs = [
        ("id", replay.header.get("game", {}).get("id"), line.get("id")),
        ("entrants", names, line.get("entrants")),
        *((key, replay.result.get(key), line.get(key)) for key in
          ("placements", "scores", "decisions")),
    ]  # fmt: skip
    for key, in_replay, in_log in pairs:
        if in_replay != in_log:
            return f"games.jsonl has {key} {in_log!r}, the replay {in_replay!r}"
    return None


def _check_task(_: None, task: tuple[str, tuple[Mapping[str, Any], ...]]) -> list[GameCheck]:
    folder, lines = task
    return [check_game(folder, line) for line in lines]


def check_folder(folder: Path, lines: Sequence[Mapping[str, Any]],
                 workers: int | None = None) -> Iterator[GameCheck]:  # fmt: skip
    """Check every listed game, in games.jsonl order; big folders on several processes."""
    from arena.executor.local import Job, ordered_map, pool_size

    count = pool_size(workers, len(lines), PARALLEL_FROM)
    tasks = [(str(folder), tuple(lines[i : i + _CHUNK])) for i in range(0, len(lines), _CHUNK)]
    for checks in ordered_map(Job(_check_task), tasks, count):
        yield from checks


Written = tuple[bytes, bytes | None]
"""What a run wrote for one game: the digests of its games.jsonl line and of its replay."""


def written(line: str, replay: bytes | None) -> Written:
    """What the audit compares the folder with: a game's line and replay as the run wrote them."""
    return digest(line.encode("utf-8") + b"\n"), None if replay is None else digest(replay)


def digest(data: bytes) -> bytes:
    """A short digest of bytes the run wrote, kept in its memory, out of any bot's reach."""
    return hashlib.blake2b(data, digest_size=_DIGEST).digest()


_DIGEST = 16
_NO_REPLAY = bytes(_DIGEST)  # a game without a replay (a blake2b digest is never all zeros)


class WrittenGames(MutableMapping[str, Written]):
    """What a run wrote, by game id: its games' digests side by side in one buffer (32
    bytes a game, with the id's place), not two objects a game: a million-game run's end
    holds a few dozen megabytes less."""

    def __init__(self) -> None:
        self._place: dict[str, int] = {}
        self._digests = bytearray()

    def __getitem__(self, game: str) -> Written:
        start = self._place[game] * 2 * _DIGEST
        line, replay = self._digests[start:start + _DIGEST], \
            self._digests[start + _DIGEST:start + 2 * _DIGEST]
        return bytes(line), None if replay == _NO_REPLAY else bytes(replay)

    def __setitem__(self, game: str, digests: Written) -> None:
        data = digests[0] + (_NO_REPLAY if digests[1] is None else digests[1])
        place = self._place.setdefault(game, len(self._place))
        self._digests[place * 2 * _DIGEST:(place + 1) * 2 * _DIGEST] = data

    def place(self, game: str) -> int | None:
        """Where a game is among those written (in the order first written), if it is."""
        return self._place.get(game)

    def __delitem__(self, game: str) -> None:
        raise TypeError("what a run wrote is never forgotten")

    def __iter__(self) -> Iterator[str]:
        return iter(self._place)

    def __len__(self) -> int:
        return len(self._place)


def audit_log(folder: Path, played: Mapping[str, Sequence[int]], workers: int | None = None,
              replays: bool = True,
              written: Mapping[str, Written] | None = None,
              each: Callable[[Mapping[str, Any]], object] | None = None) -> str | None:  # fmt: skip
    """Why games.jsonl cannot be trusted for the standings, naming the game and the file;
    None when it holds exactly the games `played` (id -> placements), each game this run
    wrote byte for byte as `written` (id -> digests) says, and each game from before it
    (a resume's) matching its replay re-applied through the rules (when replays are kept).

    `each` is given every game as it is read (the derived tables' totals): the end of a run
    reads the log once. Only a resume's earlier games are held, never the whole log."""
    games_path = folder / folder_files.GAMES
    written = written or {}
    earlier: list[tuple[int, Mapping[str, Any]]] = []
    seen = _Seen(written)  # a game seen twice is not one this run played: seen once, a flag a game
    for number, (text, line) in enumerate(folder_files.iter_game_lines(games_path), 1):
        game = str(line.get("id"))
        if game not in played or not seen.first(game):
            return f"{games_path}:{number}: game {game!r} is not one this run played"
        if list(line.get("placements", ())) != list(played[game]):
            return (f"{games_path}:{number}: game {game} has placements "
                    f"{line.get('placements')!r}, the run saw {list(played[game])!r}")
        problem = _as_written(folder, text, line, written.get(game))
        if problem is not None:
            return f"{games_path}:{number}: game {game} {problem}"
        if each is not None:
            each(line)
        if game not in written and replays:  # re-applied below: held until then
            earlier.append((number, line))
    if seen.count < len(played):
        missing = next(g for g in played if not seen.seen(g))
        return f"{games_path}: game {missing} that this run played is missing"
    return _check_earlier(folder, earlier, workers) if replays else None


class _Seen:
    """The games of the log seen so far: a byte a game this run wrote (at its place in
    `WrittenGames`), a set of the others (a resume's): no set of every id at a run's end."""

    def __init__(self, written: Mapping[str, Written]) -> None:
        self.count = 0
        self._written = written if isinstance(written, WrittenGames) else None
        self._bytes = bytearray(len(written) if self._written is not None else 0)
        self._others: set[str] = set()

    def first(self, game: str) -> bool:
        """Mark a game seen; whether it was not seen before."""
        if self.seen(game):
            return False
        place = self._written.place(game) if self._written is not None else None
        if place is None:
            self._others.add(game)
        else:
            self._bytes[place] = 1
        self.count += 1
        return True

    def seen(self, game: str) -> bool:
        """Whether the game was seen."""
        place = self._written.place(game) if self._written is not None else None
        return game in self._others if place is None else bool(self._bytes[place])


def _as_written(folder: Path, text: str, line: Mapping[str, Any],
                written: Written | None) -> str | None:  # fmt: skip
    """How a game this run played differs from what it wrote, if it does; None for a game
    from an earlier run (checked through the rules instead)."""
    if written is None:
        return None
    line_digest, replay_digest = written
    if digest(text.encode("utf-8")) != line_digest:
        return "is not the line this run wrote"
    if replay_digest is None:
        return None
    path = folder / str(line.get("replay"))
    try:
        data = safe_read.replay_bytes(str(line.get("replay")), folder)
    except safe_read.Unreadable as exc:
        return f"has no replay this run wrote: {path}: {exc}"
    if digest(data) != replay_digest:
        return f"does not match {path}: the file is not the one this run wrote"
    return None


def _check_earlier(folder: Path, earlier: Sequence[tuple[int, Mapping[str, Any]]],
                   workers: int | None) -> str | None:  # fmt: skip
    """The first game from an earlier run (each with its line number) whose replay does not
    tell its line's story."""
    chosen = [line for _, line in earlier]
    for (number, line), check in zip(earlier, check_folder(folder, chosen, workers),
                                     strict=True):  # fmt: skip
        if check.problem is not None:
            replay = folder / str(line.get("replay"))
            return (f"{folder / folder_files.GAMES}:{number}: game {check.game} does not "
                    f"match {replay}: {check.problem}")
    return None
