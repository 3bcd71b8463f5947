"""One game of a tournament, played in a worker: the executor's job for a tournament.

`game_job(setup)` is what each worker process runs: bots resolved once per worker (a bot
that runs in its own process is never loaded here: its card comes in the setup), built
fresh for every game, their results sent back as `Played` (placements, the games.jsonl
line and the replay's bytes: the worker writes no file of the results, whose folder lives
only on the machine that runs the tournament). `LostGames` decides what happens to a game
whose worker died: played again, and after LIVES deaths recorded as a `crash` of the inline
seat whose bot call it died in (each inline bot call is marked in the worker's slot,
`_Watched`), or the run stops. A spec may also be a bundle (arena/tournament/run/hot.py):
games whose bots all run in their own processes, played one after another by one worker
that keeps their processes first; a death replays the whole bundle.

This module never schedules, never writes a file of the results (the run writes each
replay and games.jsonl line, in schedule order) and never prints; it knows no rule of the
game (the referee plays it).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from arena import entrants
from arena.bot import Limits
from arena.botcard import BotCard
from arena.executor.local import Death, Job
from arena.executor.serve import ExecutorError, lanes_wanted, mark, marked
from arena.hosts import strain
from arena.hosts.inline import BotFault, Host, RefereeFailure
from arena.hosts.machine import hosts_that_fit, kept_in_memory
from arena.hosts.strain import Strain
from arena.kept import KEPT_CAP, KeptHosts
from arena.plugins import Registry, default_registry
from arena.referee import GameRecord, Player, RefereeError, play_game
from arena.replay import fault_json, game_text, pack_text
from arena.tournament.config import EntrantConfig, Options
from arena.tournament.errors import TournamentError
from arena.tournament.formats.plan import Placements
from arena.tournament.formats.schedule import GameSpec
from arena.tournament.run import results as folder_files
from arena.tournament.run.hot import Bundle
from arena.tournament.run.shipment import NOTHING_SHIPPED, Shipment, located

__all__ = ["LIVES", "GameSetup", "LostGames", "Played", "game_job", "game_line", "replay_name"]


@dataclass(frozen=True, slots=True)
class GameSetup:
    """What a worker needs to play any game of the tournament; sent once per worker."""

    tournament: str
    rules: str
    options: Options
    limits: Limits
    entrants: tuple[EntrantConfig, ...]
    replays: bool
    """Whether each game's replay is sent back with its result."""
    cards: tuple[BotCard | None, ...] = ()
    """By entrant, what it said it is at its dry run (arena.trial), if it had one: a worker
    never loads a bot that runs in its own process."""
    shipment: Shipment = NOTHING_SHIPPED
    """The entrants' bot files, played from copies on the worker's machine."""
    kept: int = 0
    """Bot processes a worker keeps, as its run sized them for the machine and its workers
    (arena.entrants.kept_that_fit); 0: as the worker's own machine holds them."""
    lanes: int = 1
    """Games a worker process plays at once when no bot runs inline (`game_job` sets it)."""
    notes: Callable[[GameRecord, bytes], object] | None = None
    """Run on each game's record and replay's text as it ends, in the worker (the report's
    chances, given by the layer that shows them, arena/tournament/run/notes.py): never a walk
    at the end."""


@dataclass(frozen=True, slots=True)
class Played:
    """A finished game as the main process needs it: id, placements by seat, its log line,
    and its replay file's bytes (None when replays are off; a few KB of gzip)."""

    id: str
    placements: Placements
    line: str
    replay: bytes | None = None
    strain: Strain | None = None
    """What the machine cost its decisions, none of it billed (arena.hosts.strain): None
    unless it made one of them wait longer than its limit or let one run past its wall limit."""
    notes: object = None
    """`GameSetup.notes` of its record and replay's text, if the setup has them."""

    def replay_file(self) -> tuple[str, bytes] | None:
        """Its replay as the results folder keeps it (its path there, its bytes), or None."""
        return None if self.replay is None else (replay_name(self.id), self.replay)


class _Worker:
    """Plays games of one tournament: bots resolved once, built fresh for every game."""

    def __init__(self, setup: GameSetup, registry: Registry | None = None) -> None:
        registry = registry or default_registry()
        self.setup = setup
        self.ruleset = registry.rules[setup.rules]
        cards = setup.cards or (None,) * len(setup.entrants)
        references = located(setup.entrants, setup.shipment.unpack())
        self.entrants = tuple(entrants.resolve(reference, registry, card)
                              for reference, card in zip(references, cards, strict=True))
        self.limits = setup.limits
        self.options = setup.options.dict()
        fitting = hosts_that_fit(KEPT_CAP)  # what the open-file limit holds, and
        fitting = min(fitting, setup.kept) if setup.kept else kept_in_memory(fitting)  # memory
        sandboxed = any(entrant.sandboxed for entrant in self.entrants)
        seats = min(self.ruleset.max_players, len(self.entrants)) if sandboxed else 1
        needed = max(self.ruleset.max_players, len(self.entrants) * seats)
        self.lanes = 1
        """Games this worker plays at once: one per lane, each lane with kept hosts of its
        own (a bot process never serves two games at once). One when a bot runs inline (it
        gains nothing from lanes, and its calls are marked one game at a time), and as many
        as can each keep every entrant's process (one per image it may be shown, when
        sandboxed: arena/kept.py KeptHosts) within the budget of open files and memory (a
        lane that had to stop and start bot processes would lose more than the overlap
        gains)."""
        if all(entrant.mode != "inline" for entrant in self.entrants):
            self.lanes = max(1, min(setup.lanes, fitting // needed))
        self.cap = max(fitting // self.lanes, self.ruleset.max_players)
        """Hosts kept per lane: the lanes share the budget."""
        self._lane = threading.local()
        self._kept: list[KeptHosts] = []
        self._keeping = threading.Lock()

    @property
    def kept(self) -> KeptHosts:
        """This lane's isolated hosts by entrant: their processes serve many of its games."""
        kept: KeptHosts | None = getattr(self._lane, "kept", None)
        if kept is None:
            kept = self._lane.kept = KeptHosts(self.cap)
            with self._keeping:
                self._kept.append(kept)
        return kept

    def players(self, game: GameSpec) -> list[Player]:
        """The game's Players, each on its entrant's host: no two sandboxed table-mates are
        shown one image of the system's files (arena.kept.KeptHosts.table)."""
        seated = [(index, self.entrants[index]) for index in game.seats]
        hosts = self.kept.table(seated, game.seed)
        return [entrant.player(host, self.setup.entrants[index].name)
                for (index, entrant), host in zip(seated, hosts, strict=True)]

    def shutdown(self) -> None:
        """Stop the bot processes this worker's lanes kept."""
        with self._keeping:
            kept, self._kept = self._kept, []
        for hosts in kept:
            hosts.ask_to_stop()
        for hosts in kept:
            hosts.close()

    def play(self, game: GameSpec, crashed: _Crashed | None = None) -> Played:
        players = self.players(game)
        if marked():
            players = _watched(players, crashed)
        try:
            record = play_game(self.ruleset, players, game.seed, self.options, self.limits)
        except RefereeError as exc:
            raise TournamentError(f"game {game.id}: {exc}") from None
        except RefereeFailure as exc:  # the machine's, not a bot's: no game is recorded
            raise RefereeFailure(f"game {game.id}: {exc}") from None
        strained = strain.take()  # this worker's since its last game: each decision once
        if not self.setup.replays:
            line = _LINE.encode(game_line(game, record, None))
            return Played(game.id, record.result.placements, line, None, strained)
        line = _LINE.encode(game_line(game, record, replay_name(game.id)))
        text = self.replay(game, record)
        notes = None if self.setup.notes is None else self.setup.notes(record, text)
        return Played(game.id, record.result.placements, line, pack_text(text), strained,
                      notes)

    def replay(self, game: GameSpec, record: GameRecord) -> bytes:
        """The game's replay, as its text (packed by `pack_text`)."""
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
        return game_text(record, about, seats)

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
            **({"isolation": player.host.isolation} if hasattr(player.host, "isolation") else {}),
        }


_LINE = json.JSONEncoder(separators=(",", ":"))
"""The games.jsonl line's encoder, made once (json.dumps with options makes one per call)."""


def replay_name(game_id: str) -> str:
    """Where a game's replay is in the results folder, as games.jsonl names it."""
    return f"{folder_files.REPLAYS}/{game_id}.json.gz"


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


class _Watched(Host):
    """An inline seat's host that marks each bot call in the worker's slot (seat, call
    number), so a worker that dies inside one is blamed on that seat; from `dies_at` on,
    the call is a crash fault instead."""

    __slots__ = ("billed", "calls", "cause", "dies_at", "host", "listens", "mode", "seat")

    def __init__(self, host: Host, seat: int, dies_at: int | None = None, cause: str = "") -> None:
        self.host, self.seat, self.calls = host, seat, 0
        self.dies_at, self.cause = dies_at, cause
        self.mode = host.mode
        self._follow()

    def _follow(self) -> None:
        """What its host knows after a call: whether the bot listens (known once it is
        started) and what its decision is billed."""
        self.listens, self.billed = self.host.listens, self.host.billed

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
                self._follow()

    def act(self, observation: Any, timeout: float) -> Any:
        if not self._enter():
            raise BotFault("crash", self.cause)
        try:
            return self.host.act(observation, timeout)
        finally:
            mark(-1)
            self._follow()

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
    """A worker for the games, or the one-line reason it cannot be built: also when this
    machine cannot give a bot process its isolation level (a cluster's weaker worker then
    refuses the games before playing one, instead of failing each of them)."""
    from arena.hosts.walls import level

    try:
        worker = _Worker(setup)
        for entrant in worker.entrants:
            if entrant.mode != "inline":
                level(entrant.reference.isolation)
        return worker
    except Exception as exc:  # noqa: BLE001 - any reason stops the run, said in one line
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise TournamentError(f"a worker could not start: {text}") from None


def _play_in_worker(worker: _Worker,
                    task: GameSpec | _Crashed | Bundle) -> Played | tuple[Played, ...]:
    if isinstance(task, _Crashed):
        return worker.play(task.game, task)
    if isinstance(task, tuple):  # a bundle: its entrants' processes kept over any other
        worker.kept.prefer({seat for game in task for seat in game.seats})
        return tuple(worker.play(game) for game in task)
    return worker.play(task)


def _stop_worker(worker: _Worker) -> None:
    worker.shutdown()


def _lanes(worker: _Worker) -> int:
    return worker.lanes


def game_job(setup: GameSetup, lanes: int | None = None) -> Job:
    """The executor's job that plays games of `setup`: a spec is a GameSpec, a result Played;
    `lanes` of them at once in a worker process when every bot runs in its own process
    (None: ARENA_LANES, else LANES of arena.executor.serve)."""
    try:
        lanes = lanes_wanted() if lanes is None else lanes
    except ExecutorError as exc:
        raise TournamentError(str(exc)) from None
    return Job(_play_in_worker, _start_worker, replace(setup, lanes=lanes), _stop_worker, _lanes,
               (Played, Strain))


class LostGames:
    """What the executor does with a game whose worker died: play it again; after LIVES
    deaths, as a crash of the seat whose bot call it died in, or stop when it died outside
    any bot call. Each death is told to `info` and kept in `deaths`, one line each."""

    def __init__(self, info: Callable[[str], None] | None = None,
                 hint: str = "every finished game is saved: run again with --resume") -> None:
        self.info, self.hint = info or _quiet, hint
        self.deaths: list[str] = []

    def __getstate__(self) -> dict[str, Any]:
        """Sent to a cluster's workers without `info` (it talks to this terminal): their
        copies start with no lines and keep theirs, given back here by `tell`."""
        return {"hint": self.hint}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.info, self.hint, self.deaths = _quiet, state["hint"], []

    def tell(self, line: str) -> None:
        """Keep and tell one line about a worker's death."""
        self.deaths.append(line)
        self.info(line)

    def __call__(self, death: Death) -> GameSpec | _Crashed | Bundle:
        task: GameSpec | _Crashed | Bundle = death.spec
        where = _where(task)
        self.tell(f"a worker died ({death.cause}) in {where}; its games are played "
                  "again on a new worker")
        if death.deaths < LIVES:
            return task
        if death.mark is None or not isinstance(task, GameSpec):
            raise TournamentError(
                f"{where} killed its worker {death.deaths} times ({death.cause}), "
                f"not in a bot's call; {self.hint}"
            )
        seat, call = death.mark
        return _Crashed(task, seat, call, death.cause)


def _where(task: GameSpec | _Crashed | Bundle) -> str:
    """The game a worker died in, in words; a bundle's by its first and last game."""
    if isinstance(task, tuple):
        return f"the games {task[0].id} to {task[-1].id}" if len(task) > 1 else \
            f"game {task[0].id}"
    return f"game {(task.game if isinstance(task, _Crashed) else task).id}"


# --- running ------------------------------------------------------------------------------


def _quiet(_: str) -> None:
    pass
