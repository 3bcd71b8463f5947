"""A class (a gauntlet config with grades): instead of a ladder, the config's own students
play it once as the demo class (results/, so the site shows games at once), and each
student's newest passed version plays the config's gauntlet against the champions with the
one runner into results/<name>-versions/<bot>@<n>/ (Contest.gauntlet: beside the demo's
folder, not inside it; its games.jsonl, grades.json, ratings), one
gauntlet a turn, resumed where a kill cut it.

It guarantees that a version's games are indexed once its gauntlet is whole, in one
transaction with its status (ids prefixed `<bot>@<n>-`, so unique site-wide), and that a
newer version retires the one before it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from django.db import transaction

from arena.site.contest.contest import Contest
from arena.site.contest.models import Season, Version
from arena.site.season.checks import check_received
from arena.site.season.entrants import wanted
from arena.site.season.heart import Pulse
from arena.site.season.index import index_games, new_lines, record_games
from arena.site.season.loop import Turn
from arena.site.season.unpacked import placed
from arena.tournament.config import TournamentConfig
from arena.tournament.formats.registry import plan_for
from arena.tournament.run import results as folder_files
from arena.tournament.run.progress import Tally
from arena.tournament.run.runner import run_tournament

if TYPE_CHECKING:
    from arena.executor.dial import Cluster

__all__ = ["class_turn", "gauntlet_config", "version_folder"]

Status = Version.Status


def class_turn(contest: Contest, level: str, *, workers: int = 1,
               cluster: Cluster | None = None) -> Turn:
    """One turn of a class: checks, the demo class until whole, then one version's gauntlet."""
    turn = Turn()
    turn.checked, turn.trouble = check_received(contest, level)
    cfg = contest.config.at_isolation(level)
    if not whole(cfg, contest.results):
        pulse = Pulse("the demo class", lambda: (index_games(contest.results), 0))
        _play(cfg, contest.results, workers, cluster, pulse, tables=TABLES)
        turn.indexed = pulse.indexed
    turn.indexed += index_games(contest.results)
    for version in wanted().values():
        if version.status == Status.WAITING:
            turn.indexed += gauntlet(contest, cfg, version, workers, cluster)
            break
    return turn


TABLES = 15.0
"""Seconds at least between two writings of the demo class's tables (grades.json among
them) while it plays, so the leaderboard shows its students' games as they land."""


def whole(cfg: TournamentConfig, folder: Path) -> bool:
    """Whether the tournament is played to its end in its folder: its grades written and
    every game of its plan in games.jsonl (tables written mid-run are not an end)."""
    if not (folder / folder_files.GRADES).exists():
        return False
    return folder_files.count_lines(folder / folder_files.GAMES) >= plan_for(cfg).total()


def _play(cfg: TournamentConfig, folder: Path, workers: int, cluster: Cluster | None,
          pulse: Pulse, tables: float | None = None) -> None:
    """The whole tournament into its folder, resumed where a kill cut it, the season's
    heart beating while it plays (and its tables written every `tables` seconds)."""
    started = (folder / folder_files.CONFIG).exists()
    run_tournament(cfg, folder, workers=workers, resume=started, cluster=cluster,
                   progress=pulse, during=None if tables is None else _nothing, refresh=tables)


def _nothing(folder: Path, tally: Tally) -> None:
    """A refresh of the tables only (no live report: the site is the report)."""


def version_folder(contest: Contest, version: Version) -> Path:
    """Where a version's gauntlet is played: results/<name>-versions/<bot>@<n>/."""
    return contest.gauntlet(f"{version.bot.name}@{version.number}")


def gauntlet_config(contest: Contest, cfg: TournamentConfig, version: Version) -> TournamentConfig:
    """The config's gauntlet with this version as its one student (its stored bytes in the
    data folder, a file, bot folder or command bot named by its bot, kept per version so a
    resume finds it)."""
    player = f"{version.bot.name}@{version.number}"
    student = placed(contest, version, contest.entries / player / version.bot.name)
    champions = set(cfg.format.champions) | {bot for _, bot in cfg.grades}
    student = replace(student, mode=student.mode or cfg.mode, isolation=cfg.isolation,
                      start_timeout=cfg.start_timeout)
    return replace(cfg, output=None,
                   entrants=(*(e for e in cfg.entrants if e.name in champions), student))


def gauntlet(contest: Contest, cfg: TournamentConfig, version: Version, workers: int,
             cluster: Cluster | None) -> int:
    """Play (or finish) one version's gauntlet and index it whole; its games' count."""
    folder = version_folder(contest, version)
    player = f"{version.bot.name}@{version.number}"
    _play(gauntlet_config(contest, cfg, version), folder, workers, cluster,
          Pulse(f"the gauntlet of {player}"))
    games, _ = new_lines(folder / folder_files.GAMES, 0)
    with transaction.atomic():
        record_games(games, {player: version}, prefix=f"{player}-",
                     names={version.bot.name: player})
        season = Season.current()
        Season.objects.filter(pk=season.pk).update(
            games_indexed=season.games_indexed + len(games))
        (Version.objects.filter(bot=version.bot, status__in=(Status.ACTIVE, Status.WAITING))
         .exclude(pk=version.pk).update(status=Status.RETIRED))
        Version.objects.filter(pk=version.pk).update(status=Status.ACTIVE, player=player)
    return len(games)
