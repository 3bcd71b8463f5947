"""The elimination schedule: a staged knockout as a pure state machine, `Elimination`.

Guarantees (pinned by tests/test_schedule.py; ids and seeds as in
arena/tournament/formats/schedule.py):

- Elimination (`elimination_2`, `elimination_k`) is a pure state machine, `Elimination`:
  its games are a function of (order, settings, seed, results so far); `record` adds
  results and `pending` lists the games still to play. Within a table of m entrants each
  game rotates the seats by one (seed order first; for m=2 the seats alternate, the higher
  seed in seat 0 of game 1) and a game earns each seat m - placement points. A table ranks
  its entrants by total points, then by games placed 1st, then by seed (the earlier in
  `entrant_order`); for a match of two this is "more game wins, then the higher seed".
  * `elimination_2`: single elimination over the next power of two P >= n, in the
    standard bracket (1 v P, 2 v P-1, ...; seeds 1 and 2 can only meet in the final);
    seeds whose opponent would be > n get a bye (so byes go to the top seeds, in round 1
    only). Rounds are "round-1", ..., "final"; match numbers are bracket positions, so
    match m of a round is fed by matches 2m-1 and 2m of the round before.
  * `elimination_k`: each stage deals its entrants (in seed order) snake-wise onto
    ceil(n/k) tables: seeds 1..T on tables 1..T, the next T on tables T..1, and so on, so
    table sizes differ by at most one (the short tables are those the last pass missed).
    A table of m entrants sends on its top min(advance, m-1), so every stage knocks
    someone out; a table of one is a bye. Stages are "stage-1", ... until at most k
    remain, who play the "final" table. A final's winner is its only "advanced".
- `ranking` (the standings): the final's table, then each earlier stage's losers, a later
  stage first. Within a stage, by the share of the points they took at the table they lost
  (2-3 above 0-5), then their place there, then all their knockout points, then seed: a
  loser who scored nothing never places above one who scored in the same or a later stage.

This module is pure: no I/O, no clocks, no random draws at all, no games played, no rule of
the game known (a table ranks its entrants by the placements it is given).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Literal

from arena.seeds import derive_seed
from arena.tournament.formats.schedule import GameSpec, check_count, id_width

__all__ = ["Elimination", "Results", "Stage", "Table", "elimination_2", "elimination_k"]

Results = Mapping[str, Sequence[int]]


@dataclass(frozen=True, slots=True)
class Table:
    """One table (or match) of an elimination stage, and how it ended."""

    stage: str
    number: int
    entrants: tuple[int, ...]  # seed order, which is also game 1's seat order
    games: tuple[GameSpec, ...]
    ranking: tuple[int, ...] = ()  # best first; empty until every game has a result
    advanced: tuple[int, ...] = ()
    eliminated: tuple[int, ...] = ()
    points: tuple[int, ...] = ()
    """The match score, by `ranking`: each game gives seats - place points (1 a win, 2 seats)."""


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage of an elimination: its tables, its byes, who went on and who went out."""

    name: str
    number: int
    tables: tuple[Table, ...]
    byes: tuple[int, ...]  # went on without playing in this stage
    complete: bool
    advanced: tuple[int, ...] = ()  # includes the byes; empty until complete
    eliminated: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Elimination:
    """A staged knockout as a pure value: settings plus the results recorded so far."""

    shape: Literal["bracket", "tables"]
    order: tuple[int, ...]  # entrant indexes, top seed first
    seats: int
    advance: int
    games: int
    seed: int
    results: tuple[tuple[str, tuple[int, ...]], ...] = field(default=())

    def stages(self) -> list[Stage]:
        """The stages so far, the last one being played unless `finished`."""
        return _replay(self, dict(self.results))

    def pending(self) -> list[GameSpec]:
        """Games of the current stage that have no result yet."""
        recorded = dict(self.results)
        current = self.stages()[-1]
        return [g for t in current.tables for g in t.games if g.id not in recorded]

    @property
    def finished(self) -> bool:
        """Whether the final has been played."""
        last = self.stages()[-1]
        return last.complete and last.name == "final"

    def record(self, results: Results) -> Elimination:
        """Add results (game id -> placements by seat); later stages' ids may come too."""
        known = dict(self.results)
        waiting = {game_id: tuple(p) for game_id, p in results.items()}
        for game_id in [g for g in waiting if g in known]:
            _check_same(game_id, known[game_id], waiting.pop(game_id))
        # A whole log may come at once (resume): each finished stage reveals the next one's ids.
        while waiting:
            current = {g.id: g for t in _replay(self, known)[-1].tables for g in t.games}
            ready = [game_id for game_id in waiting if game_id in current]
            if not ready:
                raise ValueError(
                    f"unknown game id {min(waiting)!r}: not a game of the stages reached so far"
                )
            for game_id in ready:
                known[game_id] = _checked(current[game_id], waiting.pop(game_id))
        return replace(self, results=tuple(sorted(known.items())))

    def ranking(self) -> tuple[int, ...]:
        """Final standings: the final's ranking, then each earlier stage's losers (see `_out`)."""
        if not self.finished:
            raise ValueError("ranking: the elimination is not finished")
        stages = self.stages()
        scored: dict[int, int] = dict.fromkeys(self.order, 0)
        for stage in stages:
            for table in stage.tables:
                for entrant, points in zip(table.ranking, table.points, strict=True):
                    scored[entrant] += points
        ranked = list(stages[-1].tables[0].ranking)
        for stage in reversed(stages[:-1]):
            ranked.extend(sorted(stage.eliminated, key=_out(self, stage, scored).__getitem__))
        return tuple(ranked)


def _out(
    e: Elimination, stage: Stage, scored: Mapping[int, int]
) -> dict[int, tuple[Fraction, int, int, int]]:
    """Who went out of one stage, best first: by the share of the points they took at the
    table they lost (a 1-2 loss above a 0-3), then their place there, then all the points
    they scored in the knockout, then seed; so a scoreless loser never passes one who scored."""
    key = {}
    for table in stage.tables:
        available = e.games * (len(table.entrants) - 1)
        for place, (entrant, points) in enumerate(zip(table.ranking, table.points, strict=True)):
            share = Fraction(points, available)
            key[entrant] = (-share, place, -scored[entrant], e.order.index(entrant))
    return key


def elimination_2(entrant_order: Sequence[int], games: int, seed: int) -> Elimination:
    """A seeded single-elimination bracket of two-seat matches, byes to the top seeds."""
    _check_order(entrant_order)
    check_count("games", games, 1)
    return Elimination("bracket", tuple(entrant_order), 2, 1, games, seed)


def elimination_k(
    entrant_order: Sequence[int], seats: int, advance: int, games: int, seed: int
) -> Elimination:
    """Stages of snake-dealt tables of `seats`, the top `advance` of each going on."""
    _check_order(entrant_order)
    check_count("seats", seats, 2)
    check_count("games", games, 1)
    check_count("advance", advance, 1)
    if advance >= seats:
        raise ValueError(f"advance={advance} must be less than seats={seats}")
    return Elimination("tables", tuple(entrant_order), seats, advance, games, seed)


def _check_order(entrant_order: Sequence[int]) -> None:
    if len(entrant_order) < 2:
        raise ValueError(f"entrant_order={list(entrant_order)!r}: needs at least 2 entrants")
    for e in entrant_order:
        if isinstance(e, bool) or not isinstance(e, int) or e < 0:
            raise ValueError(f"entrant_order: {e!r} is not an entrant index")
    if len(set(entrant_order)) != len(entrant_order):
        raise ValueError(f"entrant_order={list(entrant_order)!r}: an entrant appears twice")


def _check_same(game_id: str, old: tuple[int, ...], new: tuple[int, ...]) -> None:
    if old != new:
        raise ValueError(f"result for {game_id!r}: {new!r} differs from recorded {old!r}")


def _checked(game: GameSpec, placements: tuple[int, ...]) -> tuple[int, ...]:
    m = len(game.seats)
    ok = len(placements) == m and all(
        isinstance(p, int) and not isinstance(p, bool) and 1 <= p <= m for p in placements
    )
    if not ok:
        raise ValueError(
            f"result for {game.id!r}: placements {placements!r} must be {m} places in 1..{m}"
        )
    return placements


# A stage plan: name, tables as (number, entrants in seed order), byes, the bracket slots.
_Plan = tuple[str, list[tuple[int, tuple[int, ...]]], tuple[int, ...], tuple[int | None, ...]]


def _replay(e: Elimination, known: Mapping[str, tuple[int, ...]]) -> list[Stage]:
    rank = {entrant: i for i, entrant in enumerate(e.order)}
    stages: list[Stage] = []
    survivors: tuple[int, ...] = e.order
    slots = _bracket_slots(e.order) if e.shape == "bracket" else ()
    while True:
        number = len(stages) + 1
        if e.shape == "bracket":
            plan = _bracket_plan(number, slots, rank)
        else:
            plan = _tables_plan(e, number, survivors, rank)
        stage = _play(e, number, plan, known, rank)
        stages.append(stage)
        if not stage.complete or stage.name == "final":
            return stages
        survivors = tuple(sorted(stage.advanced, key=rank.__getitem__))
        slots = _next_slots(plan[3], stage.advanced)


def _bracket_slots(order: tuple[int, ...]) -> tuple[int | None, ...]:
    size = 1 << (len(order) - 1).bit_length()
    positions = [1]
    while len(positions) < size:
        twice = 2 * len(positions) + 1
        positions = [s for p in positions for s in (p, twice - p)]
    return tuple(order[p - 1] if p <= len(order) else None for p in positions)


def _bracket_plan(number: int, slots: tuple[int | None, ...], rank: Mapping[int, int]) -> _Plan:
    name = "final" if len(slots) == 2 else f"round-{number}"
    tables: list[tuple[int, tuple[int, ...]]] = []
    byes: list[int] = []
    for m in range(len(slots) // 2):
        pair = [s for s in slots[2 * m : 2 * m + 2] if s is not None]
        if len(pair) == 2:
            tables.append((m + 1, tuple(sorted(pair, key=rank.__getitem__))))
        else:
            byes.extend(pair)
    return name, tables, tuple(byes), slots


def _next_slots(slots: tuple[int | None, ...], advanced: tuple[int, ...]) -> tuple[int | None, ...]:
    going = set(advanced)
    return tuple(
        next((s for s in slots[i : i + 2] if s in going), None) for i in range(0, len(slots), 2)
    )


def _tables_plan(
    e: Elimination, number: int, survivors: tuple[int, ...], rank: Mapping[int, int]
) -> _Plan:
    if len(survivors) <= e.seats:
        return "final", [(1, survivors)], (), ()
    count = -(-len(survivors) // e.seats)
    dealt: list[list[int]] = [[] for _ in range(count)]
    for i, entrant in enumerate(survivors):
        lap, pos = divmod(i, count)
        dealt[pos if lap % 2 == 0 else count - 1 - pos].append(entrant)
    tables = [(t + 1, tuple(d)) for t, d in enumerate(dealt) if len(d) > 1]
    byes = tuple(d[0] for d in dealt if len(d) == 1)
    return f"stage-{number}", tables, byes, ()


def _play(
    e: Elimination,
    number: int,
    plan: _Plan,
    known: Mapping[str, tuple[int, ...]],
    rank: Mapping[int, int],
) -> Stage:
    name, planned, byes, _ = plan
    tables = []
    for t, entrants in planned:
        games = _table_games(e, name, number, t, entrants)
        go_on = 1 if name == "final" or e.shape == "bracket" else min(e.advance, len(entrants) - 1)
        tables.append(_settle(Table(name, t, entrants, games), known, rank, go_on))
    if not all(t.ranking for t in tables):
        return Stage(name, number, tuple(tables), byes, False)
    advanced = [*byes, *(x for t in tables for x in t.advanced)]
    eliminated = [x for t in tables for x in t.eliminated]
    by_seed = rank.__getitem__
    return Stage(
        name,
        number,
        tuple(tables),
        byes,
        True,
        tuple(sorted(advanced, key=by_seed)),
        tuple(sorted(eliminated, key=by_seed)),
    )


def _table_games(
    e: Elimination, stage: str, number: int, t: int, entrants: tuple[int, ...]
) -> tuple[GameSpec, ...]:
    # Widths depend only on the settings, so every id of one elimination sorts in order.
    n = len(e.order)
    letter = "m" if e.shape == "bracket" else "t"
    prefix = f"el-s{number:0{id_width(n, 2)}d}-{letter}{t:0{id_width(n, 3)}d}"
    specs = []
    for g in range(e.games):
        game_id = f"{prefix}-g{g + 1:0{id_width(e.games, 2)}d}"
        r = g % len(entrants)
        seating = entrants[r:] + entrants[:r]
        specs.append(GameSpec(game_id, stage, t, seating, derive_seed(e.seed, game_id)))
    return tuple(specs)


def _settle(
    table: Table, known: Mapping[str, tuple[int, ...]], rank: Mapping[int, int], go_on: int
) -> Table:
    if any(g.id not in known for g in table.games):
        return table
    m = len(table.entrants)
    points = dict.fromkeys(table.entrants, 0)
    firsts = dict.fromkeys(table.entrants, 0)
    for game in table.games:
        for entrant, place in zip(game.seats, known[game.id], strict=True):
            points[entrant] += m - place
            firsts[entrant] += place == 1
    ranking = tuple(sorted(table.entrants, key=lambda x: (-points[x], -firsts[x], rank[x])))
    return replace(
        table,
        ranking=ranking,
        advanced=ranking[:go_on],
        eliminated=ranking[go_on:],
        points=tuple(points[x] for x in ranking),
    )
