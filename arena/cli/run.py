"""`arena run` and `arena validate`: the thin click layer over arena.tournament.run.

Each command parses its options, calls one library function and prints. A problem the
user can fix is one line `arena: error: ...` on stderr with exit status 2; Ctrl-C during
a run keeps every finished game, says how to resume, and exits with status 130; so does
the referee's own failure (no descriptor, memory or tool to start a bot with), blaming no
bot, with status 75. Nothing here plays games or knows the results folder's layout.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.cli.doctor import isolation_level, isolation_line, isolation_option
from arena.cli.main import fail, load_registry, referee_failed
from arena.tournament.config import ConfigError, TournamentConfig

if TYPE_CHECKING:
    from arena.entrants import Resolved

EXIT_INTERRUPTED = 130


def _load(config: str, isolation: str | None) -> tuple[TournamentConfig, tuple[Resolved, ...]]:
    """Load and check a tournament file, fix its isolation level (`--isolation`, else the
    config's, else the strongest here) and start each entrant once at it (a dry run), or stop
    with the one-line error; return it and each entrant with its card."""
    from arena.tournament.config_yaml import key_lines
    from arena.tournament.load import load_tournament
    from arena.trial import check_entrants

    registry = load_registry()
    try:
        cfg = load_tournament(config, registry)
        cfg = cfg.at_isolation(isolation_level(isolation or cfg.isolation))
        return cfg, check_entrants(cfg, key_lines(config), registry)
    except ConfigError as exc:
        fail(str(exc))
        raise  # unreachable: fail exits


def card_line(name: str, entrant: Resolved) -> str:
    """What an entrant started in its own process said it is, in one line."""
    card = entrant.card
    said = "said nothing about itself" if card is None else (
        f"says it is {card.name!r}, {card.plays()}")
    where = entrant.mode if entrant.origin == entrant.mode else f"{entrant.mode}, {entrant.origin}"
    return f"entrant {name!r} ({where}): {said}"


@click.command(name="validate")
@click.argument("config", type=click.Path(dir_okay=False))
@isolation_option
def validate(config: str, isolation: str | None) -> None:
    """Check a tournament file without playing: print its size, or the first problem.

    Each entrant is started once as it will play (a dry run): a bot that is not arena's own
    says what it is from inside its own process, one line each."""
    from arena.tournament.load import schedule_notes
    from arena.tournament.plan import Plan

    cfg, entrants = _load(config, isolation)
    click.echo(f"ok: {len(cfg.entrants)} entrants, {Plan(cfg).total()} games")
    for note in schedule_notes(cfg):
        click.echo(f"note: {note}")
    for entrant, resolved in zip(cfg.entrants, entrants, strict=True):
        if resolved.spec is None:  # a bot arena did not load: what its dry run said
            click.echo(card_line(entrant.name, resolved))


@click.command(name="run")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False),
    default=None,
    help="Results folder (default: the config's output, results/<name>).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: the config's workers, else one per core).",
)
@click.option(
    "--resume", is_flag=True, help="Play only the games missing from an interrupted run's folder."
)
@click.option("--force", is_flag=True, help="Delete the folder's earlier results and start over.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no progress notes.")
@isolation_option
def run(
    config: str, out: str | None, workers: int | None, resume: bool, force: bool, quiet: bool,
    isolation: str | None,
) -> None:
    """Play a tournament into results/<name>/ and print the standings."""
    from arena.hosts.inline import RefereeFailure
    from arena.report.html import build_report
    from arena.tournament.errors import TournamentError
    from arena.tournament.load import sandboxed_entrants, schedule_notes, untrusted_inline
    from arena.tournament.run import Interrupted, run_tournament

    if resume and force:
        fail("--resume and --force contradict each other; choose one")
    cfg, entrants = _load(config, isolation)
    for note in schedule_notes(cfg):  # even with --quiet: not the games the config asks for
        _note(f"note: {note}")
    if not quiet and sandboxed_entrants(cfg):
        _note(isolation_line(cfg.isolation or "none"))
    for name in untrusted_inline(cfg):
        click.echo(f"arena: warning: entrant {name!r} runs inline, in the referee's own "
                   "process: only for bots you trust (see docs/protocol.md)", err=True)
    progress = not quiet and sys.stderr.isatty()
    try:
        report = run_tournament(
            cfg,
            out,
            workers=workers,
            resume=resume,
            force=force,
            progress=progress,
            info=_note if not quiet else None,
            after=lambda folder, count: build_report(folder, workers=count),
            cards=tuple(e.card for e in entrants),
        )
    except Interrupted as stop:
        again = shlex.join(["arena", "run", config, *(["--out", out] if out else []), "--resume"])
        click.echo(f"arena: {stop}; to play the rest: {again}", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except KeyboardInterrupt:  # after the games, while writing the tables
        click.echo("arena: interrupted; every game is saved, run again with --resume", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except RefereeFailure as exc:
        again = shlex.join(["arena", "run", config, *(["--out", out] if out else []), "--resume"])
        referee_failed(str(exc), f"the games in games.jsonl are kept; once fixed: {again}")
    except TournamentError as exc:
        fail(str(exc))
        return
    click.echo(report.standings, nl=False)
    for warning in report.warnings:  # even with --quiet: these entrants can only fail
        click.echo(f"arena: warning: {warning}", err=True)
    if report.ranking:
        click.echo(
            "\nelimination: "
            + ", ".join(f"{place}. {name}" for place, name in enumerate(report.ranking, 1))
        )
    if not quiet:
        _note(f"results in {_shown(report.folder)}/ (open report.html to see them)")


def _note(message: str) -> None:
    click.echo(f"arena: {message}", err=True)


def _shown(folder: Path) -> str:
    return str(folder).rstrip("/")
