"""The plan of a tournament: its games in play order, batch by batch, and its stages.

Each format (arena/tournament/formats/base.py) makes its own `Plan`: here the base, the flat
plan of a round robin or a gauntlet and an elimination's. An elimination's next stage, and
a Swiss's next round, depends on the results before it, so `Plan.batch` gives the first
batch with a game not yet played; `Plan.stages` describes
every stage's tables and results for stages.json, which `json_parts` encodes in parts so a
stage of many games is never held whole.

This module never plays a game, never touches a results folder and never knows a rule of
the game: the schedule (arena/tournament/formats/schedule.py) deals the games, the standings
(arena/ratings/summary.py) rank a finished stage.
"""

from __future__ import annotations

import itertools
import json
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.ratings.summary import standings
from arena.tournament.config import DEFAULT_CAP, TournamentConfig
from arena.tournament.formats.elimination import Elimination, elimination_2, elimination_k
from arena.tournament.formats.schedule import GameSpec, round_robin

__all__ = ["EliminationPlan", "FlatPlan", "Placements", "Plan", "json_parts"]

Placements = tuple[int, ...]


class Plan(ABC):
    """The games of a tournament in play order, as batches: each batch may depend on the
    results of the ones before (a seeding round robin, then each elimination stage)."""

    own_ranking: str | None = None
    """How the format ranks its entrants by its own result instead of the standings' Elo:
    'bracket' (an elimination), 'scores' (a Swiss), or None."""
    season = False
    """Whether it is a season's run: the games already in its folder are its past, not a
    schedule a resume must match, and it writes its own derived files (`derive`)."""

    def __init__(self, cfg: TournamentConfig) -> None:
        self.cfg = cfg
        self.names = tuple(e.name for e in cfg.entrants)

    @property
    def ranks_itself(self) -> bool:
        """Whether the format ranks its entrants by its own result (a bracket, Swiss scores),
        not by the standings' Elo."""
        return self.own_ranking is not None

    @abstractmethod
    def batch(self, results: Mapping[str, Placements]) -> tuple[GameSpec, ...]:
        """All games of the first batch with a game not in `results`; () when finished."""

    @abstractmethod
    def stages(
        self, results: Mapping[str, Placements], ranking: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """Every stage's tables and results, for stages.json; `ranking`, if given, is the
        overall standings order, reused for a one-stage format instead of rating again."""

    def final_ranking(self, results: Mapping[str, Placements]) -> tuple[str, ...] | None:
        """The ranking the run reports as the tournament's result (an elimination's), best
        first; None when the standings are the result."""
        return None

    def keep(self, line: str) -> None:
        """A game's line as games.jsonl has it, once written: a format that chooses its next
        games from more than the placements (a season's matchmaking) keeps it."""
        del line  # the placements are enough for a schedule

    def derive(self, folder: Path) -> bool:
        """Write the format's own derived files instead of the runner's (a season's
        ladder.json and tables); False: it has none, the runner writes the usual ones."""
        return False

    def total(self) -> int:
        """How many games the whole tournament has."""
        return sum(len(batch) for batch in self._dry_run())

    def smallest_table(self) -> tuple[str, int] | None:
        """The stage with the fewest seats at a table, and that number (None if no games)."""
        games = [game for batch in self._dry_run() for game in batch]
        if not games:
            return None
        game = min(games, key=lambda g: len(g.seats))
        return game.stage, len(game.seats)

    def _dry_run(self) -> Iterator[tuple[GameSpec, ...]]:
        """Every batch, played with made-up results: an elimination's shape depends only on
        the number of entrants, never on who wins."""
        results: dict[str, Placements] = {}
        while batch := self.batch(results):
            for game in batch:
                results[game.id] = tuple(range(1, len(game.seats) + 1))
            yield batch

    def game_result(self, game: GameSpec, placements: Placements) -> dict[str, Any]:
        """The minimal game record the ratings read."""
        return {
            "id": game.id,
            "entrants": [self.names[i] for i in game.seats],
            "placements": list(placements),
        }

    def _named(self, indexes: Sequence[int]) -> list[str]:
        return [self.names[i] for i in indexes]

    def _flat_stage(
        self,
        name: str,
        kind: str,
        games: Sequence[GameSpec],
        results: Mapping[str, Placements],
        ranking: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """A stage of fixed tables; the tables come as `_Tables`, built one at a time when
        read, so the document never holds a table for every game (see `json_parts`)."""
        complete = all(g.id in results for g in games)
        if complete and ranking is None:
            rows = standings([self.game_result(g, results[g.id]) for g in games], self.names)
            ranking = [row.entrant for row in rows if row.rank is not None]
        return {
            "name": name,
            "format": kind,
            "complete": complete,
            "tables": _Tables(games, self.names),
            "ranking": list(ranking) if complete and ranking is not None else None,
        }


class FlatPlan(Plan):
    """One batch of fixed tables dealt up front (a round robin, a gauntlet)."""

    def __init__(self, cfg: TournamentConfig, games: Sequence[GameSpec]) -> None:
        super().__init__(cfg)
        self.main = tuple(games)

    def batch(self, results: Mapping[str, Placements]) -> tuple[GameSpec, ...]:
        return self.main if any(g.id not in results for g in self.main) else ()

    def stages(
        self, results: Mapping[str, Placements], ranking: Sequence[str] | None = None
    ) -> dict[str, Any]:
        kind = self.cfg.format.type
        stage = self._flat_stage("main", kind, self.main, results, ranking)
        return {"format": kind, "stages": [stage], "ranking": stage["ranking"]}


class EliminationPlan(Plan):
    """A knockout played stage by stage, after an optional seeding round robin."""

    own_ranking = "bracket"

    def __init__(self, cfg: TournamentConfig) -> None:
        super().__init__(cfg)
        fmt, n = cfg.format, len(cfg.entrants)
        self.seeding: tuple[GameSpec, ...] = ()
        if fmt.seeding:
            games = round_robin(n, fmt.seats, fmt.seeding, cfg.planned_seed, DEFAULT_CAP)
            self.seeding = tuple(replace(g, stage="seeding") for g in games)
        self._seeding_ids = frozenset(g.id for g in self.seeding)
        self._seeded: tuple[tuple[Placements, ...], tuple[int, ...]] | None = None
        """The seeding stage's placements and the seed order they give, once rated."""

    def batch(self, results: Mapping[str, Placements]) -> tuple[GameSpec, ...]:
        if any(g.id not in results for g in self.seeding):
            return self.seeding
        knockout = self.knockout(results)
        if knockout.finished:
            return ()
        return tuple(g for t in knockout.stages()[-1].tables for g in t.games)

    def seed_order(self, results: Mapping[str, Placements]) -> tuple[int, ...]:
        """Entrant indexes by seed: config order, or the seeding round robin's standings."""
        if not self.seeding:
            return tuple(range(len(self.names)))
        placements = tuple(results[g.id] for g in self.seeding)
        if self._seeded is None or self._seeded[0] != placements:  # rated once per outcome
            games = [self.game_result(g, p) for g, p in zip(self.seeding, placements, strict=True)]
            rows = standings(games, self.names)
            self._seeded = (placements, tuple(self.names.index(row.entrant) for row in rows))
        return self._seeded[1]

    def knockout(self, results: Mapping[str, Placements]) -> Elimination:
        """The elimination state machine with every knockout result recorded."""
        fmt, order = self.cfg.format, self.seed_order(results)
        if fmt.seats == 2:
            machine = elimination_2(order, fmt.games, self.cfg.planned_seed)
        else:
            machine = elimination_k(
                order, fmt.seats, fmt.advance or 1, fmt.games, self.cfg.planned_seed
            )
        played = {k: v for k, v in results.items() if k not in self._seeding_ids}
        return machine.record(played) if played else machine

    def final_ranking(self, results: Mapping[str, Placements]) -> tuple[str, ...] | None:
        return tuple(self.stages(results)["ranking"] or ())

    def stages(
        self, results: Mapping[str, Placements], ranking: Sequence[str] | None = None
    ) -> dict[str, Any]:
        kind = self.cfg.format.type
        stages: list[dict[str, Any]] = []
        if self.seeding:
            seeding = self._flat_stage("seeding", "round-robin", self.seeding, results)
            stages.append(seeding)
            if not seeding["complete"]:
                return {"format": kind, "stages": stages, "ranking": None}
        knockout = self.knockout(results)
        stages.extend(self._knockout_stage(stage) for stage in knockout.stages())
        ranked = self._named(knockout.ranking()) if knockout.finished else None
        return {"format": kind, "stages": stages, "ranking": ranked}

    def _knockout_stage(self, stage: Any) -> dict[str, Any]:
        tables = [
            {
                "table": table.number,
                "entrants": self._named(table.entrants),
                "games": [g.id for g in table.games],
                "ranking": self._named(table.ranking),
                "points": list(table.points),
                "advanced": self._named(table.advanced),
                "eliminated": self._named(table.eliminated),
            }
            for table in stage.tables
        ]
        return {
            "name": stage.name,
            "format": "elimination",
            "complete": stage.complete,
            "tables": tables,
            "byes": self._named(stage.byes),
            "advanced": self._named(stage.advanced),
            "eliminated": self._named(stage.eliminated),
        }


@dataclass(frozen=True, slots=True)
class _Tables:
    """A flat stage's tables for stages.json, in order of their first game, each with the
    entrants of that game and the ids of all its games; built afresh each time it is read."""

    games: Sequence[GameSpec]
    names: tuple[str, ...]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if all(a.table <= b.table for a, b in itertools.pairwise(self.games)):
            groups = itertools.groupby(self.games, key=_table_number)
            return (self._table(list(games)) for _, games in groups)  # holds one table
        grouped: dict[int, list[GameSpec]] = {}
        for game in self.games:
            grouped.setdefault(game.table, []).append(game)
        return (self._table(games) for games in grouped.values())

    def _table(self, games: Sequence[GameSpec]) -> dict[str, Any]:
        first = games[0]
        entrants = [self.names[i] for i in first.seats]
        return {"table": first.table, "entrants": entrants, "games": [g.id for g in games]}


def _table_number(game: GameSpec) -> int:
    return game.table


def json_parts(value: Any) -> Iterator[str]:
    """Encode as `_dumps` does, in parts: a `_Tables` is encoded table by table, so a stage
    of many games is never held whole."""
    if isinstance(value, _Tables):
        yield "["
        for i, table in enumerate(value):
            yield ("," if i else "") + _dumps(table)
        yield "]"
    elif isinstance(value, dict):
        yield "{"
        for i, key in enumerate(sorted(value)):
            yield ("," if i else "") + json.dumps(key) + ":"
            yield from json_parts(value[key])
        yield "}"
    elif isinstance(value, list):
        yield "["
        for i, item in enumerate(value):
            if i:
                yield ","
            yield from json_parts(item)
        yield "]"
    else:
        yield _dumps(value)


def _dumps(value: Any) -> str:
    """Compact JSON with sorted keys: the form of stages.json."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


# --- one game, in a worker ----------------------------------------------------------------
