"""Keeping bots hot: the order a batch's games are played in, so each worker keeps the same
entrants' processes running instead of starting them again for game after game.

A worker keeps at most `cap` bot processes (arena.kept.KeptHosts: as many as its open
files and its share of the machine's memory hold); a schedule's order (a round robin's
pairs, balanced tables drawn at random, a gauntlet's champion after champion) churns them
when the field is larger, and deals an entrant's games to every worker. Here the games are
played in bundles instead (`wanted`), each holding games whose entrants' processes fit in
one worker's budget: `cap` processes hold `cap` entrants, halved for the twin games of
duplicate play (an entrant plays the deal again in a second process) and divided by the
seats when bots are sandboxed (an entrant may be shown each of the table's images of the
system's files, a process each). At two seats the field is split into row blocks of all
those entrants but one by index, and a bundle holds a row block's games against one entrant
above the block's lowest (inside the block or beyond it): a worker keeps the row block
running while the rest of the field passes through one entrant at a time, so each start
serves a whole row's games, and the entrant passing through is seated above the whole row
(KeptHosts.table: one image, one process for all its games). A capped round robin of 200
sandboxed file bots starts 0.089 processes a game in two workers keeping 32 each (0.17 when
a process served one seat index, 0.28 with equal blocks). At more seats a game needs
several passing entrants at once, whose combinations rarely repeat, so the field is split
into equal blocks of `1 / seats` of the budget and a bundle holds games whose seats fall in
the same blocks. A bundle is the executor's unit: all its games are played by one worker,
one after another, and consecutive bundles share blocks (a snake through the keys) so a
worker that takes several in a row keeps the shared block running. A gauntlet's challenger
meets every champion in one bundle, however many processes a worker keeps: it is started
on one worker, twice (its rotation's twin games deal the same dice).

Only the playing is reordered, never the log: the runner writes every line in schedule
order (arena/tournament/run/runner.py). Games are taken `WINDOW` at a time in schedule
order and every bundle of a window is finished before the next window starts, so at most
`WINDOW` finished games wait for their line (a line is a few hundred bytes; a replay is
written at once, and one without its line is played again on resume).

This module is pure: no I/O, no clocks, no games played, no rule of the game known.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator, Sequence

from arena.tournament.formats.schedule import GameSpec

__all__ = ["BUNDLE", "SHARED", "WINDOW", "Bundle", "bundles", "wanted", "windows"]

WINDOW = 20_000
"""Games taken at a time in schedule order: the most finished games whose lines wait for an
earlier game's (the default cap of a round robin, so a capped one is a single window)."""
BUNDLE = 256
"""Games in a bundle at most: small enough that the last bundles of a window spread over
the workers, large enough that a bundle's starts are few per game."""

SHARED = 32
"""Processes of a field beyond which several workers play it in bundles though each could
keep them all: an entrant is then started on the worker that plays its bundle, not on each."""

Bundle = tuple[GameSpec, ...]


def wanted(entrants: int, seats: int, kept: int, workers: int) -> bool:
    """Whether a field of process bots is played in bundles: when its processes (one per
    seat index, at most) outgrow what a worker keeps, or SHARED with several workers."""
    return entrants * seats > (kept if workers == 1 else min(kept, SHARED))


def windows(games: Sequence[GameSpec], size: int = WINDOW) -> Iterator[Sequence[GameSpec]]:
    """The games in schedule order, `size` at a time."""
    for start in range(0, len(games), size):
        yield games[start:start + size]


def bundles(games: Sequence[GameSpec], cap: int, images: int = 1,
            size: int = BUNDLE) -> list[Bundle]:
    """The games regrouped into bundles of at most `size` games whose entrants fit in `cap`
    kept processes (`images` of them an entrant, one per image it may be shown), each
    bundle in schedule order, the bundles in a snake through the blocks; every game once."""
    if not games:
        return []
    seats = max(len(game.seats) for game in games)
    twins = max(collections.Counter(game.group for game in games if game.group).values(),
                default=1)  # a twin game's entrant plays in a second process (KeptHosts)
    room = max(1, cap // (twins * images))  # entrants whose processes a worker keeps at once
    key_of = _resident(max(1, room - 1)) if seats == 2 else _blocks(max(1, room // seats))
    grouped: dict[tuple[int, ...], list[GameSpec]] = {}
    for game in games:
        grouped.setdefault(key_of(game), []).append(game)
    out: list[Bundle] = []
    for key in _snake(list(grouped)):
        group = grouped[key]
        out.extend(tuple(group[i:i + size]) for i in range(0, len(group), size))
    return out


def _blocks(block: int) -> Callable[[GameSpec], tuple[int, ...]]:
    """A game's bundle key at any table size: the blocks of `block` entrants its seats fall
    in (a bundle of up to `seats` blocks fits the kept processes)."""
    return lambda game: tuple(sorted({seat // block for seat in game.seats}))


def _resident(row: int) -> Callable[[GameSpec], tuple[int, ...]]:
    """A two-seat game's bundle key: the row block of `row` entrants its first entrant (by
    index) falls in, and its other entrant. A worker keeps the row block's processes while
    the others pass through it one entrant at a time, each meeting all of the block below
    it in one bundle (inside the block too), so a start serves up to `row` games of the
    entrant's, not a block's worth of equal blocks (half of them), and an entrant passing
    through (a gauntlet's challenger) plays all its games on one worker."""
    def key(game: GameSpec) -> tuple[int, ...]:
        low, high = min(game.seats), max(game.seats)
        return (low // row, high)
    return key


def _snake(keys: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Block keys ordered so that neighbours share blocks: by their first blocks, the last
    one rising and falling in turn (block pairs (0,0)..(0,m), (1,m)..(1,1), ...)."""
    rows: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for key in sorted(keys):
        rows.setdefault(key[:-1], []).append(key)
    ordered: list[tuple[int, ...]] = []
    for turn, row in enumerate(rows.values()):
        ordered.extend(reversed(row) if turn % 2 else row)
    return ordered
