"""The audit of a results folder: each game of games.jsonl checked against its replay, the
one mechanism behind `arena replay RESULTS_DIR --verify` and the check a run makes before it
writes the standings.

A game passes when its replay re-applies through the rules (arena.verify) and tells the same
story as its games.jsonl line (id, entrants, placements, scores, decisions). Before the
standings, the log must also hold exactly the games the run played or resumed, each with the
placements the run saw: a log or replay rewritten by anyone but the run (a bot not kept away
from the folder) stops the run, never its standings. This module writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.replay import Replay, ReplayError, read_replay
from arena.tournament import results as folder_files
from arena.verify import verify_replay

__all__ = ["PARALLEL_FROM", "GameCheck", "audit_log", "check_folder", "check_game"]

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
    path = Path(folder) / str(line["replay"])
    try:
        replay = read_replay(path)
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


def audit_log(folder: Path, played: Mapping[str, Sequence[int]], workers: int | None = None,
              replays: bool = True) -> str | None:  # fmt: skip
    """Why games.jsonl cannot be trusted for the standings, naming the game and the file;
    None when it holds exactly the games `played` (id -> placements) and each matches its
    replay (when the run keeps replays)."""
    games_path = folder / folder_files.GAMES
    lines = list(folder_files.iter_games(games_path))
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        game = str(line.get("id"))
        if game not in played or game in seen:
            return f"{games_path}:{number}: game {game!r} is not one this run played"
        seen.add(game)
        if list(line.get("placements", ())) != list(played[game]):
            return (f"{games_path}:{number}: game {game} has placements "
                    f"{line.get('placements')!r}, the run saw {list(played[game])!r}")
    if len(seen) < len(played):
        missing = next(g for g in played if g not in seen)
        return f"{games_path}: game {missing} that this run played is missing"
    if not replays:
        return None
    for number, check in enumerate(check_folder(folder, lines, workers), 1):
        if check.problem is not None:
            replay = folder / str(lines[number - 1].get("replay"))
            return f"{games_path}:{number}: game {check.game} does not match {replay}: " \
                   f"{check.problem}"
    return None
