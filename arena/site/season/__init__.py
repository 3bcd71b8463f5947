"""The site's season process (`arena site season CONFIG --data DIR`): the only part of the
site that runs bots. Each turn it checks received uploads with check-bot (checks), hands the
ladder the versions to play (entrants), plays one batch with the ladder's own run_ladder
(loop) or, for a class, one version's gauntlet with the one runner (classroom), reads what
was played into the database (index), and mails owners of failing versions (mail).
`standings` is what the pages read of the ranking and the grades.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.executor.dial import Cluster
    from arena.site.contest.contest import Contest
    from arena.site.season.loop import Turn

__all__ = ["main", "run_once"]


def main(config: str | Path, data: str | Path, workers: int | None = None,
         cluster: str | None = None, once: bool = False, batch_games: int | None = None) -> None:
    """Run the season of this contest (its database migrated first) until stopped, or one
    turn with `once`; `cluster`: a Dask scheduler's address to play the games on."""
    import arena.site

    arena.site.setup(config, data)
    from django.core.management import call_command

    from arena.site.contest.contest import current
    from arena.site.season.loop import loop

    call_command("migrate", interactive=False, verbosity=0)
    from arena.site.season.heart import beat_now

    beat_now("started")
    contest, dial = current(), _cluster(cluster)
    level = isolation(contest, dial)

    def turn() -> Turn:
        return run_once(contest, workers=workers or 1, cluster=dial, batch_games=batch_games,
                        level=level)

    loop(turn, once, lambda line: print(f"arena: season: {line}", file=sys.stderr))


def run_once(contest: Contest | None = None, *, workers: int = 1, cluster: Cluster | None = None,
             batch_games: int | None = None, level: str | None = None) -> Turn:
    """One turn of the season (a ladder's or a class's); what it did."""
    from arena.site.contest.contest import current
    from arena.site.season.classroom import class_turn
    from arena.site.season.loop import ladder_turn

    contest = contest or current()
    level = level or isolation(contest, cluster)
    if contest.graded:
        return class_turn(contest, level, workers=workers, cluster=cluster)
    return ladder_turn(contest, level, workers=workers, cluster=cluster, batch=batch_games)


def isolation(contest: Contest, cluster: Cluster | None = None) -> str:
    """The level bots play and are checked at, as `arena run` decides it: the config's, else
    the strongest this machine gives (on a cluster, strict unless said)."""
    from arena.hosts.walls import level

    if cluster is not None:
        return contest.config.isolation or "strict"
    return level(contest.config.isolation).name


def _cluster(address: str | None) -> Cluster | None:
    """The Dask cluster at this address, or None (this machine's workers)."""
    if address is None:
        return None
    from arena.executor.dial import Cluster

    cluster = Cluster(address)
    problem = cluster.problem()
    if problem is not None:
        raise SystemExit(f"arena: error: {problem}")
    return cluster
