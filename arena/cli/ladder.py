"""`arena run` of a ladder: `--games N` more games into the same folder, then the ranking.

It only talks to the user: the runner (arena/tournament/ladder.py) decides and plays every
game; this module checks the flags a ladder takes and prints its ranking.
"""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli.main import fail
from arena.tournament.config import TournamentConfig

__all__ = ["run_ladder_command"]


def run_ladder_command(cfg: TournamentConfig, out: str | None, games: int | None,
                       workers: int | None, *, resume: bool, force: bool, quiet: bool,
                       cluster: object) -> None:
    """Play a ladder's next games and print its ranking, one line a player."""
    from arena.report.html import build_report
    from arena.tournament.errors import TournamentError
    from arena.tournament.ladder import run_ladder
    from arena.tournament.results import ResultsError

    if games is None:
        fail("a ladder needs --games N: how many more games to play into its folder")
    if resume or force:
        fail("a ladder always continues its folder: drop --resume/--force (or choose a new "
             "--out)")
    if cluster is not None:
        fail("a ladder is played on this machine's workers; --cluster is not supported")
    folder = Path(out or cfg.output or f"results/{cfg.name}")
    count = workers or cfg.workers or 1
    try:
        value = run_ladder(cfg, folder, games or 0, workers=count)
        build_report(folder, workers=count)
    except (TournamentError, ResultsError) as exc:
        fail(str(exc))
    if not quiet:
        click.echo(f"{cfg.name}: {value['games']} games in {value['batches']} batches in "
                   f"{folder}")
    for row in value["ranking"]:
        rank = "-" if row["rank"] is None else str(row["rank"])
        elo = "-" if row["elo"] is None else f"{row['elo']:.0f}"
        mark = " provisional" if row["provisional"] else ""
        click.echo(f"{rank:>3} {row['player']:<24} {elo:>6} {row['games']:>5} games{mark}")
