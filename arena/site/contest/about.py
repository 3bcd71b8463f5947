"""What the contest page says: the rules (arena's own primer and `help rules` for the config's
rule set and options, never a second copy), what a participant's bot plays (the ladder or
the class's gauntlet, from the config), and the season's state from its heartbeat."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

from arena.primer import primer, rules_help
from arena.rules import get_rules
from arena.site.contest.contest import Contest
from arena.site.contest.models import Season, Version

__all__ = ["STALE", "Rules", "SeasonState", "format_lines", "rules", "season_state"]

STALE = timedelta(minutes=2)
"""A season process silent this long has stopped (it beats between batches, far more often)."""
PENDING = (Version.Status.RECEIVED, Version.Status.CHECKING, Version.Status.WAITING)
"""Uploads the season has still to check or to play their validation deal."""
LADDER_DEFAULTS = {"min_games": 20, "batch": 8, "band": 4}
"""The ladder's defaults (docs/ladder.md) where the config leaves them."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The rules as arena tells them: how a game goes, then every claim and the options."""

    rules: str
    game: tuple[str, ...]
    details: str


def _items(lines: list[str]) -> tuple[str, ...]:
    """The primer's wrapped lines joined back into its sentences."""
    items: list[str] = []
    for line in lines:
        if line.startswith("    ") and items:
            items[-1] += " " + line.strip()
        else:
            items.append(line.strip())
    return tuple(items)


def rules(contest: Contest) -> Rules:
    """The config's rule set, in the primer's and `help rules`'s own words."""
    ruleset = get_rules(contest.config.rules)
    options = contest.config.options
    told = primer(ruleset, options)
    full = rules_help(ruleset, options)
    return Rules(contest.config.rules, _items(told[1:]), "\n".join(full[len(told):]))


def format_lines(contest: Contest) -> list[str]:
    """What a participant's bot plays, from the config."""
    form = contest.config.format
    if contest.graded:
        champions = ", ".join(form.champions)
        deals = f"{form.games} deal{'s' * (form.games != 1)}"
        lines = [(f"Each version of your bot plays {deals} against each of {champions}, at "
                  f"{form.seats} seats, each deal at every seat rotation.")]
        lines += [f"{grade}: it beat {bot} and every lower grade's bot (its score against "
                  "it above one half at 95% confidence)." for grade, bot in
                  contest.config.grades]
        return lines
    value = {key: getattr(form, key) or default for key, default in LADDER_DEFAULTS.items()}
    return [
        (f"A ladder: your bot plays games of {form.seats} seats against bots near its "
         f"rating, {value['batch']} tables a batch; the top {value['band']} must meet."),
        (f"It is ranked after {value['min_games']} games (provisional until then), by a "
         "rating with its 95% interval."),
        ("Each upload of new bytes is a new version: it first plays a validation deal "
         "against honest at every seat rotation. A fault there rejects it, and your version "
         "before it stays in the ranking."),
    ]


@dataclass(frozen=True, slots=True)
class SeasonState:
    """The season as the page shows it: a word, a sentence, and whether matches are stuck."""

    state: str
    text: str
    stuck: bool = False


def _ago(moment: datetime) -> str:
    seconds = int((timezone.now() - moment).total_seconds())
    return f"{seconds} s ago" if seconds < 120 else f"{seconds // 60} min ago"


def season_state() -> SeasonState:
    """Running, idle, stopped or closed, from the season process's heartbeat; uploads
    waiting with no process beating are `matches stuck`."""
    season = Season.current()
    pending = Version.objects.filter(status__in=PENDING).count()
    if season.closed:
        return SeasonState("closed", "The season is closed: no more games are played.")
    beat = season.heartbeat
    if beat is None or timezone.now() - beat > STALE:
        heard = "has not started" if beat is None else f"was last heard {_ago(beat)}"
        if pending:
            return SeasonState("stuck", f"Matches stuck: {pending} upload(s) wait, and the "
                               f"season process {heard}. The organiser is needed.", True)
        return SeasonState("stopped", f"Stopped: the season process {heard}.")
    if pending or season.status:
        doing = season.status or f"{pending} upload(s) to check"
        return SeasonState("running", f"Running ({_ago(beat)}): {doing}.")
    return SeasonState("idle", f"Idle ({_ago(beat)}): waiting for new uploads.")
