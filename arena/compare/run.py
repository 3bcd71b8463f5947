"""Playing `arena compare`: the groups played in order until a sequential test decides.

It plays the groups (in a worker pool when asked): their games are the tournament's
scheduled games with each group's seed (`arena.compare.groups`), played by the tournament's
worker on the one executor, and their results come back strictly in group order to be
folded into the verdict (`arena.compare.verdict`) after every group.

It must not print, parse command lines, or compute statistics itself, and it plans no
table: that is `arena.compare.groups`.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from contextlib import closing
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from arena.botcard import BotCard
from arena.compare.groups import (
    CompareError,
    Entrant,
    GroupResult,
    Setup,
    compare_games,
    group_result,
)
from arena.compare.players import check
from arena.compare.verdict import Bounds, Comparison, start
from arena.options import Options

if TYPE_CHECKING:
    from arena.executor.cluster import Cluster


def group_results(setup: Setup, groups: int, workers: int = 1,
                  cards: Mapping[Entrant, BotCard | None] | None = None,
                  cluster: Cluster | None = None, told: Callable[[str], None] | None = None,
                  ) -> Generator[GroupResult]:
    """Results of groups 0..groups-1 in group order: their games are scheduled games with
    the group's seed, played by the tournament's worker on the one executor (on `cluster`,
    when given: the same results, each game judged as `arena run --cluster` judges its
    games, so a worker that lies is caught; `told` hears its workers join and leave)."""
    from arena.executor.local import Executor
    from arena.tournament.errors import TournamentError
    from arena.tournament.run.worker import LostGames, game_job

    games = (game for index in range(groups) for game in compare_games(setup, index))
    job_setup = game_setup(setup, cards)
    judge = None
    if cluster is not None:  # a worker's games come back with replays, judged as a run's are
        from arena.executor.cluster import ClusterError
        from arena.tournament.run.shipment import folder_refusal
        from arena.tournament.run.trust import GameJudge

        refusal = folder_refusal(job_setup.entrants)
        if refusal is not None:
            raise ClusterError(refusal)
        job_setup = replace(job_setup, replays=True)
        judge = GameJudge(job_setup, replays=False)
    executor = Executor(game_job(job_setup), workers, LostGames(hint="stopped"),
                        cluster=cluster, told=told, judge=judge)
    played = iter(executor.map(games))
    try:
        for index in range(groups):
            yield group_result(setup, index, [next(played) for _ in range(setup.group_games)])
    except TournamentError as exc:
        raise CompareError(str(exc)) from None
    finally:
        executor.close()


def game_setup(setup: Setup, cards: Mapping[Entrant, BotCard | None] | None = None) -> Any:
    """The comparison as the tournament's worker takes it: entrants candidate, baseline,
    then the field, each its own entrant (a command bot gets its own process per seat), with
    what each said it is at its dry run."""
    from arena.tournament.run.shipment import pack
    from arena.tournament.run.worker import GameSetup

    seats = (setup.candidate, setup.baseline, *setup.field)
    entrants = tuple(_entrant_config(e) for e in seats)
    return GameSetup("compare", setup.rules, Options.of(dict(setup.options)), setup.limits,
                     entrants, False, tuple((cards or {}).get(e) for e in seats), pack(entrants))


def _entrant_config(entrant: Entrant) -> Any:
    """The entrant as the tournament's worker hosts it, by the one trust policy: a `cmd:`
    bot as its program, a Python bot where its reference's mode (or its origin) says."""
    from arena.tournament.config import EntrantConfig

    options = Options.of(dict(entrant.options))
    if entrant.command is not None:
        found = EntrantConfig(entrant.label, command=entrant.command, options=options,
                              mode="command")
    else:
        found = EntrantConfig(entrant.label, bot=entrant.ref, options=options, mode=entrant.mode)
    return replace(found, isolation=entrant.isolation, network=entrant.network,
                   start_timeout=entrant.start_timeout)


def run_compare(setup: Setup, bounds: Bounds | None = None,
                max_games: int | None = None, workers: int = 1,
                progress: Callable[[Comparison], None] | None = None,
                cards: Mapping[Entrant, BotCard | None] | None = None,
                cluster: Cluster | None = None,
                told: Callable[[str], None] | None = None) -> Comparison:
    """Play groups until the tests decide or the next group would pass `max_games`; `cards`
    are what `check` returned (else it is run here: each bot's dry run). With `cluster`,
    the games are played on that Dask cluster; losing it raises ClusterLost."""
    bounds = bounds or Bounds()
    max_games = max_games or setup.default_max_games()
    if cards is None:
        cards = check(setup, bounds, max_games)
    state = start(setup, bounds, max_games)
    groups = max_games // setup.group_games
    with closing(group_results(setup, groups, workers, cards, cluster, told)) as results:
        for result in results:
            state = state.add(result)
            if progress is not None:
                progress(state)
            if state.decision is not None:
                break
    return state
