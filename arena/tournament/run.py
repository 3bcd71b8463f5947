"""Runs a tournament: validated config -> schedule -> worker pool -> results folder.

The flow: `load_tournament` checks the YAML against the installed rule sets and bots;
`Plan` turns the config into games, batch by batch (an elimination's next stage depends
on the results before it); `run_tournament` plays the games that are not yet in
games.jsonl on a pool of worker processes, appends each result in schedule order, and
finally derives ratings, standings, the crosstable and stages.json from the log.

Reproducibility: every game's seed comes from the tournament seed and the game id (the
schedule does it), every bot is built fresh for each game, and results are written in
schedule order whatever order the workers finish in, so 1 or 16 workers write the same
bytes. Wall-clock times stay out of games.jsonl and the derived files (replays keep the
seconds per decision; see docs/replay-format.md).

Workers: the one executor (arena/executor/local.py): worker processes forked from a server
that imported arena once, inheriting no threads, locks or open files of the main process
(the folder lock stays with the main process alone, so a `kill -9` of the main process
frees the folder at once; the workers notice and exit). Results come back in schedule
order; a finished game waiting behind an unfinished earlier one is not yet written, and
is played again on resume if the run stops there. With one worker the games are played
in the main process: no processes to start, same bytes.

A worker that dies (`kill -9`, the OOM killer, an inline bot calling `os._exit` or crashing
in C code) costs no game: its games are played again on a new worker, the same games since
they are seeded, and the death is told to the user. A game that kills its worker LIVES
times is recorded as a `crash` fault of the inline seat whose bot call it died in (each
worker marks the seat and call before every inline bot call); one that dies outside any
bot call stops the run, its finished games kept for `--resume`. With one worker such a bot
takes the main process with it: untrusted bots belong in `process` mode.

This module never knows a rule of the game (the rules and the referee do), never builds the
report (`arena run` passes `after` to do it), and never prints: the CLI layer
(arena/cli/run.py) talks to the user.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from typing import Any

import yaml

from arena import entrants
from arena.bot import Limits
from arena.executor.local import Death, Executor, Job, mark, marked
from arena.hosts.inline import BotFault, Host
from arena.plugins import BotSpec, Registry, default_registry
from arena.ratings.render import crosstable_csv, ratings_json, standings_csv, standings_md
from arena.ratings.summary import standings, summarise
from arena.referee import GameRecord, Player, RefereeError, play_game
from arena.replay import fault_json, replay_lines, write_replay
from arena.rules import OptionError, RuleSet
from arena.tournament import results as folder_files
from arena.tournament.config import (
    DEFAULT_CAP,
    EntrantConfig,
    KeyLines,
    OptionProblem,
    Options,
    RuleSetInfo,
    TournamentConfig,
    added_defaults,
    config_as_run,
    config_differences,
    dump_config,
    key_lines,
    load_config,
)
from arena.tournament.schedule import (
    Elimination,
    GameSpec,
    elimination_2,
    elimination_k,
    gauntlet,
    round_robin,
    round_robin_count,
)

__all__ = [
    "HOSTED_MODES",
    "Derived",
    "GameSetup",
    "Interrupted",
    "LostGames",
    "Plan",
    "Played",
    "RunReport",
    "TournamentError",
    "entrant_mode",
    "game_job",
    "game_line",
    "load_tournament",
    "make_host",
    "rule_infos",
    "run_tournament",
    "schedule_notes",
    "write_derived",
]

HOSTED_MODES = ("inline", "process", "command")
"""Where a bot can run: in the worker's own process, or isolated (arena/hosts/pipe.py)."""
RESUME_IGNORES = ("workers", "output")
"""Config keys that may change between a run and its resume without changing results."""


class TournamentError(Exception):
    """A tournament that cannot run as asked; the message is one line a user can act on."""


class Interrupted(TournamentError):
    """The run was stopped (Ctrl-C, SIGTERM); finished games are kept for `--resume`."""

    def __init__(self, done: int, total: int, folder: Path) -> None:
        super().__init__(f"interrupted: {done} of {total} games are saved in {folder}")
        self.done = done
        self.total = total
        self.folder = folder


# --- the config, checked against what is installed ----------------------------------------


@dataclass(frozen=True, slots=True)
class _RuleInfo:
    """A rule set as the config layer sees it (`RuleSetInfo`)."""

    ruleset: RuleSet

    @property
    def id(self) -> str:
        return self.ruleset.id

    @property
    def min_players(self) -> int:
        return self.ruleset.min_players

    @property
    def max_players(self) -> int:
        return self.ruleset.max_players

    def check_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        names = [spec.name for spec in self.ruleset.option_specs]
        try:
            return self.ruleset.check_options(options)
        except OptionError as problem:
            if problem.key in names:
                raise OptionProblem(problem.key, problem.message) from None
            raise OptionProblem(problem.key, f"unknown option {problem.key!r}", names) from None


def rule_infos(registry: Registry) -> dict[str, RuleSetInfo]:
    """The installed rule sets in the form the config loader takes."""
    return {rules_id: _RuleInfo(ruleset) for rules_id, ruleset in registry.rules.items()}


def load_tournament(
    path: str | os.PathLike[str], registry: Registry | None = None
) -> TournamentConfig:
    """Read and check a tournament file against the installed rule sets and bots.

    Beyond the config loader's checks: each bot must play the config's rule set, take the
    bot options given to it, and run in a mode this arena can host. Raises ConfigError.
    """
    registry = registry or default_registry()
    cfg = load_config(
        path,
        rules=rule_infos(registry),
        bot_problem=registry.problem,
        known_bots=registry.names(),
    )
    lines = key_lines(path)
    for index, entrant in enumerate(cfg.entrants):
        _check_entrant(cfg, index, entrant, registry, lines)
    _check_tables(cfg, registry.rules[cfg.rules], lines)
    return cfg


def _check_entrant(
    cfg: TournamentConfig, index: int, entrant: EntrantConfig, registry: Registry, lines: KeyLines
) -> None:
    """Refuse an entrant whose bot does not play the rules or take its options."""
    found = entrants.problem(entrants.resolve(entrant.reference, registry), cfg.rules)
    if found is not None:
        raise lines.error(("entrants", index, *found.where), found.message)


def _check_tables(cfg: TournamentConfig, ruleset: RuleSet, lines: KeyLines) -> None:
    """An elimination deals tables smaller than `seats` when the entrants do not divide
    evenly (and finals of the survivors); each must still be playable."""
    smallest = Plan(cfg).smallest_table()
    if smallest is not None and smallest[1] < ruleset.min_players:
        stage, size = smallest
        raise lines.error(
            ("format", "seats"),
            f"with {len(cfg.entrants)} entrants, {stage} would have a table of {size}, but "
            f"{ruleset.id!r} needs at least {ruleset.min_players} players; change the "
            "number of entrants, seats or advance",
        )


def entrant_mode(entrant: EntrantConfig, spec: BotSpec | None = None) -> str:
    """Where an entrant's bot runs, by the one trust policy (arena.entrants.mode_of)."""
    return entrants.mode_of(entrant.reference, spec)


def untrusted_inline(cfg: TournamentConfig, registry: Registry | None = None) -> list[str]:
    """Entrants not from a trusted source (shipped with arena) that run inline, in the
    referee's own process."""
    names = []
    for entrant in cfg.entrants:
        seated = entrants.resolve(entrant.reference, registry)
        if seated.mode == "inline" and not (seated.spec and seated.spec.builtin):
            names.append(entrant.name)
    return names


def make_host(entrant: EntrantConfig, spec: BotSpec | None) -> Host:
    """Build a new host for one entrant, by the one host builder (arena.entrants)."""
    reference = entrant.reference
    try:
        return entrants.Resolved(reference, spec, entrants.mode_of(reference, spec)).host()
    except entrants.EntrantError:
        mode = entrant_mode(entrant, spec)
        raise TournamentError(f"entrant {entrant.name!r}: mode {mode!r} cannot be hosted") from None


def schedule_notes(cfg: TournamentConfig) -> tuple[str, ...]:
    """What the user should know about the schedule before it is played: a round robin
    over its cap is replaced by balanced random tables, which is not what was asked."""
    fmt, n = cfg.format, len(cfg.entrants)
    if fmt.type == "round-robin" and fmt.cap is not None:
        asked, cap, what = round_robin_count(n, fmt.seats, fmt.games), fmt.cap, "format.cap"
        stage = "a full round robin"
    elif fmt.type == "elimination" and fmt.seeding:
        asked, cap, what = round_robin_count(n, fmt.seats, fmt.seeding), DEFAULT_CAP, "the cap"
        stage = "the seeding round robin"
    else:
        return ()
    if asked <= cap:
        return ()
    instead = f"{cap:,} games at balanced random tables instead"
    return (f"{stage} would be {asked:,} games, more than {what} ({cap:,}): {instead}",)


# --- the plan: games, batch by batch ------------------------------------------------------


Placements = tuple[int, ...]


class Plan:
    """The games of a tournament in play order, as batches: each batch may depend on the
    results of the ones before (a seeding round robin, then each elimination stage)."""

    def __init__(self, cfg: TournamentConfig) -> None:
        self.cfg = cfg
        self.names = tuple(e.name for e in cfg.entrants)
        fmt, n = cfg.format, len(cfg.entrants)
        self.main: tuple[GameSpec, ...] = ()
        self.seeding: tuple[GameSpec, ...] = ()
        if fmt.type == "round-robin":
            self.main = tuple(round_robin(n, fmt.seats, fmt.games, cfg.seed, fmt.cap))
        elif fmt.type == "gauntlet":
            champions = [self.names.index(name) for name in fmt.champions]
            self.main = tuple(gauntlet(champions, n, fmt.seats, fmt.games, cfg.seed))
        elif fmt.seeding:
            games = round_robin(n, fmt.seats, fmt.seeding, cfg.seed, DEFAULT_CAP)
            self.seeding = tuple(replace(g, stage="seeding") for g in games)
        self._seeding_ids = frozenset(g.id for g in self.seeding)
        self._seeded: tuple[tuple[Placements, ...], tuple[int, ...]] | None = None
        """The seeding stage's placements and the seed order they give, once rated."""

    @property
    def elimination(self) -> bool:
        """Whether the format is a knockout, played stage by stage."""
        return self.cfg.format.type == "elimination"

    def batch(self, results: Mapping[str, Placements]) -> tuple[GameSpec, ...]:
        """All games of the first batch with a game not in `results`; () when finished."""
        if not self.elimination:
            return self.main if any(g.id not in results for g in self.main) else ()
        if any(g.id not in results for g in self.seeding):
            return self.seeding
        knockout = self.knockout(results)
        if knockout.finished:
            return ()
        return tuple(g for t in knockout.stages()[-1].tables for g in t.games)

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
            machine = elimination_2(order, fmt.games, self.cfg.seed)
        else:
            machine = elimination_k(order, fmt.seats, fmt.advance or 1, fmt.games, self.cfg.seed)
        played = {k: v for k, v in results.items() if k not in self._seeding_ids}
        return machine.record(played) if played else machine

    def game_result(self, game: GameSpec, placements: Placements) -> dict[str, Any]:
        """The minimal game record the ratings read."""
        return {
            "id": game.id,
            "entrants": [self.names[i] for i in game.seats],
            "placements": list(placements),
        }

    def stages(
        self, results: Mapping[str, Placements], ranking: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """Every stage's tables and results, for stages.json; `ranking`, if given, is the
        overall standings order, reused for a one-stage format instead of rating again.

        The tables of a round robin, a gauntlet or a seeding come as `_Tables`, built one at
        a time when read, so the document never holds a table for every game (see
        `_json_parts`)."""
        fmt = self.cfg.format
        if not self.elimination:
            stage = self._flat_stage("main", fmt.type, self.main, results, ranking)
            return {"format": fmt.type, "stages": [stage], "ranking": stage["ranking"]}
        stages: list[dict[str, Any]] = []
        if self.seeding:
            seeding = self._flat_stage("seeding", "round-robin", self.seeding, results)
            stages.append(seeding)
            if not seeding["complete"]:
                return {"format": fmt.type, "stages": stages, "ranking": None}
        knockout = self.knockout(results)
        stages.extend(self._knockout_stage(stage) for stage in knockout.stages())
        ranking = self._named(knockout.ranking()) if knockout.finished else None
        return {"format": fmt.type, "stages": stages, "ranking": ranking}

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


def _json_parts(value: Any) -> Iterator[str]:
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
            yield from _json_parts(value[key])
        yield "}"
    elif isinstance(value, list):
        yield "["
        for i, item in enumerate(value):
            if i:
                yield ","
            yield from _json_parts(item)
        yield "]"
    else:
        yield _dumps(value)


def _dumps(value: Any) -> str:
    """Compact JSON with sorted keys: the form of stages.json."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


# --- one game, in a worker ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameSetup:
    """What a worker needs to play any game of the tournament; sent once per worker."""

    tournament: str
    rules: str
    options: Options
    limits: Limits
    entrants: tuple[EntrantConfig, ...]
    replays: str | None
    """Absolute folder for replay files, or None when replays are off."""


@dataclass(frozen=True, slots=True)
class Played:
    """A finished game as the main process needs it: id, placements by seat, its log line."""

    id: str
    placements: Placements
    line: str


class _Worker:
    """Plays games of one tournament: bots resolved once, built fresh for every game."""

    def __init__(self, setup: GameSetup, registry: Registry | None = None) -> None:
        registry = registry or default_registry()
        self.setup = setup
        self.ruleset = registry.rules[setup.rules]
        self.entrants = tuple(entrants.resolve(e.reference, registry) for e in setup.entrants)
        self.limits = setup.limits
        self.options = setup.options.dict()
        self.replays = None if setup.replays is None else Path(setup.replays)
        self.kept = entrants.KeptHosts(max(entrants.KEPT_CAP, self.ruleset.max_players))
        """Isolated hosts by entrant: their bot processes serve many games of this worker."""

    def player(self, index: int) -> Player:
        entrant = self.entrants[index]
        return entrant.player(self.kept.host(index, entrant), self.setup.entrants[index].name)

    def shutdown(self) -> None:
        """Stop the bot processes this worker kept."""
        self.kept.close()

    def play(self, game: GameSpec, crashed: _Crashed | None = None) -> Played:
        players = [self.player(index) for index in game.seats]
        if marked():
            players = _watched(players, crashed)
        try:
            record = play_game(self.ruleset, players, game.seed, self.options, self.limits)
        except RefereeError as exc:
            raise TournamentError(f"game {game.id}: {exc}") from None
        replay = None
        if self.replays is not None:
            replay = f"{folder_files.REPLAYS}/{game.id}.json.gz"
            write_replay(self.replays / f"{game.id}.json.gz", self.replay(game, record))
        line = game_line(game, record, replay)
        return Played(game.id, record.result.placements, json.dumps(line, separators=(",", ":")))

    def replay(self, game: GameSpec, record: GameRecord) -> list[dict[str, Any]]:
        about = {
            "id": game.id,
            "stage": game.stage,
            "table": game.table,
            "tournament": self.setup.tournament,
        }
        seats = [
            self.seat(index, player)
            for index, player in zip(game.seats, record.players, strict=True)
        ]
        return replay_lines(record, about, seats)

    def seat(self, index: int, player: Player) -> dict[str, Any]:
        entrant = self.setup.entrants[index]
        seat: dict[str, Any] = {"name": entrant.name, "bot": entrant.bot}
        if entrant.command is not None:
            seat["command"] = list(entrant.command)
        return {
            **seat,
            "origin": player.origin,
            "version": player.version,
            "mode": player.host.mode,
        }


def game_line(game: GameSpec, record: GameRecord, replay: str | None) -> dict[str, Any]:
    """The games.jsonl record of one game: who sat where and how it ended; no timings."""
    return {
        "id": game.id,
        "stage": game.stage,
        "table": game.table,
        "seed": game.seed,
        "entrants": [p.name for p in record.players],
        "placements": list(record.result.placements),
        "scores": list(record.result.scores),
        "faults": [fault_json(f) for f in record.faults],
        "decisions": record.decisions,
        "replay": replay,
    }


LIVES = 2
"""Deaths of a worker on one game before the game is recorded as a crash of the acting seat."""


@dataclass(frozen=True, slots=True)
class _Crashed:
    """A game that killed its worker LIVES times in a bot call of table seat `seat`: played
    again with that call, and every later one of that seat, a `crash` fault."""

    game: GameSpec
    seat: int
    call: int
    cause: str


class _Watched:
    """An inline seat's host that marks each bot call in the worker's slot (seat, call
    number), so a worker that dies inside one is blamed on that seat; from `dies_at` on,
    the call is a crash fault instead."""

    __slots__ = ("calls", "cause", "dies_at", "host", "mode", "seat")

    def __init__(self, host: Host, seat: int, dies_at: int | None = None, cause: str = "") -> None:
        self.host, self.seat, self.calls = host, seat, 0
        self.dies_at, self.cause = dies_at, cause
        self.mode = host.mode

    @property
    def listens(self) -> bool:
        """Whether the bot takes events: its host knows once the bot is started."""
        return bool(getattr(self.host, "listens", True))

    @property
    def billed(self) -> float | None:
        return self.host.billed

    def _enter(self) -> bool:
        """Count and mark a call; False once the bot has crashed (it is not called again)."""
        self.calls += 1
        if self.dies_at is None or self.calls < self.dies_at:
            mark(self.seat, self.calls)
            return True
        if self.calls == self.dies_at:
            raise BotFault("crash", self.cause)
        return False

    def start(self, context: Any) -> None:
        if self._enter():
            try:
                self.host.start(context)
            finally:
                mark(-1)

    def act(self, observation: Any, timeout: float) -> Any:
        if not self._enter():
            raise BotFault("crash", self.cause)
        try:
            return self.host.act(observation, timeout)
        finally:
            mark(-1)

    def notify(self, event: Any) -> None:
        if self._enter():
            try:
                self.host.notify(event)
            finally:
                mark(-1)

    def end(self, result: Any) -> None:
        if self._enter():
            try:
                self.host.end(result)
            finally:
                mark(-1)

    def close(self) -> None:
        self.host.close()


def _watched(players: list[Player], crashed: _Crashed | None) -> list[Player]:
    """The inline seats' hosts marked (bots in their own process cannot kill the worker)."""
    watched = []
    for seat, player in enumerate(players):
        if player.host.mode == "inline":
            dies_at, cause = None, ""
            if crashed is not None and crashed.seat == seat:
                dies_at, cause = crashed.call, _crash_message(crashed)
            player = replace(player, host=_Watched(player.host, seat, dies_at, cause))
        watched.append(player)
    return watched


def _crash_message(crashed: _Crashed) -> str:
    return (f"its worker process died ({crashed.cause}) in this bot call, {LIVES} times: "
            "an inline bot runs in the worker's own process")


def _start_worker(setup: GameSetup) -> _Worker:
    """A worker for the games, or the one-line reason it cannot be built."""
    try:
        return _Worker(setup)
    except Exception as exc:  # noqa: BLE001 - any reason stops the run, said in one line
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise TournamentError(f"a worker could not start: {text}") from None


def _play_in_worker(worker: _Worker, task: GameSpec | _Crashed) -> Played:
    if isinstance(task, _Crashed):
        return worker.play(task.game, task)
    return worker.play(task)


def _stop_worker(worker: _Worker) -> None:
    worker.shutdown()


def game_job(setup: GameSetup) -> Job:
    """The executor's job that plays games of `setup`: a spec is a GameSpec, a result Played."""
    return Job(_play_in_worker, _start_worker, setup, _stop_worker)


class LostGames:
    """What the executor does with a game whose worker died: play it again; after LIVES
    deaths, as a crash of the seat whose bot call it died in, or stop when it died outside
    any bot call. Each death is told to `info` and kept in `deaths`, one line each."""

    def __init__(self, info: Callable[[str], None] | None = None,
                 hint: str = "every finished game is saved: run again with --resume") -> None:
        self.info, self.hint = info or _quiet, hint
        self.deaths: list[str] = []

    def __call__(self, death: Death) -> GameSpec | _Crashed:
        task: GameSpec | _Crashed = death.spec
        game = task.game if isinstance(task, _Crashed) else task
        line = (f"a worker died ({death.cause}) in game {game.id}; its games are played "
                "again on a new worker")
        self.deaths.append(line)
        self.info(line)
        if death.deaths < LIVES:
            return task
        if death.mark is None or isinstance(task, _Crashed):
            raise TournamentError(
                f"game {game.id} killed its worker {death.deaths} times ({death.cause}), "
                f"not in a bot's call; {self.hint}"
            )
        seat, call = death.mark
        return _Crashed(game, seat, call, death.cause)


# --- running ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunReport:
    """How a run ended: where the results are, how many games, and the standings."""

    folder: Path
    total: int
    played: int
    """Games played by this run."""
    resumed: int
    """Games found already played in games.jsonl."""
    standings: str
    """The standings as a Markdown table."""
    ranking: tuple[str, ...] | None
    """An elimination's final ranking, best first; None for other formats."""
    warnings: tuple[str, ...] = ()
    """One line each, for the user: workers that died, entrants that faulted in every game."""


def run_tournament(
    cfg: TournamentConfig,
    out: str | os.PathLike[str] | None = None,
    *,
    workers: int | None = None,
    resume: bool = False,
    force: bool = False,
    progress: bool = False,
    info: Callable[[str], None] | None = None,
    after: Callable[[Path, int], object] | None = None,
) -> RunReport:
    """Play a whole tournament into its results folder; with `resume`, only what is missing.

    `after`, if given, is called with the folder and the worker count once the derived
    files are written, still holding the folder's lock: `arena run` builds the report there.

    Raises TournamentError (FolderLocked, changed config, games already there) before any
    game starts, and Interrupted on Ctrl-C or SIGTERM with every finished game kept.
    """
    folder = Path(out if out is not None else (cfg.output or f"results/{cfg.name}"))
    count = workers or cfg.workers or os.cpu_count() or 1
    as_run = replace(cfg, output=str(folder), workers=workers or cfg.workers)
    strays = folder_files.foreign(folder)
    if strays:
        raise TournamentError(
            f"{folder} holds files that are not arena results ({', '.join(strays[:3])}"
            f"{', ...' if len(strays) > 3 else ''}); choose a new or empty folder with --out"
        )
    try:
        with folder_files.locked(folder):
            recorded = _prepare(folder, as_run, resume=resume, force=force)
            report = _Run(as_run, folder, count, progress, info or _quiet).play(recorded)
            if after is not None:
                after(folder, count)
            return report
    except folder_files.ResultsError as exc:
        raise TournamentError(str(exc)) from None
    except OSError as exc:  # a full disk, a folder that cannot be written
        raise TournamentError(f"{folder}: {exc}") from None


def _quiet(_: str) -> None:
    pass


def _prepare(
    folder: Path, cfg: TournamentConfig, *, resume: bool, force: bool
) -> list[tuple[str, Placements]]:
    """Check the folder against the flags and the saved config; return the games on disk."""
    games_path, config_path = folder / folder_files.GAMES, folder / folder_files.CONFIG
    if force:
        folder_files.clear(folder)
    folder_files.remove_temporaries(folder)
    folder_files.repair_games(games_path)
    recorded = [(str(g["id"]), tuple(g["placements"])) for g in folder_files.iter_games(games_path)]
    if recorded and not resume:
        raise TournamentError(
            f"{folder} already holds {len(recorded)} games of a run; add --resume to play "
            "the rest, or --force to start over"
        )
    if recorded and not config_path.exists():
        raise TournamentError(
            f"cannot resume: {config_path} is missing, so the games cannot be checked "
            "against the configuration; start over with --force"
        )
    if resume and config_path.exists():
        _check_unchanged(config_path, cfg)
    else:
        folder_files.clear(folder)  # nothing worth keeping: no stale replays or tables
        folder_files.write_atomic(config_path, dump_config(cfg))
    if cfg.replays:
        (folder / folder_files.REPLAYS).mkdir(exist_ok=True)
    return recorded


def _check_unchanged(config_path: Path, cfg: TournamentConfig) -> None:
    try:
        saved = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise TournamentError(
            f"{config_path}: cannot read the saved configuration: {exc}"
        ) from None
    infos = rule_infos(default_registry())
    defaults = added_defaults(infos[cfg.rules]) if cfg.rules in infos else {}
    changes = config_differences(saved or {}, config_as_run(cfg), ignore=RESUME_IGNORES,
                                 defaults=defaults)
    if changes:
        raise TournamentError(
            f"the configuration changed since {config_path.parent} was started: "
            + "; ".join(changes)
            + " (resume with the original configuration, or --force to start over)"
        )


class _Run:
    """One run over a locked folder: plays the missing games, then writes derived files."""

    def __init__(
        self,
        cfg: TournamentConfig,
        folder: Path,
        workers: int,
        progress: bool,
        info: Callable[[str], None],
    ) -> None:
        self.cfg, self.folder, self.workers = cfg, folder, workers
        self.plan = Plan(cfg)
        self.total = self.plan.total()
        self.progress, self.info = progress, info
        self.results: dict[str, Placements] = {}
        self.executor: Executor | None = None
        self.lost = LostGames(info)
        replays = str((folder / folder_files.REPLAYS).resolve()) if cfg.replays else None
        self.setup = GameSetup(cfg.name, cfg.rules, cfg.options, cfg.limits, cfg.entrants, replays)

    def play(self, recorded: list[tuple[str, Placements]]) -> RunReport:
        missing = self.total - len(recorded)
        resumed = f", {len(recorded)} already played" if recorded else ""
        self.info(
            f"{self.cfg.name}: {self.total} games{resumed}; playing {missing} on "
            f"{self.workers} worker{'s' * (self.workers != 1)} into {self.folder}"
        )
        bar = _progress_bar(self.total, len(recorded), self.cfg.name, enabled=self.progress)
        log = folder_files.GameLog(self.folder / folder_files.GAMES)
        aborted = True
        try:
            with _stop_on_sigterm():
                self._play_batches(recorded, log, bar)
            aborted = False
        except KeyboardInterrupt:
            raise Interrupted(len(self.results), self.total, self.folder) from None
        finally:
            bar.close()
            if self.executor is not None:
                self.executor.close(abort=aborted)
            log.close()
        return self._finish(len(recorded))

    def _play_batches(
        self, recorded: list[tuple[str, Placements]], log: folder_files.GameLog, bar: Any
    ) -> None:
        cursor = 0
        while batch := self.plan.batch(self.results):
            todo: list[GameSpec] = []
            for game in batch:
                if game.id in self.results:
                    continue
                if cursor < len(recorded):
                    self._take_recorded(recorded[cursor], game, cursor)
                    cursor += 1
                else:
                    todo.append(game)
            for played in self._executor().map(todo) if todo else ():
                log.append((played.line,))
                self.results[played.id] = played.placements
                bar.update(1)
        if cursor < len(recorded):
            raise TournamentError(
                f"{self.folder / folder_files.GAMES} has {len(recorded) - cursor} games more "
                "than this tournament's schedule; start over with --force"
            )

    def _take_recorded(self, item: tuple[str, Placements], game: GameSpec, line: int) -> None:
        game_id, placements = item
        if game_id != game.id:
            raise TournamentError(
                f"{self.folder / folder_files.GAMES}:{line + 1}: game {game_id!r} where the "
                f"schedule has {game.id!r}; these results are not this tournament's "
                "(start over with --force)"
            )
        self.results[game_id] = placements

    def _executor(self) -> Executor:
        if self.executor is None:
            self.executor = Executor(game_job(self.setup), self.workers, lost=self.lost)
        return self.executor

    def _finish(self, resumed: int) -> RunReport:
        derived = write_derived(self.folder, self.cfg, self.plan, self.results)
        ranking = None
        if self.plan.elimination:
            ranking = tuple(self.plan.stages(self.results)["ranking"] or ())
        played = len(self.results) - resumed
        warnings = (*self.lost.deaths, *derived.warnings)
        return RunReport(
            self.folder, self.total, played, resumed, derived.standings, ranking, warnings
        )


@dataclass(frozen=True, slots=True)
class Derived:
    """What the derived files tell the user at the end of a run."""

    standings: str
    """standings.md: the standings as a Markdown table."""
    warnings: tuple[str, ...]
    """One line for each entrant that faulted in every game it played."""


def write_derived(
    folder: Path, cfg: TournamentConfig, plan: Plan, results: Mapping[str, Placements]
) -> Derived:
    """Write ratings.json, standings.csv/.md, crosstable.csv and stages.json from one pass
    over games.jsonl, each atomically; return the standings as Markdown, and warnings.

    Memory does not grow with the games: the log is read one game at a time (a second time
    only if it is not in id order, as an elimination's is, see arena/ratings/standings.py), and
    stages.json, which lists every game, is encoded and written in parts."""
    games = folder_files.GameFile(folder / folder_files.GAMES)
    summary = summarise(games, [e.name for e in cfg.entrants])
    bracket = plan.stages(results) if plan.elimination else None
    ranking = bracket["ranking"] if bracket else None  # an elimination ranks by its bracket
    rows = summary.standings(ranking)
    derived = {
        "ratings.json": ratings_json(summary.openskill(), summary.elo()),
        "standings.csv": standings_csv(rows),
        "standings.md": standings_md(rows, bracket=ranking is not None),
        "crosstable.csv": crosstable_csv(summary.crosstable()),
    }
    for name, text in derived.items():
        folder_files.write_atomic(folder / name, text)
    ranked = [row.entrant for row in rows if row.rank is not None]
    document = bracket or plan.stages(results, ranked)
    stages = itertools.chain(_json_parts(document), ["\n"])
    folder_files.write_atomic(folder / "stages.json", stages)
    warnings = tuple(
        f"entrant {name!r} faulted in "
        f"{'the one game' if games == 1 else f'all {games} games'} it played; "
        f"commonest fault: {fault}"
        for name, games, fault in summary.always_faulted()
    )
    return Derived(derived["standings.md"], warnings)


def _progress_bar(total: int, done: int, name: str, *, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=done,
        desc=name,
        unit="game",
        disable=not enabled,
        file=sys.stderr,
        dynamic_ncols=True,
        smoothing=0.05,
    )


@contextlib.contextmanager
def _stop_on_sigterm() -> Iterator[None]:
    """Treat SIGTERM like Ctrl-C while games are played, so both stop cleanly."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
