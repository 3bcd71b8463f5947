"""`arena run` and `arena validate`: the thin click layer over arena.tournament.run.runner.

Each command parses its options, calls one library function and prints. A problem the
user can fix is one line `arena: error: ...` on stderr with exit status 2; Ctrl-C during
a run keeps every finished game, says how to resume, and exits with status 130; so does
the referee's own failure (no descriptor, memory or tool to start a bot with), blaming no
bot, with status 75. Nothing here plays games or knows the results folder's layout.

While a run plays, stderr shows how far it is (arena/cli/progress.py: a bar on a terminal,
else a line every tenth of the games or every minute): games, rate, time left, faults so
far and the leader by wins so far. Every `--refresh` minutes (5 by default) report.html is
rebuilt from the games so far, marked in progress (arena/report/live.py).
"""

from __future__ import annotations

import contextlib
import shlex
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.cli.cluster import (
    chosen_cluster,
    cluster_options,
    flags_again,
    given_flags,
    lost,
    refuse_open_network,
)
from arena.cli.doctor import isolation_level, isolation_line, isolation_option
from arena.cli.main import fail, load_registry, referee_failed
from arena.cli.progress import EXIT_INTERRUPTED, meter, watch
from arena.tournament.config import ClusterConfig, ConfigError, KeyLines, TournamentConfig

if TYPE_CHECKING:
    from arena.botcard import BotCard
    from arena.entrants import Resolved
    from arena.executor.cluster import Cluster
    from arena.tournament.load import Loaded as LoadedTournament
    from arena.tournament.load import Seated
    from arena.tournament.run.progress import Tally
    from arena.tournament.run.runner import RunReport
    from arena.tournament.run.skipped import LeftOut

REFRESH_MINUTES = 5.0
"""How often a running tournament's report.html is rebuilt from the games so far."""


Tried = tuple["Resolved | ConfigError", ...]
Loaded = tuple["LoadedTournament", Tried, "Cluster | None"]


def _load(config: str, isolation: str | None) -> Loaded:
    """Load and check a tournament file, fix its isolation level and start each entrant once
    at it (a dry run), or stop with the one-line error; return it, each entrant with its
    card or why it cannot play (every entrant is tried), and the cluster its games are
    played on (`--cluster`, else the config's key).

    Here, the level is `--isolation`, else the config's, else the strongest this machine
    gives, checked here. On a cluster it is `strict` unless said, each worker checks it, and
    the dry run is on a worker: strangers' code never runs on this machine."""
    from arena.tournament.config.yaml_lines import key_lines
    from arena.tournament.load import load_resolved
    from arena.trial import try_entrants

    flags = given_flags()
    if flags[0] is not None:
        chosen_cluster(flags)  # Dask missing or a wrong address: said before the config
    registry = load_registry()
    try:
        loaded = load_resolved(config, registry)  # each entrant resolved once, kept
        cluster = chosen_cluster(flags, loaded.cfg.cluster)
        if cluster is not None:  # saved as run: where it was played, the flag's if given
            loaded = loaded.replace(cluster=ClusterConfig(
                cluster.address, cluster.ca_file, cluster.cert_file, cluster.key_file))
            loaded = loaded.at_isolation(isolation or loaded.cfg.isolation or "strict")
            refuse_open_network(cluster, [e.name for e in loaded.cfg.entrants if e.network])
            return loaded, _tried_on(cluster, loaded, key_lines(config)), cluster
        loaded = loaded.at_isolation(isolation_level(isolation or loaded.cfg.isolation))
        tried = try_entrants(_checked(loaded.cfg), key_lines(config), registry, loaded.entrants)
        return loaded, tried, cluster
    except ConfigError as exc:
        fail(str(exc))
        raise  # unreachable: fail exits


def _checked(cfg: TournamentConfig) -> TournamentConfig:
    """The entrants a dry run checks before any game: a ladder's submissions are checked by
    their validation game instead (a broken one is rejected, not a config error)."""
    from arena.tournament.formats.ladder.versions import organised

    return organised(cfg)  # only a season takes a submissions folder


def _tried_on(cluster: Cluster, loaded: LoadedTournament, lines: KeyLines) -> Tried:
    """Each entrant with the card its dry run on a cluster worker gave, where from in this
    machine's words, or why it cannot play; a cluster that cannot play is one line (exit
    2), one lost exit 75."""
    from arena.executor.cluster import ClusterError, ClusterLost
    from arena.tournament.run.trial_remote import check_on_cluster

    cfg = _checked(loaded.cfg)
    try:
        cards = check_on_cluster(cluster, cfg, lines)
    except ClusterLost as exc:
        lost(str(exc), "nothing was played; run the command again once it is back")
    except ClusterError as exc:
        fail(str(exc))
    found: list[Resolved | ConfigError] = []
    for here, card in zip(loaded.entrants, cards, strict=True):
        if isinstance(card, ConfigError):
            found.append(card)
            continue
        said = None if card is None else replace(card, origin=here.origin)
        found.append(replace(here, card=said))
    return tuple(found)


def card_line(name: str, entrant: Resolved) -> str:
    """What an entrant started in its own process said it is, in one line."""
    card = entrant.card
    said = "said nothing about itself" if card is None else (
        f"says it is {card.name!r}, {card.plays()}")
    where = entrant.mode if entrant.origin == entrant.mode else f"{entrant.mode}, {entrant.origin}"
    return f"entrant {name!r} ({where}): {said}"


def _warn_written_seed(cfg: TournamentConfig, seated: Seated) -> None:
    """One line when a written seed lets entrants that are not arena's own foresee the dice."""
    from arena.tournament.load import written_seed

    warning = written_seed(cfg, seated=seated)
    if warning is not None:
        click.echo(f"arena: warning: {warning}", err=True)


@click.command(name="validate")
@click.argument("config", type=click.Path(dir_okay=False))
@isolation_option
@cluster_options
def validate(config: str, isolation: str | None) -> None:
    """Check a tournament file without playing: print its size, or the first problem.

    Each entrant is started once as it will play (a dry run): a bot that is not arena's own
    says what it is from inside its own process, one line each."""
    from arena.tournament.formats.registry import format_of
    from arena.tournament.load import schedule_notes

    loaded, tried, _ = _load(config, isolation)
    cfg, entrants = loaded.cfg, _refuse_broken(tried)
    _warn_written_seed(cfg, loaded.seated)
    click.echo(f"ok: {len(cfg.entrants)} entrants, {format_of(cfg).described(cfg)}")
    for note in schedule_notes(cfg):
        click.echo(f"note: {note}")
    for entrant, resolved in zip(_checked(cfg).entrants, entrants, strict=True):
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
@click.option("--refresh", type=click.FloatRange(min=0), default=REFRESH_MINUTES,
              show_default=True, metavar="MINUTES",
              help="Rebuild report.html from the games so far every MINUTES while the run "
                   "plays, marked in progress (0: only at the end).")
@click.option("--games", type=click.IntRange(min=1), default=None, metavar="N",
              help="A ladder: play N more games into its folder (docs/ladder.md).")
@click.option("--until-confident", "until", type=click.IntRange(min=1), default=None,
              metavar="K", help="A ladder: play until its top K are separated at 95% (--games "
                                "is the budget, default 10000); exit 1 if the budget runs out.")
@click.option("--final", type=click.IntRange(min=2), default=None, metavar="K",
              help="A ladder: freeze its versions and play the final, a round robin of the "
                   "top K; the final's result is the contest's.")
@click.option("--skip-broken", "skip", is_flag=True,
              help="Play without the entrants that fail their dry run, each told with why "
                   "and recorded in the results folder's skipped.json.")
@isolation_option
@cluster_options
def run(
    config: str, out: str | None, workers: int | None, resume: bool, force: bool, quiet: bool,
    refresh: float, isolation: str | None, games: int | None, until: int | None,
    final: int | None, skip: bool,
) -> None:
    """Play a tournament into results/<name>/ and print the standings."""
    from arena.report.ahead import ReportAhead
    from arena.report.as_played import ViewerNotes
    from arena.report.html import build_report
    from arena.tournament.formats.registry import format_of
    from arena.tournament.run.runner import run_tournament
    from arena.tournament.run.skipped import results_folder

    if resume and force:
        fail("--resume and --force contradict each other; choose one")
    loaded, tried, cluster = _load(config, isolation)
    cfg, seated = loaded.cfg, loaded.seated
    during = _live_report(refresh * 60) if refresh else None
    if format_of(cfg).season:
        from arena.cli.ladder import run_ladder_command

        if skip:
            fail("--skip-broken is not for a ladder: it plays without a broken submission "
                 "by itself (docs/ladder.md)")
        _refuse_broken(tried)
        _warn_written_seed(cfg, seated)
        run_ladder_command(cfg, out, games, workers, resume=resume, force=force, quiet=quiet,
                           cluster=cluster, until=until, final=final, during=during,
                           refresh=refresh * 60 or None)
        return
    for given, flag in ((games, "--games"), (until, "--until-confident"), (final, "--final")):
        if given is not None:
            fail(f"{flag} is for a ladder; this tournament plays its whole schedule")
    cfg, cards, left_out = _without_broken(cfg, tried, out, resume=resume, skip=skip)
    again = shlex.join(["arena", "run", config, *(["--out", out] if out else []),
                        *flags_again(given_flags()), "--resume"])
    _say_before(cfg, seated, cluster, quiet)
    shown = meter(cfg.name, "game", quiet=quiet, label="progress")
    # the bar ends before any message of a run stopped early
    with _run_stopped(again), contextlib.closing(shown):
        report = run_tournament(
            cfg, out, workers=workers, resume=resume, force=force,
            progress=None if quiet else watch(shown), info=_note if not quiet else None,
            after=lambda folder, count: build_report(folder, workers=count),
            cards=cards, cluster=cluster, during=during, refresh=refresh * 60 or None,
            left_out=left_out, notes=ReportAhead(ViewerNotes(results_folder(cfg, out))),
        )
    _say_after(report, quiet)


def _say_before(cfg: TournamentConfig, seated: Seated, cluster: Cluster | None,
                quiet: bool) -> None:
    """What the run will not play as asked, where it plays and whom it trusts, before it plays."""
    from arena.tournament.load import sandboxed_entrants, schedule_notes, untrusted_inline

    for note in schedule_notes(cfg):  # even with --quiet: not the games the config asks for
        _note(f"note: {note}")
    if not quiet and cluster is not None:
        _note(f"cluster: {cluster.address}; isolation {cfg.isolation}, checked by each worker")
    elif not quiet and sandboxed_entrants(cfg, seated=seated):
        _note(isolation_line(cfg.isolation or "none"))
    for name in untrusted_inline(cfg, seated=seated):
        click.echo(f"arena: warning: entrant {name!r} runs inline, in the referee's own "
                   "process: only for bots you trust (see docs/protocol.md)", err=True)
    _warn_written_seed(cfg, seated)


@contextlib.contextmanager
def _run_stopped(again: str) -> Iterator[None]:
    """A run that stops early ends in one line saying what is kept and how to go on (`again`)."""
    from arena.executor.cluster import ClusterError, ClusterLost
    from arena.hosts.inline import RefereeFailure
    from arena.tournament.errors import TournamentError
    from arena.tournament.run.runner import Interrupted

    try:
        yield
    except Interrupted as stop:
        click.echo(f"arena: {stop}; to play the rest: {again}", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except KeyboardInterrupt:  # after the games, while writing the tables
        click.echo("arena: interrupted; every game is saved, run again with --resume", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except RefereeFailure as exc:
        referee_failed(str(exc), f"the games in games.jsonl are kept; once fixed: {again}")
    except ClusterLost as exc:
        lost(str(exc), f"the games in games.jsonl are kept; to play the rest: {again}")
    except (ClusterError, TournamentError) as exc:
        fail(str(exc))


def _say_after(report: RunReport, quiet: bool) -> None:
    """The standings, then what the run found: warnings, grades, an elimination's ranking."""
    click.echo(report.standings, nl=False)
    for warning in report.warnings:  # even with --quiet: these entrants can only fail
        click.echo(f"arena: warning: {warning}", err=True)
    if report.grades:
        click.echo("\n" + "".join(f"grade: {line}\n" for line in report.grades), nl=False)
    if report.ranking:
        click.echo(
            "\nelimination: "
            + ", ".join(f"{place}. {name}" for place, name in enumerate(report.ranking, 1))
        )
    if not quiet:
        _note(f"results in {_shown(report.folder)}/ (open report.html to see them)")


def _refuse_broken(tried: Tried) -> tuple[Resolved, ...]:
    """Each entrant with its card; or every entrant's reason it cannot play, one line each
    (a bot entered twice once), and exit 2."""
    errors = list(dict.fromkeys(t for t in tried if isinstance(t, ConfigError)))
    for error in errors:
        click.echo(f"arena: error: {error}", err=True)
    if errors:
        sys.exit(2)
    return tuple(t for t in tried if not isinstance(t, ConfigError))


def _without_broken(cfg: TournamentConfig, tried: Tried, out: str | None, *, resume: bool,
                    skip: bool) -> tuple[TournamentConfig, tuple[BotCard | None, ...],
                                         tuple[LeftOut, ...]]:
    """The tournament to play, its entrants' cards and whom it leaves out: on a resume, whom
    its folder's run was started without, whatever their dry runs say now; else, with
    --skip-broken, every entrant that fails its dry run, each told on stderr. Any other
    broken entrant stops the run (exit 2), as does too few left to play."""
    from arena.rules import get_rules
    from arena.tournament.errors import TournamentError
    from arena.tournament.run.skipped import LeftOut, recorded, results_folder, without

    try:
        left = recorded(results_folder(cfg, out)) if resume else None
        if left is None:
            left = tuple(LeftOut.of(e.name, f"{t.key}: {t.message}")
                         for e, t in zip(cfg.entrants, tried, strict=True)
                         if skip and isinstance(t, ConfigError))
        gone = {entry.name for entry in left}
        kept = [t for e, t in zip(cfg.entrants, tried, strict=True) if e.name not in gone]
        cards = tuple(e.card for e in _refuse_broken(tuple(kept)))
        played = without(cfg, left, get_rules(cfg.rules).min_players)
    except TournamentError as exc:
        fail(str(exc))
        raise  # unreachable: fail exits
    for entry in left:  # even with --quiet: not the tournament the config asks for
        if entry.name in {e.name for e in cfg.entrants}:
            _note(f"left out {entry.name!r} (its dry run: {entry.reason})")
    return played, cards, left


def _live_report(every: float) -> Callable[[Path, Tally], object]:
    """Rebuild report.html from the games so far, marked in progress; one process reads
    the replays, so the workers keep the cores."""
    from arena.report.html import build_report
    from arena.report.live import Live

    def rebuild(folder: Path, tally: Tally) -> None:
        made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        build_report(folder, workers=1, live=Live(tally.done, tally.planned, made, every))

    return rebuild


def _note(message: str) -> None:
    click.echo(f"arena: {message}", err=True)


def _shown(folder: Path) -> str:
    return str(folder).rstrip("/")
