"""A ladder season's runner: `--games N` more games into the same results folder, whose
entrants may change between runs (issue 17).

It guarantees that games.jsonl only grows (nothing played is replayed or dropped), that a
bot is frozen per version (each accepted version's file or folder is copied into
`versions/<player>/` and that copy is what plays), and that the same config, seed and log
give the same tables. ladder-log.jsonl is the append-only log of versions; ladder.json is
derived from it and games.jsonl after every run (and at every live refresh). A season's
run is the plan (`Season`) of the one runner (arena/tournament/run/runner.py's `Run`: its
lock, seed, executor on this machine's workers or a Dask cluster, log, progress and abort),
which deals the batches matchmaking chooses; here are only what a season adds: its folder
made ready by its format's prepare step (`prepare_season`: its versions changed, then
validated first by the run), its batches logged before they are played, its final frozen,
and its ladder.json. It must not read a clock or the global random generator to decide a
game.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.executor.local import Executor
from arena.seeds import derive_seed
from arena.tournament.config import EntrantConfig, TournamentConfig
from arena.tournament.config.as_run import dump_config
from arena.tournament.errors import TournamentError
from arena.tournament.formats.base import Asked, Ready
from arena.tournament.formats.ladder.kept import Ledger
from arena.tournament.formats.ladder.log import (
    BATCHES,
    FINAL,
    HISTORY,
    frozen_final,
    history_line,
    ladder_json,
    last_batch,
    read_final,
    read_log,
    standing,
)
from arena.tournament.formats.ladder.matchmaking import Settings, field_of, next_tables
from arena.tournament.formats.ladder.validation import (
    cannot_start,
    house,
    validation_specs,
    verdict,
)
from arena.tournament.formats.ladder.versions import (
    Candidate,
    accepted,
    append,
    changes,
    player_entrants,
)
from arena.tournament.formats.plan import Placements, Plan
from arena.tournament.formats.registry import format_of
from arena.tournament.formats.schedule import GameSpec, seatings
from arena.tournament.run import folder_lock
from arena.tournament.run import results as folder_files
from arena.tournament.run.prepare import run_seed
from arena.tournament.run.progress import Refresher, Tally, Watch
from arena.tournament.run.runner import Run
from arena.tournament.run.shipment import folder_refusal
from arena.tournament.run.worker import Played

if TYPE_CHECKING:
    from arena.executor.cluster import Cluster

__all__ = ["LadderRun", "Season", "prepare_season", "run_ladder"]


@dataclass(frozen=True, slots=True)
class LadderRun:
    """What a run of the ladder left: ladder.json, and with `--until-confident K` whether
    the top K are separated, the pairs still unresolved and the players still provisional."""

    ladder: dict[str, Any]
    separated: bool | None = None
    unresolved: tuple[dict[str, Any], ...] = ()
    provisional: tuple[str, ...] = ()
    log: tuple[dict[str, Any], ...] = ()
    """ladder-log.jsonl's events after the run; those from `since` on are this run's."""
    since: int = 0


def run_ladder(cfg: TournamentConfig, out: str | Path, games: int, *, workers: int = 1,
               info: Callable[[str], None] | None = None, until: int | None = None,
               final: int | None = None, progress: Watch | None = None,
               cluster: Cluster | None = None,
               during: Callable[[Path, Tally], object] | None = None,
               refresh: float | None = None, retry: Sequence[str] = ()) -> LadderRun:
    """Play `games` more ladder games into `out` (whole tables at every rotation, the last
    batch cut at the budget; with `until`, stop once the top `until` are separated), or
    with `final` play the frozen final of the top `final`; first finish a batch a kill cut.
    `progress`, `during` and `refresh` (seconds) as for run/runner.py's run_tournament, the
    tally over the season's games.jsonl; with `cluster`, every game (and a new version's dry run)
    is played on that Dask cluster, the same bytes written here. `retry`: digests of
    rejected content to try again (an organiser's re-run); games the folder's voided list
    names are left out of the ranking (log.counted). The games are played by the one runner
    (arena.tournament.run.runner.Run), this season its plan."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    say = info or _quiet
    asked = Asked(games=games, until=until, final=final, retry=tuple(retry), cluster=cluster)
    with folder_lock.locked(folder):
        since = len(read_log(folder))
        ready = format_of(cfg).prepare(folder, cfg, asked)
        season = ready.plan
        if not isinstance(season, Season):
            raise TournamentError(f"{cfg.name}: a {cfg.format.type} is not a ladder's "
                                  "season; play it with arena run")
        if season.ledger.note:
            say(f"note: {season.ledger.note}")
        run = Run(ready.cfg, folder, workers, progress, say, cluster=cluster, plan=season)
        ledger = season.ledger  # the progress of the games before: the kept tally's
        run.tally.done, run.tally.faults = ledger.state.logged, ledger.faults
        run.tally.wins.update(ledger.wins)
        if during is not None and refresh is not None:
            run.refresher = Refresher(during, refresh, say)
        run.loop(ready.recorded, before=ready.before)
        return replace(season.outcome(until), log=tuple(read_log(folder)), since=since)


def prepare_season(folder: Path, cfg: TournamentConfig, asked: Asked) -> Ready:
    """The ladder's prepare step: the locked folder repaired and its seed and config as run
    saved, its versions changed by the submissions (each new one started, then validated
    by the run before its batches) or its final frozen, and the season as the run's plan."""
    folder_files.remove_temporaries(folder)
    folder_files.repair_games(folder / folder_files.GAMES)
    if asked.cluster is not None:
        _refuse_folders(folder, cfg)
    seed, _ = run_seed(folder, cfg)
    folder_files.write_atomic(folder / folder_files.CONFIG,
                              dump_config(replace(cfg, seed=None), folder))
    ledger = Ledger.read(folder)
    played = ledger.state.logged
    frozen = frozen_final(folder, asked.final)
    candidates: list[Candidate] = []
    if frozen is None and asked.final is None:
        moved, candidates = changes(folder, cfg, played, asked.retry)
        append(folder, moved)
        candidates = _started(folder, cfg, candidates, played, asked.cluster)
    entrants = {**player_entrants(folder, cfg, read_log(folder)),
                **{c.player: _playing(folder, c) for c in candidates},
                **{h.name: h for h in house(cfg.format.seats)}}
    playing = replace(cfg, seed=seed, entrants=tuple(entrants.values()))
    if cfg.replays:
        folder_files.own(folder / folder_files.REPLAYS, folder=True, make=True)
    season = Season(folder, playing, ledger, asked.games, asked.until, (asked.final, frozen))
    return Ready(playing, plan=season,  # no past: a season deals only games after its log's
                 before=lambda executor: season.validate(executor, candidates))


def _quiet(_: str) -> None:
    pass


def _refuse_folders(folder: Path, cfg: TournamentConfig) -> None:
    """Stop before any write, in one line, when a bot folder would play on a cluster (arena
    ships bot files, not folders): a folder entrant or submission, or an active version."""
    events = read_log(folder)
    versions = player_entrants(folder, cfg, events)
    refusal = folder_refusal([*cfg.entrants, *(versions[p] for p in _active(events)
                                               if p in versions)])
    if refusal is not None:
        raise TournamentError(refusal)


def _active(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """The players whose latest event is active, by name."""
    last = {str(e["player"]): e for e in events}
    return sorted(p for p, e in last.items() if e["status"] == "active")


def _playing(folder: Path, candidate: Candidate) -> EntrantConfig:
    """A candidate as it plays: its frozen copy under its player's name."""
    bot = str(folder / candidate.copy) if candidate.copy else candidate.entrant.bot
    return replace(candidate.entrant, name=candidate.player, bot=bot)


def _started(folder: Path, cfg: TournamentConfig, candidates: Sequence[Candidate],
             played: int, cluster: Cluster | None = None) -> list[Candidate]:
    """The candidates that start as the contest starts them (on a cluster, on one of its
    workers: strangers' code never runs here); the others are logged as rejected, with the
    one line that says why."""
    playing = [_playing(folder, c) for c in candidates]
    if cluster is not None and playing:
        from arena.tournament.run.trial_remote import start_on_cluster

        reasons = start_on_cluster(cluster, cfg, playing)
    else:
        reasons = tuple(cannot_start(cfg, entrant) for entrant in playing)
    kept = []
    for candidate, reason in zip(candidates, reasons, strict=True):
        if reason is None:
            kept.append(candidate)
        else:
            append(folder, [candidate.event("rejected", reason, played)])
    return kept


_VALIDATION_KEYS = ("id", "entrants", "placements", "faults", "replay")
"""What ladder-log.jsonl keeps of each validation game (`replay` only when there is one)."""


class Season(Plan):
    """One run of a season as its runner's plan: a batch a kill cut finished first, then
    batches of tables matchmaking chooses among the active versions until the budget (or
    the confidence), or the frozen final; `validate` plays new versions' validation games
    before any of them."""

    season = True

    def __init__(self, folder: Path, cfg: TournamentConfig, ledger: Ledger, budget: int,
                 until: int | None, final: tuple[int | None, dict[str, Any] | None]) -> None:
        super().__init__(cfg)
        self.folder, self.until = folder, until
        self.ledger, self.state = ledger, ledger.state
        """The season's running totals, fed each game as it is kept: no batch, and neither
        the run's start nor its end, reads the log (kept.py)."""
        self.order = list(self.names)
        self.seed = cfg.planned_seed
        self.pending: tuple[GameSpec, ...] = ()
        """The batch dealt last, dealt again until every game of it is played."""
        size, frozen = final
        self.goal = self.state.logged + budget
        self.steps = self._final(size, frozen) if size is not None else self._season()

    def total(self) -> int:
        return self.goal

    def batch(self, results: Mapping[str, Placements]) -> tuple[GameSpec, ...]:
        if any(g.id not in results for g in self.pending):
            return self.pending
        self.pending = next(self.steps, ())
        return self.pending

    def stages(self, results: Mapping[str, Placements],
               ranking: Sequence[str] | None = None) -> dict[str, Any]:
        return ladder_json(self.cfg, read_log(self.folder), self.state, read_final(self.folder))

    def keep(self, line: str) -> None:
        self.ledger.add(line)

    def derive(self, folder: Path) -> bool:
        self.ledger.derive(folder, self.cfg)
        return True

    def _season(self) -> Iterator[tuple[GameSpec, ...]]:
        """Finish a batch a kill cut, then batches until the budget (or the confidence)."""
        rest = self._cut()
        if rest:
            yield rest
        while self.state.logged < self.goal and not (self.until and self.separated(self.until)[0]):
            batch = self._batch()
            if not batch:
                return
            yield batch

    def _final(self, size: int, frozen: dict[str, Any] | None) -> Iterator[tuple[GameSpec, ...]]:
        """Freeze the top `size` (once) and play the rest of their round robin."""
        if frozen is None:
            frozen = self._freeze(size)
        tables, deals = frozen["tables"], int(frozen["deals"])
        specs: list[GameSpec] = []
        for number, seating in enumerate(tables, 1):
            for deal in range(1, deals + 1):
                group = f"fn-t{number}-d{deal}"
                seed = derive_seed(self.seed, group)
                for seated in seatings([self.order.index(p) for p in seating]):
                    specs.append(GameSpec(f"fn-{len(specs) + 1:06d}", "final", number, seated,
                                          seed, group))
        done = self.state.final_logged
        self.goal = self.state.logged + len(specs) - done
        return iter([tuple(specs[done:])] if specs[done:] else [])

    def validate(self, executor: Executor, candidates: Sequence[Candidate]) -> None:
        """Each candidate's validation deal; accepted or rejected in the log by its faults."""
        others = [self.order.index(h.name) for h in house(self.cfg.format.seats)]
        specs = {c.player: validation_specs(self.seed, c.player, self.order.index(c.player),
                                            others) for c in candidates}  # fmt: skip
        lines = [self._validated(done) for done in
                 executor.map([s for group in specs.values() for s in group])]
        count = self.state.logged
        for candidate in candidates:
            mine = [g for g in lines if g["id"].startswith(f"vd-{candidate.player}-")]
            games = [{k: g[k] for k in _VALIDATION_KEYS if k != "replay" or g[k]}
                     for g in mine]  # fmt: skip
            reason = verdict(candidate.player, mine)
            append(self.folder, [candidate.event("rejected", reason, count, validation=games)]
                   if reason else accepted(candidate, self.folder, count, validation=games))

    def _validated(self, done: Played) -> dict[str, Any]:
        """A validation game's line; its replay kept (when replays are on) before the log's
        line names it, so its author can see why the version was rejected."""
        replay = done.replay_file() if self.cfg.replays else None
        if replay is not None:
            folder_files.write_replaced(f"{self.folder}/{replay[0]}", replay[1])
        line: dict[str, Any] = json.loads(done.line)
        return line

    def active(self) -> list[str]:
        """The players matchmaking may seat: each entrant's active version."""
        return _active(read_log(self.folder))

    def separated(self, top: int) -> tuple[bool, list[dict[str, Any]], list[str]]:
        """Whether the top `top` are told apart at 95% and nobody is provisional."""
        ranking, unresolved = standing(self.cfg, read_log(self.folder), self.state, top)
        waiting = [r["player"] for r in ranking if r["provisional"]]
        return not unresolved and not waiting, unresolved, waiting

    def _specs(self, tables: Sequence[Sequence[str]], first: int, start: int) -> list[GameSpec]:
        """Each table's one deal at every cyclic rotation, ids counted from `start`."""
        specs: list[GameSpec] = []
        for number, seating in enumerate(tables, first):
            deal = derive_seed(self.seed, f"ld-t{number}")
            for seated in seatings([self.order.index(p) for p in seating]):
                specs.append(GameSpec(f"ld-{start + len(specs) + 1:08d}", "ladder", number,
                                      seated, deal, f"ld-t{number}"))
        return specs

    def _cut(self) -> tuple[GameSpec, ...]:
        """The rest of the last batch, when a kill cut it: its tables, seeds and ids."""
        last = last_batch(self.folder)
        if last is None or "tables" not in last:
            return ()
        logged = self.state.logged
        done = logged - int(last["after"])
        specs = self._specs(last["tables"], int(last["first"]), int(last["after"]))
        return tuple(specs[done: int(last["games"])][: max(0, self.goal - logged)])

    def _batch(self) -> tuple[GameSpec, ...]:
        """Choose one batch of tables, cut at the goal, and log it; () if none is left."""
        fmt, active = self.cfg.format, self.active()
        if len(active) < fmt.seats:
            return ()
        settings = Settings(fmt.seats, fmt.batch or 8, fmt.min_games or 0, fmt.band or 4)
        state = self.state
        batch, first = state.batches + 1, 1 + state.table
        field_ = field_of(state.ratings(), state.faulted, state.meetings(active), active,
                          state.last, batch)
        tables = [list(t) for t in next_tables(field_, settings, self.seed)]
        logged = self.state.logged
        specs = self._specs(tables, first, logged)[: self.goal - logged]
        if not specs:
            return ()
        rated = history_line(state, batch, active)  # first: a kill after it plans it again
        with folder_files.GameLog(self.folder / HISTORY) as history:
            history.append([rated])
        line = {"batch": batch, "after": logged, "first": first, "tables": tables,
                "games": len(specs)}
        text = json.dumps(line, sort_keys=True) + "\n"
        with open(self.folder / BATCHES, "a", encoding="utf-8") as handle:
            handle.write(text)
        self.ledger.begun(text)
        state.begin(logged, json.loads(rated))
        return tuple(specs)

    def _freeze(self, size: int) -> dict[str, Any]:
        """The final's top, tables and planned games, written before any of its games."""
        seats = self.cfg.format.seats
        if size < seats:
            raise TournamentError(f"--final {size}: a final needs at least {seats} players, "
                                  f"one a seat")
        ranking, _ = standing(self.cfg, read_log(self.folder), self.state, size)
        top = [r["player"] for r in ranking if not r["provisional"]][:size]
        if len(top) < size:
            raise TournamentError(f"--final {size}: {len(top)} of its {size} players are "
                                  f"ranked (a player is after {self.cfg.format.min_games} "
                                  "games); play more games first")
        tables = [list(t) for t in combinations(top, seats)]
        deals = self.cfg.format.final_games or 1
        frozen = {"top": top, "after": self.state.logged, "tables": tables, "deals": deals,
                  "games": len(tables) * deals * seats}
        folder_files.write_atomic(self.folder / FINAL,
                                  json.dumps(frozen, sort_keys=True, indent=1) + "\n")
        return frozen

    def outcome(self, until: int | None) -> LadderRun:
        """ladder.json and the derived tables written; the confidence when asked."""
        value = self.ledger.derive(self.folder, self.cfg)
        if until is None:
            return LadderRun(value)
        done, unresolved, waiting = self.separated(until)
        return LadderRun(value, done, tuple(unresolved), tuple(waiting))
