"""The finished games a rating reads: each result parsed and checked, and put in id order.

A game is a mapping as ``games.jsonl`` holds it (id, entrants, placements, faults); here it
becomes a small frozen `Game`, or a ValueError saying what is wrong with it. Games that come
in another order than their ids are merged (a few ascending runs, such as an elimination's
seeding ``rr-...`` before its knockout ``el-...``, holding one game per run) or parsed and
sorted in memory (more runs, such as a shuffled list).

It must stay pure: no file I/O, no clocks, no randomness; it rates nothing and counts nothing
(that is `arena.ratings.summary`).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

FAULT_KINDS: tuple[str, ...] = ("timeout", "crash", "illegal", "protocol")
_FRAMES, _FRAME_CHARS = 4, 203
"""The most frames of a trace kept, and characters of each (arena.hosts.trace's bounds)."""
MERGED_RUNS = 8
"""Out-of-order games in at most this many ascending runs are merged, not sorted in memory."""


@dataclass(frozen=True, slots=True)
class Game:
    """One finished game, checked: its id, who sat where, their placements and faults."""

    id: str
    entrants: tuple[str, ...]
    placements: tuple[int, ...]
    faults: tuple[tuple[int, str, str], ...]
    """(seat, kind, message) of each fault; a message is one line, then the frames of its
    trace (where in the bot's own code it crashed) below it, a line each, indented."""


def check_entrants(entrants: Sequence[str]) -> tuple[str, ...]:
    """The entrants' names as a tuple; ValueError if a name appears twice."""
    names = tuple(entrants)
    if len(set(names)) != len(names):
        raise ValueError(f"entrant names must be unique: {list(names)}")
    return names


def parse_game(raw: Mapping[str, Any], known: set[str]) -> Game:
    """One game of `known` entrants, checked: a ValueError names the game and the fault."""
    game_id = str(raw["id"])
    seats = tuple(str(name) for name in raw["entrants"])
    placements = tuple(int(place) for place in raw["placements"])
    if len(seats) < 2:
        raise ValueError(f"game {game_id}: a table needs at least two seats")
    if len(set(seats)) != len(seats):
        raise ValueError(f"game {game_id}: the same entrant sits twice at one table")
    if unknown := sorted(set(seats) - known):
        raise ValueError(f"game {game_id}: unknown entrants {unknown}")
    if len(placements) != len(seats) or min(placements) < 1:
        raise ValueError(f"game {game_id}: need one placement >= 1 per seat")
    return Game(game_id, seats, placements, _parse_faults(raw, game_id, len(seats)))


def _parse_faults(
    raw: Mapping[str, Any], game_id: str, seats: int
) -> tuple[tuple[int, str, str], ...]:
    faults = []
    for fault in raw.get("faults") or ():
        seat, kind = int(fault["seat"]), str(fault["kind"])
        if kind not in FAULT_KINDS or not 0 <= seat < seats:
            raise ValueError(f"game {game_id}: bad fault {dict(fault)!r}")
        message = " ".join(str(fault.get("message") or "").split())
        faults.append((seat, kind, message + _frames(fault.get("trace"))))
    return tuple(faults)


def _frames(trace: Any) -> str:
    """A fault's trace as the lines below its message (as many frames as a fault keeps, each
    as long, each on one line: a games.jsonl may come from anywhere)."""
    if not isinstance(trace, list):
        return ""
    return "".join(f"\n    {' '.join(str(frame).split())[:_FRAME_CHARS]}"
                   for frame in trace[-_FRAMES:])


def _game_id(game: Game) -> str:
    return game.id


def _runs(games: Iterable[Mapping[str, Any]]) -> list[tuple[int, int]]:
    """[start, stop) of each stretch of ascending ids, from one pass that keeps only ids."""
    starts, last, count = [0], "", 0
    for count, raw in enumerate(games, 1):
        game_id = str(raw["id"])
        if game_id < last:
            starts.append(count - 1)
        last = game_id
    return list(zip(starts, [*starts[1:], count], strict=True))


def in_id_order(games: Iterable[Mapping[str, Any]], known: set[str]) -> Iterator[Game]:
    """Parse games that can be read again in id order: merge a few runs, else sort them."""
    runs = _runs(games)
    if len(runs) > MERGED_RUNS:
        return iter(sorted((parse_game(raw, known) for raw in games), key=_game_id))
    parsed = [
        (parse_game(raw, known) for raw in itertools.islice(games, start, stop))
        for start, stop in runs
    ]
    return heapq.merge(*parsed, key=_game_id)
