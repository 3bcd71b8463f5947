"""`arena run` of a ladder: `--games N` more games into the same folder, then the ranking.

It only talks to the user: the season (arena/tournament/formats/ladder/season.py) decides
every game and the one runner plays it (on this machine's workers, or on the Dask cluster
of `--cluster`); this module checks the flags a season takes, shows its progress (the bar
of every run, arena/cli/progress.py, and the live report `arena run` passes) and prints
its ranking. arena/cli/run.py calls it when the config's format is a season; it imports
nothing of arena/cli/run.py.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena.cli.main import fail
from arena.cli.progress import EXIT_INTERRUPTED, meter, watch
from arena.hosts.inline import printable
from arena.tournament.config import TournamentConfig

if TYPE_CHECKING:
    from arena.executor.cluster import Cluster
    from arena.tournament.run.progress import Tally

__all__ = ["run_ladder_command"]


BUDGET = 10_000
"""The games `--until-confident` may play when `--games` gives no budget."""


def _refused(games: int | None, until: int | None, final: int | None, resume: bool,
             force: bool) -> None:
    """Stop at flags a ladder does not take, in one line."""
    if final is not None and (games is not None or until is not None):
        fail("--final plays the final's whole round robin: drop --games/--until-confident")
    if games is None and until is None and final is None:
        fail("a ladder needs --games N: how many more games to play into its folder")
    if resume or force:
        fail("a ladder always continues its folder: drop --resume/--force (or choose a new "
             "--out)")


def run_ladder_command(cfg: TournamentConfig, out: str | None, games: int | None,
                       workers: int | None, *, resume: bool, force: bool, quiet: bool,
                       cluster: Cluster | None, until: int | None = None,
                       final: int | None = None,
                       during: Callable[[Path, Tally], object] | None = None,
                       refresh: float | None = None) -> None:
    """Play a ladder's next games (or its final) and print its ranking, one line a player;
    with --until-confident, exit 1 and name the unresolved pairs if the budget ran out.
    `during` every `refresh` seconds: the live report, as `arena run` makes it."""
    from arena.cli.cluster import lost
    from arena.executor.cluster import ClusterError, ClusterLost
    from arena.report.html import build_report
    from arena.tournament.errors import TournamentError
    from arena.tournament.formats.ladder.season import run_ladder
    from arena.tournament.run.results import ResultsError
    from arena.tournament.run.runner import Interrupted

    _refused(games, until, final, resume, force)
    folder = Path(out or cfg.output or f"results/{cfg.name}")
    count = workers or cfg.workers or 1
    budget = games if games is not None else BUDGET if until is not None else 0
    shown = meter(cfg.name, "game", quiet=quiet, label="progress")
    try:
        with contextlib.closing(shown):  # the bar ends before any line below
            done = run_ladder(cfg, folder, budget, workers=count, until=until, final=final,
                              progress=None if quiet else watch(shown),
                              info=None if quiet else _note, cluster=cluster, during=during,
                              refresh=refresh)
        build_report(folder, workers=count)
    except (KeyboardInterrupt, Interrupted):
        _interrupted(folder)
    except ClusterLost as exc:
        lost(str(exc), "the games in games.jsonl are kept; run it again to go on (a batch "
                       "the loss cut is finished first)")
    except (TournamentError, ResultsError, ClusterError) as exc:
        fail(str(exc))
    value = done.ladder
    if not quiet:
        click.echo(f"{cfg.name}: {value['games']} games in {value['batches']} batches in "
                   f"{folder}")
    _changes(done.log[:done.since], done.log[done.since:])
    _ranking(value)
    if value["final"] is not None:
        _final(value["final"])
    if until is not None:
        _confidence(done, until)


def _interrupted(folder: Path) -> None:
    """Ctrl-C: what is saved and how to go on, in one line; exit 130 as `arena run` does."""
    from arena.tournament.run import results

    games = folder / results.GAMES
    saved = games.read_bytes().count(b"\n") if games.exists() else 0
    click.echo(f"arena: interrupted: {saved} games are saved in {folder}; run the same "
               "command again to go on (it first finishes the batch it cut)", err=True)
    sys.exit(EXIT_INTERRUPTED)


def _note(message: str) -> None:
    click.echo(f"arena: {message}", err=True)


def _changes(before: Sequence[Mapping[str, Any]], now: Sequence[Mapping[str, Any]]) -> None:
    """This run's changes, each said once: who joined, was replaced or left, then each
    rejection and why (so its author hears of it; an earlier run's is not said again)."""
    seen = {e["player"] for e in before}
    gone = {e["entrant"]: e["player"] for e in now
            if e["status"] == "retired" and e["reason"] == "replaced"}
    joined, replaced, left, rejected = [], [], [], []
    for event in now:
        player, back = printable(str(event["player"])), " (back)" * (event["player"] in seen)
        if event["status"] == "active" and event["entrant"] in gone:
            replaced.append(f"replaced {printable(gone[event['entrant']])} by {player}{back}")
        elif event["status"] == "active":
            joined.append(f"joined {player}{back}")
        elif event["status"] == "retired" and event["reason"] == "removed":
            left.append(f"left {player}")
        elif event["status"] == "rejected":
            rejected.append(f"rejected {player}: {event['reason']}")
    for line in joined + replaced + left + rejected:
        click.echo(line)


def _ranking(value: dict[str, Any]) -> None:
    for row in value["ranking"]:
        rank = "-" if row["rank"] is None else str(row["rank"])
        elo = "-" if row["elo"] is None else f"{row['elo']:.0f}"
        mark = " provisional" if row["provisional"] else ""
        click.echo(f"{rank:>3} {row['player']:<24} {elo:>6} {row['games']:>5} games{mark}")


def _final(final: dict[str, Any]) -> None:
    """The final's state; once complete, its ranking is the contest's result."""
    if not final["complete"]:
        click.echo(f"final: {final['played']} of {final['games']} games played")
        return
    places = ", ".join(f"{n}. {p}" for n, p in enumerate(final["ranking"], 1))
    click.echo(f"final ({final['games']} games): {places}")


def _confidence(done: Any, until: int) -> None:
    """Whether the top K are separated; if not, what is unresolved, and exit 1."""
    if done.separated:
        click.echo(f"the top {until} are separated at 95%")
        return
    click.echo(f"the top {until} are not separated at 95% when the budget ran out:")
    for pair in done.unresolved:
        click.echo(f"  unresolved: {pair['above']} vs {pair['below']} (z = {pair['z']:.2f})")
    for player in done.provisional:
        click.echo(f"  provisional: {player} (fewer games than min_games)")
    sys.exit(1)
