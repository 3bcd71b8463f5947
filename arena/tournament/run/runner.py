"""Runs a tournament: validated config -> plan -> worker pool -> results folder.

The flow: `load_tournament` (arena/tournament/load.py) checks the YAML against the installed
rule sets and bots; the plan (plan.py) turns the config into games, batch by batch (an
elimination's next stage depends on the results before it); `run_tournament` plays the games
that are not yet in games.jsonl on a pool of worker processes (worker.py), appends each
result in schedule order (its replay, sent back with it, written just before its line: a
line never names a missing replay, and a replay without its line is played again on
resume), and finally derives ratings, standings, the crosstable and
stages.json from the log (derived.py).

Reproducibility: every game's seed comes from the tournament seed and the game id (the
schedule does it; a config without a seed gets a secret one, drawn once and saved in the
folder's `secret`, mode 0600, which `--resume` reads back), every bot is built fresh for
each game, and results are written in schedule order whatever order the workers finish
in, so 1 or 16 workers write the same bytes. Wall-clock times stay out of games.jsonl and
the derived files (replays keep the seconds per decision; see docs/replay-format.md).

Workers: the one executor (arena/executor/local.py): worker processes forked from a server
that imported arena once, inheriting no threads, locks or open files of the main process
(the folder lock stays with the main process alone, so a `kill -9` of the main process
frees the folder at once; the workers notice and exit). Results come back in schedule
order; a finished game waiting behind an unfinished earlier one is not yet written, and
is played again on resume if the run stops there. A field larger than a worker's kept bot
processes is played in bundles that keep them (arena/tournament/run/hot.py): out of
schedule order, a window of games at a time, each line waiting here for the games before
it. With one worker the games are played in the main process: no processes to start, same
bytes. A worker that dies costs no game
(arena/tournament/run/worker.py says what happens to its games).

Progress (arena/tournament/run/progress.py): `progress` is told a Tally before the first game and
after each; every `refresh` seconds the derived files are written from the games so far and
`during` is called (the live report). The end rewrites them all: the same bytes either way.

This module never knows a rule of the game (the rules and the referee do), never builds the
report (`arena run` passes `after` and `during` to do it), and never prints: the CLI layer
(arena/cli/run.py) talks to the user.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from arena import entrants
from arena.botcard import BotCard
from arena.executor.cluster import Cluster
from arena.executor.local import Executor, cores
from arena.hosts.strain import Strain
from arena.kept import kept_that_fit
from arena.tournament.config import EntrantConfig, TournamentConfig
from arena.tournament.errors import TournamentError
from arena.tournament.formats.base import Asked
from arena.tournament.formats.plan import Placements, Plan
from arena.tournament.formats.registry import format_of, plan_for
from arena.tournament.formats.schedule import GameSpec
from arena.tournament.run import folder_lock, hot, strained
from arena.tournament.run import results as folder_files
from arena.tournament.run.audit import Written, WrittenGames, audit_log, written
from arena.tournament.run.derived import Totals, write_derived
from arena.tournament.run.notes import GameNotes
from arena.tournament.run.prepare import run_seed
from arena.tournament.run.progress import Refresher, Tally, Watch
from arena.tournament.run.recall import played_again
from arena.tournament.run.shipment import pack
from arena.tournament.run.signals import sigterm_as_ctrl_c
from arena.tournament.run.skipped import LeftOut, results_folder
from arena.tournament.run.trust import GameJudge
from arena.tournament.run.worker import GameSetup, LostGames, Played, game_job

__all__ = ["Interrupted", "Run", "RunReport", "run_tournament", "tournament_setup"]


class Interrupted(TournamentError):
    """The run was stopped (Ctrl-C, SIGTERM); finished games are kept for `--resume`."""

    def __init__(self, done: int, total: int, folder: Path) -> None:
        super().__init__(f"interrupted: {done} of {total} games are saved in {folder}")
        self.done, self.total, self.folder = done, total, folder


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
    grades: tuple[str, ...] = ()
    """A config with grades: the grade each graded entrant reached, one sentence each."""


def run_tournament(
    cfg: TournamentConfig,
    out: str | os.PathLike[str] | None = None,
    *,
    workers: int | None = None,
    resume: bool = False,
    force: bool = False,
    progress: Watch | None = None,
    info: Callable[[str], None] | None = None,
    after: Callable[[Path, int], object] | None = None,
    cards: tuple[BotCard | None, ...] = (),
    cluster: Cluster | None = None,
    during: Callable[[Path, Tally], object] | None = None,
    refresh: float | None = None,
    left_out: tuple[LeftOut, ...] = (),
    notes: GameNotes | None = None,
) -> RunReport:
    """Play a whole tournament into its results folder; with `resume`, only what is missing.

    `after`, if given, is called with the folder and the worker count once the derived
    files are written, still holding the folder's lock: `arena run` builds the report there.

    Raises TournamentError (FolderLocked, changed config, games already there) before any
    game starts, and Interrupted on Ctrl-C or SIGTERM with every finished game kept.
    `cards`, by entrant, are what their dry runs said (arena.trial), passed to the workers.
    With `cluster`, the games are played on that Dask cluster (arena/executor/cluster.py),
    the same bytes written here; losing it raises ClusterLost with every game taken kept.
    `progress`, `during` and `refresh` (seconds): see the module's docstring. `left_out`:
    the entrants `cfg` is without (arena/tournament/run/skipped.py), recorded at the start.
    `notes`: made of each replay in the worker, kept as it is appended (arena.tournament.run.notes).
    """
    folder = results_folder(cfg, out)
    count = workers or cfg.workers or cores()
    as_run = replace(cfg, output=str(folder), workers=workers or cfg.workers)
    strays = folder_files.foreign(folder)
    if strays:
        raise TournamentError(
            f"{folder} holds files that are not arena results ({', '.join(strays[:3])}"
            f"{', ...' if len(strays) > 3 else ''}); choose a new or empty folder with --out"
        )
    try:
        with folder_lock.locked(folder):
            asked = Asked(resume=resume, force=force, left_out=left_out, cluster=cluster)
            ready = format_of(as_run).prepare(folder, as_run, asked)
            info = info or (lambda _: None)
            run = Run(ready.cfg, folder, count, progress, info, cards, cluster,
                      ready.plan, notes if cfg.replays else None)
            run.results.update(ready.past)
            if during is not None and refresh is not None:
                run.refresher = Refresher(during, refresh, info)
            report = run.play(ready.recorded, before=ready.before)
            if after is not None:
                after(folder, count)
            return report
    except folder_files.ResultsError as exc:
        raise TournamentError(str(exc)) from None
    except OSError as exc:  # a full disk, a folder that cannot be written
        raise TournamentError(f"{folder}: {exc}") from None


_PLACED: dict[Placements, Placements] = {}  # a game's placements are one of a few orders


def tournament_setup(cfg: TournamentConfig, cards: tuple[BotCard | None, ...] = ()) -> GameSetup:
    """What every worker gets to play the tournament's games, on this machine or another."""
    return GameSetup(cfg.name, cfg.rules, cfg.options, cfg.limits, cfg.entrants, cfg.replays,
                     cards, pack(cfg.entrants))


class Run:
    """One run over a locked folder: plays the missing games batch by batch as its plan (its
    format's) deals them, then writes derived files. The one loop of every format: a
    ladder season's runs too (arena/tournament/formats/ladder/season.py)."""

    def __init__(
        self,
        cfg: TournamentConfig,
        folder: Path,
        workers: int,
        progress: Watch | None,
        info: Callable[[str], None],
        cards: tuple[BotCard | None, ...] = (),
        cluster: Cluster | None = None,
        plan: Plan | None = None,
        notes: GameNotes | None = None,
    ) -> None:
        seed, drawn = run_seed(folder, cfg)  # before any game is planned
        if drawn:
            info(f"seed: {seed} (secret: saved in {folder / folder_files.SECRET}, mode 0600)")
        cfg = replace(cfg, seed=seed)
        self.cfg, self.folder, self.workers = cfg, folder, workers
        self.plan = plan or plan_for(cfg)
        self.total = self.plan.total()
        self.progress, self.info = progress, info
        self.tally = Tally(self.total)
        self.refresher: Refresher | None = None
        self.totals: Totals | None = None  # fed as games are appended: see play()
        self.results: dict[str, Placements] = {}  # placements kept once: _PLACED
        self.written = WrittenGames()
        self.executor: Executor | None = None
        self.cluster, self.lost = cluster, LostGames(info)
        self.kept = 0 if cluster else kept_that_fit(workers)  # each worker's, sent
        self.setup = replace(tournament_setup(cfg, cards), kept=self.kept)
        self.notes = notes if cluster is None else None  # a cluster's games are judged
        if self.notes is not None:  # here from their replays alone: no worker's notes kept
            self.setup = replace(self.setup, notes=self.notes.make)
        self.strain: Strain | None = None  # what the machine cost this run's decisions
        self.hot: int | None = None  # a worker's kept processes in bundles, 0 when not
        self.images = 1  # the images (a kept process each) an entrant is shown in a bundle

    def play(self, recorded: list[tuple[str, Placements]],
             before: Callable[[Executor], object] | None = None) -> RunReport:
        """Play the games not in `recorded` (the folder's, to match the schedule), then write
        the derived files and say how it ended."""
        missing = self.total - len(recorded)
        resumed = f", {len(recorded)} already played" if recorded else ""
        where = (f"the cluster at {self.cluster.address}" if self.cluster is not None
                 else f"{self.workers} worker{'s' * (self.workers != 1)}")
        self.info(f"{self.cfg.name}: {self.total} games{resumed}; playing {missing} on {where} "
                  f"into {self.folder}")
        self.totals = None if recorded or self.results else Totals(self.cfg)  # fed as played
        self.loop(recorded, before)
        return self._finish(len(recorded))

    def loop(self, recorded: list[tuple[str, Placements]],
             before: Callable[[Executor], object] | None = None) -> None:
        """Play batch by batch until the plan deals no more (first `before`, given the
        executor: a season's validation games); raise Interrupted on Ctrl-C or SIGTERM, with
        every finished game kept and the executor stopped."""
        done = len(recorded) + len(self.results)  # a season's past is in its results
        if self.progress is not None or self.refresher is not None:
            self.tally.count_log(folder_files.iter_games(self.folder / folder_files.GAMES),
                                 done)
        if self.progress is not None:
            self.progress(self.tally)
        self.log = folder_files.GameLog(self.folder / folder_files.GAMES)
        aborted = True
        try:
            with sigterm_as_ctrl_c():
                if before is not None:
                    before(self._executor())
                self._play_batches(recorded)
            aborted = False
        except KeyboardInterrupt:
            pass  # told below, once the log is closed
        finally:
            if self.executor is not None:
                self.executor.close(abort=aborted)
            self.log.close()
            if self.notes is not None:
                self.notes.close()
        if aborted:  # the games the file holds: Ctrl-C may land after a line, before its count
            saved = folder_files.count_lines(self.folder / folder_files.GAMES)
            raise Interrupted(saved, self.total, self.folder)

    def _play_batches(self, recorded: list[tuple[str, Placements]]) -> None:
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
            for played, digests in self._played(todo):
                self.log.append_game(played.line, played.replay_file())  # the replay first
                if self.notes is not None and played.replay and played.notes is not None:
                    self.notes.keep(played.id, played.replay, played.notes)
                self.results[played.id] = _PLACED.setdefault(played.placements, played.placements)
                self.written[played.id] = digests
                self.plan.keep(played.line)
                if played.strain is not None:
                    self.strain = played.strain + self.strain if self.strain else played.strain
                self._told(played.line)
            if todo and played_again(self._executor(), self.folder, {g.id for g in batch},
                                     self.results, self.written, self.cfg.replays):
                self.totals = None  # games rewritten: the end's pass counts them again
                self.log.close()  # games.jsonl was replaced: append to the new one
                self.log = folder_files.GameLog(self.folder / folder_files.GAMES)
            self.log.sync()  # the next batch may be chosen from these games
        if cursor < len(recorded):
            raise TournamentError(
                f"{self.folder / folder_files.GAMES} has {len(recorded) - cursor} games more "
                "than this tournament's schedule; start over with --force"
            )

    def _played(self, todo: list[GameSpec]) -> Iterator[tuple[Played, Written]]:
        """The games played, in schedule order, with what the audit compares. Kept hot
        (arena/tournament/run/hot.py) when the field outgrows a worker's kept processes:
        played in bundles, window by window, their lines waiting here for the earlier games'."""
        cap = self._hot_cap(todo) if todo else None
        if cap is None:
            for played in self._executor().map(todo) if todo else ():
                played = played if self.cfg.replays else replace(played, replay=None)
                yield played, written(played.line, played.replay)
            return
        for window in hot.windows(todo):
            waiting: dict[str, tuple[Played, Written]] = {}
            order = iter(window)
            following: GameSpec | None = next(order)
            for bundle in self._executor().map(hot.bundles(window, cap, self.images)):
                for played in bundle:
                    waiting[played.id] = self._arrived(played)
                while following is not None and following.id in waiting:
                    yield waiting.pop(following.id)
                    following = next(order, None)

    def _arrived(self, played: Played) -> tuple[Played, Written]:
        """A game played ahead of its turn: its replay written now (one without its line is
        played again on resume), its line kept until the games before it are written."""
        replay = played.replay_file() if self.cfg.replays else None
        digests = written(played.line, replay[1] if replay else None)
        if replay is not None:
            folder_files.write_replaced(f"{self.folder}/{replay[0]}", replay[1])
        return replace(played, replay=None), digests

    def _hot_cap(self, todo: list[GameSpec]) -> int | None:
        """A worker's kept processes, when every bot runs in its own process on this machine and
        the field is played in bundles (hot.wanted); None: the games are in schedule order."""
        if self.hot is None:
            seats = max(len(game.seats) for game in todo)
            wanted = self.cluster is None and \
                hot.wanted(len(self.cfg.entrants), seats, self.kept, self.workers)
            self.hot = self.kept if wanted and not any(map(self._inline, self.cfg.entrants)) else 0
            self.images = seats if self.hot and any(map(self._sandboxed, self.cfg.entrants)) else 1
        return max(self.hot, *(len(game.seats) for game in todo)) if self.hot else None

    def _sandboxed(self, entrant: EntrantConfig) -> bool:
        """Whether its kept processes are one per image it is shown (arena/kept.py)."""
        try:
            return entrants.resolve(entrant.reference).sandboxed
        except entrants.EntrantError:
            return False

    def _inline(self, entrant: EntrantConfig) -> bool:
        try:
            return entrants.resolve(entrant.reference).mode == "inline"
        except entrants.EntrantError:
            return True  # not to be kept hot: the worker says what is wrong with it

    def _take_recorded(self, item: tuple[str, Placements], game: GameSpec, line: int) -> None:
        game_id, placements = item
        if game_id != game.id:
            raise TournamentError(
                f"{self.folder / folder_files.GAMES}:{line + 1}: game {game_id!r} where the "
                f"schedule has {game.id!r}; these results are not this tournament's "
                "(start over with --force)"
            )
        self.results[game_id] = placements

    def _told(self, line: str) -> None:
        """After each game: counted, shown, and the tables and report refreshed when due."""
        game = json.loads(line) if self.progress or self.refresher or self.totals else {}
        if self.totals is not None:
            self.totals(game)
        if self.progress is not None or self.refresher is not None:
            self.tally.add(game)
        if self.progress is not None:
            self.progress(self.tally)
        if self.refresher is not None and self.refresher.due():
            self.refresher.refresh(self.folder, self.tally, self.derive)

    def derive(self) -> None:
        """The derived files from the games so far: the format's own, else the usual ones."""
        if not self.plan.derive(self.folder):
            write_derived(self.folder, self.cfg, self.plan, self.results, self.totals)

    def _executor(self) -> Executor:
        if self.executor is None:  # a cluster's games come back with replays, to be checked
            setup = self.setup if self.cluster is None else replace(self.setup, replays=True)
            judge = GameJudge(setup, self.cfg.replays) if self.cluster is not None else None
            self.executor = Executor(game_job(setup), self.workers, lost=self.lost,
                                     cluster=self.cluster, told=self.info, judge=judge)
        return self.executor

    def _finish(self, resumed: int) -> RunReport:
        totals = self.totals or Totals(self.cfg)  # fed as played, else by the audit's pass
        problem = audit_log(self.folder, self.results, self.workers, self.cfg.replays,
                            self.written, None if totals is self.totals else totals)
        if problem is not None:
            folder_files.remove_derived(self.folder)
            raise TournamentError(f"{problem}; the results were changed outside this run, so "
                                  "no standings are written")
        derived = write_derived(self.folder, self.cfg, self.plan, self.results, totals)
        ranking = self.plan.final_ranking(self.results)
        played = len(self.results) - resumed
        loaded = strained.record(self.folder, self.strain)
        warnings = (*self.lost.deaths, *derived.warnings, *([loaded] if loaded else []))
        return RunReport(
            self.folder, self.total, played, resumed, derived.standings, ranking, warnings,
            derived.grades)


