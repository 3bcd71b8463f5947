"""The games a caught cluster worker played before it was caught, played again and put right
in the results folder (arena.executor.trust catches; arena.tournament.run.runner calls here at
the end of each batch of the plan).

A worker that swaps a bot plays legal games: it is caught only when one of its games is
sampled, and the games it returned before that were written. Each is played again on the
honest workers; a game whose line differs is rewritten in games.jsonl (in one atomic
rename, its replay first), so the standings are those of the games really played. A game
of an earlier stage of an elimination that comes out otherwise stops the run: the stages
after it were drawn from it (`--force` plays the run again).
"""

from __future__ import annotations

from collections.abc import Collection, MutableMapping
from pathlib import Path

from arena.executor.local import Executor
from arena.tournament.errors import TournamentError
from arena.tournament.formats.plan import Placements
from arena.tournament.run import results as folder_files
from arena.tournament.run.audit import Written, digest
from arena.tournament.run.worker import Played, replay_name

__all__ = ["played_again"]


def played_again(executor: Executor, folder: Path, current: Collection[str],
                 results: MutableMapping[str, Placements],
                 written: MutableMapping[str, Written], replays: bool) -> int:
    """Play again the written games of workers caught since; rewrite those that differ.
    `current`: the ids of the plan's batch being played. How many games were rewritten."""
    recalled = executor.recall()
    if not recalled:
        return 0
    kept = {played.id: played for played in executor.map(recalled)
            if digest(played.line.encode("utf-8") + b"\n") != written[played.id][0]}
    for game in kept:
        if game not in current:
            raise TournamentError(
                f"game {game} of an earlier stage was played by a worker caught lying, and "
                "comes out otherwise played again; the stages after it were drawn from it: "
                "start over with --force")
    if kept:
        _rewrite(folder, kept, replays)
    for played in kept.values():
        results[played.id] = played.placements
        written[played.id] = (digest(played.line.encode("utf-8") + b"\n"),
                              digest(played.replay) if replays and played.replay else None)
    return len(kept)


def _rewrite(folder: Path, kept: dict[str, Played], replays: bool) -> None:
    """games.jsonl with the kept games' lines in place of theirs, their replays first."""
    path = folder / folder_files.GAMES
    text = []
    for line, game in folder_files.iter_game_lines(path):
        played = kept.get(str(game.get("id")))
        text.append(line if played is None else played.line + "\n")
    for played in kept.values():
        if replays and played.replay is not None:
            folder_files.write_replaced(f"{folder}/{replay_name(played.id)}", played.replay)
    folder_files.write_atomic(path, "".join(text).encode("utf-8"))
