"""The dry run of a tournament's entrants on a worker of the Dask cluster that will play it,
never on the organiser's machine: strangers' code runs only where its games run, in that
machine's sandbox, at the run's isolation level (which that worker checks, not this one).

    cards = check_on_cluster(cluster, cfg, key_lines(path))

One task ships the bot files (arena.tournament.run.shipment) and runs `arena.trial.try_entrants`
there; it answers each entrant's card, or the one-line ConfigError exactly as a dry run here
would word it (the shipped copies' paths put back as the config names them). A ladder's new
versions are started there the same way (`start_on_cluster`: each one's reason, in the words
of arena.tournament.formats.ladder.validation.cannot_start here). A worker that cannot give the
isolation level, or runs another arena, refuses; the next worker is asked. This module plays
no game and never touches the results folder.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from arena.botcard import BotCard
from arena.botfile import BotFile
from arena.executor.cluster import Cluster, ClusterError, ClusterLost
from arena.executor.members import workers_of
from arena.executor.remote import fingerprint, foreign_code, worker_name
from arena.tournament.config import ConfigError, EntrantConfig, KeyLines, TournamentConfig
from arena.tournament.run.shipment import Shipment, folder_refusal, pack

__all__ = ["Trial", "check_on_cluster", "start_on_cluster", "started_here", "tried_here"]

Cards = tuple[BotCard | None, ...]


@dataclass(frozen=True, slots=True)
class Trial:
    """What a worker's dry run found: each entrant's card, or the config error, or why this
    worker cannot play the run at all (`refused`, one line naming the worker)."""

    cards: Cards = ()
    error: ConfigError | None = None
    refused: str | None = None
    reasons: tuple[str | None, ...] = ()
    """A ladder's new versions: why each cannot start (None: it starts)."""
    broken: tuple[ConfigError | None, ...] = ()
    """Why each entrant cannot play (None: it can), beside `cards`."""


def check_on_cluster(cluster: Cluster, cfg: TournamentConfig,
                     lines: KeyLines) -> tuple[BotCard | ConfigError | None, ...]:
    """Each entrant's card from a dry run on one worker of the cluster that can play the run,
    or the ConfigError a dry run here would give it; ClusterError if no worker can play."""
    refusal = folder_refusal(cfg.entrants)
    if refusal is not None:
        raise ClusterError(refusal)
    trial = _on_a_worker(cluster, tried_here, pack(cfg.entrants), cfg, lines)
    return tuple(card if error is None else error
                 for card, error in zip(trial.cards, trial.broken, strict=True))


def start_on_cluster(cluster: Cluster, cfg: TournamentConfig,
                     entrants: Sequence[EntrantConfig]) -> tuple[str | None, ...]:
    """Why each of a ladder's new versions cannot start (None: it starts), from their dry
    runs on one worker of the cluster that can play the run; ClusterError if none can."""
    return _on_a_worker(cluster, started_here, pack(entrants), cfg, tuple(entrants)).reasons


def _on_a_worker(cluster: Cluster, task: Callable[..., Trial], shipment: Shipment,
                 *args: Any) -> Trial:
    """`task(shipment, *args, run_print)` on two workers that do not refuse it, which must
    agree (a third settles it when they do not): no worker's word alone decides a run's
    entrants unless it is the only worker that can play."""
    client = cluster.connect(accept=(Trial, BotCard, ConfigError))
    try:
        run_print = fingerprint()
        workers = sorted(workers_of(client))
        if not workers:
            raise ClusterError(f"the Dask cluster at {cluster.address} has no workers")
        queue = iter(workers)
        def ask(count: int) -> list[Any]:
            return [client.submit(task, shipment, *args, run_print, pure=False, workers=[w],
                                  allow_other_workers=False)
                    for w in itertools.islice(queue, count)]
        asked = ask(2)
        refusals: list[str] = []
        trials: list[Trial] = []
        while asked:
            trial = _answer(asked.pop(0), cluster)
            if trial.refused is not None:
                refusals.append(trial.refused)
            else:
                trials.append(trial)
                agreed = _agreed(trials)
                if agreed is not None:
                    return _raised(agreed)
            if len(asked) + len(trials) < 2 or (len(trials) >= 2 and not asked):
                asked += ask(1)
        if len(trials) == 1:
            return _raised(trials[0])  # the only worker that can play: its word alone
        if trials:
            raise ClusterError(f"{len(trials)} workers of the cluster dry-ran the entrants "
                               "differently (a worker that lies, or a bot that answers "
                               "otherwise on each machine): add a worker to settle it")
        raise ClusterError("no worker of the cluster can play these games: "
                           + "; ".join(refusals))
    finally:
        client.close()


def _agreed(trials: list[Trial]) -> Trial | None:
    """A dry run that two workers gave alike, or None."""
    said = [_said(trial) for trial in trials]
    return next((trial for trial, words in zip(trials, said, strict=True)
                 if said.count(words) >= 2), None)


def _said(trial: Trial) -> tuple[Any, ...]:
    """What a dry run found that decides the run, comparable: which entrants cannot play and
    why, and the rule sets and options each card says it takes (its name, version and
    summary are only shown, and a bot may word them otherwise in each process)."""
    def words(error: ConfigError | None) -> Any:
        return None if error is None else (type(error).__name__, str(error))
    cards = tuple(None if card is None else (card.rules, card.options) for card in trial.cards)
    return (cards, words(trial.error), tuple(map(words, trial.broken)), trial.reasons)


def _raised(trial: Trial) -> Trial:
    """The trial, or the config error it found raised."""
    if trial.error is not None:
        raise trial.error
    return trial


def _answer(future: Any, cluster: Cluster) -> Trial:
    """The worker's trial, or ClusterLost when the scheduler or the worker went away."""
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    try:
        trial: Trial = future.result()
    except FutureCancelledError:
        raise ClusterLost(f"the Dask scheduler at {cluster.address} is gone") from None
    except KilledWorker:
        raise ClusterLost("the dry run of the entrants killed the Dask worker that took it"
                          ) from None
    return trial


def tried_here(shipment: Shipment, cfg: TournamentConfig, lines: KeyLines,
               run_print: str) -> Trial:
    """On a worker: the dry run of every entrant, from the shipped bot files, at the run's
    isolation level as this machine gives it."""
    from arena.entrants import EntrantError
    from arena.hosts.inline import RefereeFailure
    from arena.hosts.walls import IsolationError, level
    from arena.plugins import PluginError, default_registry
    from arena.tournament.load import sandboxed_entrants
    from arena.trial import try_entrants

    foreign = foreign_code(run_print)
    if foreign is not None:
        return _refused(foreign)
    places: dict[str, str] = {}
    try:
        registry = default_registry()
        places = shipment.unpack()
        moved = replace(cfg, entrants=tuple(_moved(e, places) for e in cfg.entrants))
        if sandboxed_entrants(moved, registry):  # built-in bots alone need no sandbox
            level(cfg.isolation)
        tried = try_entrants(moved, lines, registry)
    except ConfigError as exc:
        return Trial(error=_put_back(exc, places))
    except (IsolationError, RefereeFailure, EntrantError, PluginError, OSError) as exc:
        return _refused(" ".join(str(exc).split()))
    return Trial(cards=tuple(None if isinstance(t, ConfigError) else t.card for t in tried),
                 broken=tuple(_put_back(t, places) if isinstance(t, ConfigError) else None
                              for t in tried))


def started_here(shipment: Shipment, cfg: TournamentConfig,
                 entrants: tuple[EntrantConfig, ...], run_print: str) -> Trial:
    """On a worker: each new version started as the contest starts it, from the shipped bot
    files, at the run's isolation level as this machine gives it."""
    from arena.hosts.inline import RefereeFailure
    from arena.hosts.walls import IsolationError, level
    from arena.plugins import PluginError
    from arena.tournament.formats.ladder.validation import cannot_start

    foreign = foreign_code(run_print)
    if foreign is not None:
        return _refused(foreign)
    try:
        places = shipment.unpack()
        moved = tuple(_moved(e, places) for e in entrants)
        if _sandboxed(replace(cfg, entrants=moved)):
            level(cfg.isolation)
        reasons = tuple(cannot_start(cfg, entrant) for entrant in moved)
    except (IsolationError, RefereeFailure, PluginError, OSError) as exc:  # this machine's
        return _refused(" ".join(str(exc).split()))
    return Trial(reasons=tuple(None if r is None else _named_back(r, places) for r in reasons))


def _sandboxed(cfg: TournamentConfig) -> bool:
    """Whether a bot process runs (so this worker must give the level): also when an
    entrant cannot even be resolved (its dry run then says why)."""
    from arena.entrants import EntrantError
    from arena.tournament.load import sandboxed_entrants

    try:
        return bool(sandboxed_entrants(cfg))
    except EntrantError:
        return True


def _moved(entrant: EntrantConfig, places: Mapping[str, str]) -> EntrantConfig:
    """The entrant with its shipped bot file named where it was written on this worker (the
    dry run's words are put back into the config's by `_put_back`)."""
    file = BotFile.parse(entrant.bot or "")
    if file is None or file.path not in places:
        return entrant
    return replace(entrant, bot=str(file.at(places[file.path])))


def _put_back(error: ConfigError, places: Mapping[str, str]) -> ConfigError:
    """The error with each shipped copy named as the config names the file."""
    return ConfigError(error.source, error.line, error.key, _named_back(error.message, places))


def _named_back(message: str, places: Mapping[str, str]) -> str:
    """The message with each shipped copy named as the config names the file."""
    for path, copy in places.items():
        message = message.replace(copy, path)
    return message


def _refused(reason: str) -> Trial:
    return Trial(refused=f"{worker_name()} refuses: {reason}")
