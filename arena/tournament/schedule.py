"""Tournament schedules: who sits where in which game, and with which seed.

A schedule turns a tournament's format settings into `GameSpec`s for the tournament runner.
Entrants are indexes 0..n-1 into the config's entrant list; seat 0 is listed first.

This module is pure. It must not do I/O, read clocks, use the global random generator, play
games or know a rule of the game. Where a schedule draws, it uses a `random.Random` seeded
from its arguments, so the same arguments always give the same games, and a resumed
tournament rebuilds exactly the games it started with.

Guarantees (each one pinned by tests/tournament/test_schedule.py):

- Ids are unique, zero-padded to widths fixed by the settings, and sort in schedule order.
  Game, table, match and stage numbers count from 1.
- A game's seed is `derive_seed(root, game.id)`; the games of a duplicate group share
  `derive_seed(root, game.group)`. A seed depends on nothing else, so adding, removing or
  replaying other games never changes it.
- `round_robin`: every k-subset of the entrants (`itertools.combinations` order) at each of
  its k cyclic seat rotations, `games` times (repetition is the outer loop, so a tournament
  cut short after r repetitions is still complete r times). Cyclic rotations put every
  entrant of the subset in every seat once while keeping who sits to whose left, which is
  what a rotation must preserve in a game where the cup passes left; all k! orders
  (`rotations="all"`) also vary the neighbours, at k!/k times the cost (120x for k=6).
  Count: C(n, k) * k * games (k! for "all"). Games of one rotation set share `table`.
- When that count exceeds `cap`, `round_robin` returns `balanced_tables(n, k, cap, seed)`
  instead: exactly `cap` games, in which
    * every entrant plays floor(cap*k/n) or ceil(cap*k/n) games (all the same when n
      divides cap*k),
    * every entrant sits at every seat floor(cap/n) or ceil(cap/n) times,
    * every pair meets about cap*C(k,2)/C(n,2) times: pair balance is greedy, not proven;
      the tests bound max - min pair meetings on several (n, k, cap).
  Construction: blocks of n games in which each seat runs through all n entrants once
  (a cyclic Latin rectangle: game j puts entrant sigma[(j + o_s) % n] in seat s); the last
  block, of cap mod n games, uses offsets o_s = floor(s*n/k), which spread its seats evenly.
  Each block's sigma is chosen greedily, then improved by swaps, to minimise the sum of
  squared pair meetings. Cost: about cap * n * k^2 steps.
- `gauntlet`: champions never meet; every challenger (a non-champion) faces every champion
  in the same number of rotation sets. A rotation set is the k cyclic rotations of a
  table (champion first, then k-1 challengers); its k games share one deal (`group`).
  Per repetition and champion the challengers, in a seeded shuffle, are repeated
  lcm(m, k-1)/m times and cut into tables of k-1, so each meets the champion
  (k-1)/gcd(m, k-1) times per repetition (once when k=2 or k-1 divides m).
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
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from arena.seeds import derive_seed

Rotations = Literal["cyclic", "all"]
Results = Mapping[str, Sequence[int]]


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game to play: who sits where, under which seed."""

    id: str
    stage: str
    table: int
    seats: tuple[int, ...]
    seed: int
    group: str | None = None


# ---------------------------------------------------------------------------- checks


def _check_count(name: str, value: int, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name}={value!r}: must be an integer >= {least}")


def _check_seats(n_entrants: int, seats: int) -> None:
    _check_count("n_entrants", n_entrants, 2)
    _check_count("seats", seats, 2)
    if seats > n_entrants:
        raise ValueError(f"seats={seats} is more than n_entrants={n_entrants}")


def _width(largest: int, least: int) -> int:
    return max(least, len(str(largest)))


# ---------------------------------------------------------------------------- round robin


def round_robin_count(
    n_entrants: int, seats: int, games: int, rotations: Rotations = "cyclic"
) -> int:
    """Count a full round robin's games without building it (to compare with a cap)."""
    _check_seats(n_entrants, seats)
    _check_count("games", games, 1)
    per_subset = _rotation_count(seats, rotations)
    return math.comb(n_entrants, seats) * per_subset * games


def _rotation_count(seats: int, rotations: str) -> int:
    if rotations == "cyclic":
        return seats
    if rotations == "all":
        return math.factorial(seats)
    raise ValueError(f"rotations={rotations!r}: must be 'cyclic' or 'all'")


def _seatings(subset: tuple[int, ...], rotations: str) -> Iterable[tuple[int, ...]]:
    if rotations == "all":
        return itertools.permutations(subset)
    return (subset[r:] + subset[:r] for r in range(len(subset)))


def round_robin(
    n_entrants: int,
    seats: int,
    games: int,
    seed: int,
    cap: int | None = None,
    rotations: Rotations = "cyclic",
) -> list[GameSpec]:
    """Every table of `seats` entrants at every rotation, or balanced tables above `cap`."""
    total = round_robin_count(n_entrants, seats, games, rotations)
    if cap is not None:
        _check_count("cap", cap, 1)
        if total > cap:
            return balanced_tables(n_entrants, seats, cap, seed)
    width = _width(total, 6)
    specs: list[GameSpec] = []
    table = 0
    for _ in range(games):
        for subset in itertools.combinations(range(n_entrants), seats):
            table += 1
            for seating in _seatings(subset, rotations):
                game_id = f"rr-{len(specs) + 1:0{width}d}"
                specs.append(GameSpec(game_id, "main", table, seating, derive_seed(seed, game_id)))
    return specs


# ---------------------------------------------------------------------------- balanced tables


def balanced_tables(n_entrants: int, seats: int, total: int, seed: int) -> list[GameSpec]:
    """Exactly `total` games with even play, seat and pair counts (see the module docstring)."""
    _check_seats(n_entrants, seats)
    _check_count("total", total, 1)
    rng = random.Random(derive_seed(seed, "balanced-tables"))
    meetings = [[0] * n_entrants for _ in range(n_entrants)]
    blocks, rest = divmod(total, n_entrants)
    full = _block_rows(n_entrants, _spread_offsets(n_entrants, seats), n_entrants)
    tables: list[tuple[int, ...]] = []
    for _ in range(blocks):
        tables.extend(_deal_block(full, meetings, rng))
    if rest:
        even = [s * n_entrants // seats for s in range(seats)]
        tables.extend(_deal_block(_block_rows(n_entrants, even, rest), meetings, rng))
    width = _width(total, 6)
    ids = [f"rr-{i:0{width}d}" for i in range(1, total + 1)]
    return [
        GameSpec(game_id, "main", i, table, derive_seed(seed, game_id))
        for i, (game_id, table) in enumerate(zip(ids, tables, strict=True), 1)
    ]


def _block_rows(n: int, offsets: Sequence[int], count: int) -> list[tuple[int, ...]]:
    # Game j seats the entrants at positions j + o_s: distinct offsets make distinct seats,
    # and over j = 0..n-1 every seat runs through every position once.
    return [tuple((j + o) % n for o in offsets) for j in range(count)]


def _spread_offsets(n: int, seats: int) -> list[int]:
    # Offsets whose pairwise differences collide least (a greedy Sidon set mod n): a
    # difference d that occurs c times makes pairs at distance d meet c times per block.
    offsets = [0]
    collisions: dict[int, int] = {}
    for _ in range(seats - 1):
        best: tuple[int, int, dict[int, int]] | None = None
        for candidate in range(1, n):
            if candidate in offsets:
                continue
            trial = dict(collisions)
            for o in offsets:
                for d in ((candidate - o) % n, (o - candidate) % n):
                    trial[d] = trial.get(d, 0) + 1
            cost = sum(c * c for c in trial.values())
            if best is None or cost < best[0]:
                best = (cost, candidate, trial)
        assert best is not None  # seats <= n leaves a free offset
        offsets.append(best[1])
        collisions = best[2]
    return offsets


def _deal_block(
    rows: list[tuple[int, ...]], meetings: list[list[int]], rng: random.Random
) -> list[tuple[int, ...]]:
    """Place entrants on a block's positions so its pairs are the least-met ones."""
    n = len(meetings)
    partners = _position_partners(rows, n)
    sigma = _greedy_sigma(partners, meetings, rng)
    _improve_by_swaps(sigma, partners, meetings)
    tables = [tuple(sigma[p] for p in row) for row in rows]
    for table in tables:
        for a, b in itertools.combinations(table, 2):
            meetings[a][b] += 1
            meetings[b][a] += 1
    return tables


def _position_partners(rows: list[tuple[int, ...]], n: int) -> list[dict[int, int]]:
    partners: list[dict[int, int]] = [{} for _ in range(n)]
    for row in rows:
        for p, q in itertools.permutations(row, 2):
            partners[p][q] = partners[p].get(q, 0) + 1
    return partners


def _greedy_sigma(
    partners: list[dict[int, int]], meetings: list[list[int]], rng: random.Random
) -> list[int]:
    free = list(range(len(meetings)))
    rng.shuffle(free)  # ties go to a seeded draw
    sigma: list[int] = []
    for p in range(len(meetings)):
        placed = [(sigma[q], w) for q, w in partners[p].items() if q < p]
        best = min(free, key=lambda e: sum(w * meetings[e][f] for f, w in placed))
        free.remove(best)
        sigma.append(best)
    return sigma


def _improve_by_swaps(
    sigma: list[int], partners: list[dict[int, int]], meetings: list[list[int]]
) -> None:
    def cost(p: int, entrant: int) -> int:
        return sum(w * meetings[entrant][sigma[q]] for q, w in partners[p].items())

    # One pass of first-improvement swaps; more passes cost time and rarely gain.
    for p, q in itertools.combinations(range(len(sigma)), 2):
        a, b = sigma[p], sigma[q]
        before = cost(p, a) + cost(q, b)
        sigma[p], sigma[q] = b, a
        if cost(p, b) + cost(q, a) >= before:
            sigma[p], sigma[q] = a, b


# ---------------------------------------------------------------------------- gauntlet


def gauntlet(
    champions: Sequence[int], n_entrants: int, seats: int, games: int, seed: int
) -> list[GameSpec]:
    """Every challenger against every champion equally often, in duplicate rotation sets."""
    _check_seats(n_entrants, seats)
    _check_count("games", games, 1)
    _check_entrants("champions", champions, n_entrants)
    challengers = sorted(set(range(n_entrants)) - set(champions))
    if len(challengers) < seats - 1:
        raise ValueError(
            f"seats={seats} needs at least {seats - 1} challengers, got {len(challengers)}"
        )
    tables = [
        (champion, *chunk)
        for repetition in range(games)
        for champion in champions
        for chunk in _challenger_tables(challengers, seats - 1, seed, repetition, champion)
    ]
    set_width, rot_width = _width(len(tables), 5), _width(seats, 2)
    specs: list[GameSpec] = []
    for number, table in enumerate(tables, 1):
        group = f"gt-{number:0{set_width}d}"
        for r in range(seats):
            game_id = f"{group}-{r + 1:0{rot_width}d}"
            seating = table[r:] + table[:r]
            specs.append(
                GameSpec(game_id, "main", number, seating, derive_seed(seed, group), group)
            )
    return specs


def _challenger_tables(
    challengers: list[int], size: int, seed: int, repetition: int, champion: int
) -> list[tuple[int, ...]]:
    order = list(challengers)
    random.Random(derive_seed(seed, "gauntlet", repetition, champion)).shuffle(order)
    passes = math.lcm(len(order), size) // len(order)
    # Consecutive entries of a cyclic order of m >= size distinct challengers are distinct.
    cycle = order * passes
    return [tuple(cycle[i : i + size]) for i in range(0, len(cycle), size)]


def _check_entrants(name: str, entrants: Sequence[int], n_entrants: int) -> None:
    if not entrants:
        raise ValueError(f"{name}=[]: needs at least one entrant")
    for e in entrants:
        if isinstance(e, bool) or not isinstance(e, int) or not 0 <= e < n_entrants:
            raise ValueError(f"{name}: {e!r} is not an entrant index 0..{n_entrants - 1}")
    if len(set(entrants)) != len(entrants):
        raise ValueError(f"{name}={list(entrants)!r}: an entrant appears twice")


# ---------------------------------------------------------------------------- elimination


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
        """Final standings: the final's ranking, then the losers of each earlier stage."""
        if not self.finished:
            raise ValueError("ranking: the elimination is not finished")
        ranked: list[int] = []
        for stage in reversed(self.stages()):
            place = {
                x: (i, self.order.index(x)) for t in stage.tables for i, x in enumerate(t.ranking)
            }
            out = stage.eliminated if stage.name != "final" else stage.advanced + stage.eliminated
            ranked.extend(sorted(out, key=place.__getitem__))
        return tuple(ranked)


def elimination_2(entrant_order: Sequence[int], games: int, seed: int) -> Elimination:
    """A seeded single-elimination bracket of two-seat matches, byes to the top seeds."""
    _check_order(entrant_order)
    _check_count("games", games, 1)
    return Elimination("bracket", tuple(entrant_order), 2, 1, games, seed)


def elimination_k(
    entrant_order: Sequence[int], seats: int, advance: int, games: int, seed: int
) -> Elimination:
    """Stages of snake-dealt tables of `seats`, the top `advance` of each going on."""
    _check_order(entrant_order)
    _check_count("seats", seats, 2)
    _check_count("games", games, 1)
    _check_count("advance", advance, 1)
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
    prefix = f"el-s{number:0{_width(n, 2)}d}-{letter}{t:0{_width(n, 3)}d}"
    specs = []
    for g in range(e.games):
        game_id = f"{prefix}-g{g + 1:0{_width(e.games, 2)}d}"
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
