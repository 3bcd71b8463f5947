"""A bot's pages: the public page (its rating, rank, record against each opponent and recent
games), and for its owner and the staff only the versions with their checklists, the faults
with the bot's own stderr and traceback lines, and each game as its seat saw it.

Another participant's private page answers 404, exactly as a bot or game that does not
exist, so no name or game id can be probed; the public page holds none of the private part.
Everything a bot controls is escaped by the templates, never marked safe.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from arena.replay import ReplayError
from arena.report.story import story
from arena.site.contest import bot_data
from arena.site.contest.contest import current
from arena.site.contest.grades import version_grades
from arena.site.contest.models import Bot, Season, Version
from arena.site.contest.visibility import hides_from

__all__ = ["bot_game", "bot_page", "bot_versions", "my_bots", "reveal_allows"]

REVEALS = ("game", "season", "never")
"""When an owner may see a game with every die and card shown: once it is over, once the
season is closed, or never (ARENA_SITE_REVEAL)."""


def _bot(name: str) -> Bot:
    """The bot of that name (case-folded, as names are unique), or 404."""
    bot = Bot.objects.filter(key=name.casefold()).select_related("owner").first()
    if bot is None:
        raise Http404("no such bot")
    return bot


def _sees_private(request: HttpRequest, bot: Bot) -> bool:
    """The bot's owner and the staff see its private part; no one else."""
    user = request.user
    return bool(user.is_authenticated and (user.pk == bot.owner_id or user.is_staff))


def _private_bot(request: HttpRequest, name: str) -> Bot:
    """The bot, for its owner or the staff; 404 for everyone else, as for no bot at all."""
    bot = _bot(name)
    if not _sees_private(request, bot):
        raise Http404("no such bot")
    return bot


def reveal_allows() -> bool:
    """Whether the organiser's policy shows an owner its finished games in full."""
    policy = getattr(settings, "ARENA_SITE_REVEAL", "game")
    if policy == "game":
        return True
    return policy == "season" and Season.current().closed


def _versions(bot: Bot) -> list[Version]:
    return list(bot.versions.order_by("-number"))


def bot_page(request: HttpRequest, name: str) -> HttpResponse:
    """The bot's public page, with its private part for its owner and the staff; in a class
    that hides its results, only theirs (404 for the others, as for no bot at all)."""
    bot = _bot(name)
    if hides_from(request.user) and not _sees_private(request, bot):
        raise Http404("no such bot")
    contest = current()
    active = bot.versions.filter(status=Version.Status.ACTIVE).order_by("-number").first()
    ranking = bot_data.ranking(contest)
    context: dict[str, Any] = {
        "bot": bot, "active": active,
        "standing": ranking.get(active.entrant) if active is not None else None,
        "grade": version_grades(contest, active) if contest.graded and active else None,
        "played": bot_data.seats_of(bot).filter(game__voided=False).count(),
        "record": bot_data.record(bot), "recent": bot_data.recent(bot),
        "private": _sees_private(request, bot),
    }
    if context["private"]:
        context |= {"versions": _versions(bot), "faults": bot_data.faults(contest, bot)}
    return render(request, "contest/bot.html", context)


def bot_versions(request: HttpRequest, name: str) -> HttpResponse:
    """The versions and their status, polled by the owner's page while checks run."""
    bot = _private_bot(request, name)
    return render(request, "contest/bot_versions.html", {"bot": bot, "versions": _versions(bot)})


def bot_game(request: HttpRequest, name: str, game_id: str) -> HttpResponse:
    """One of the bot's games as its seat saw it (or in full, when the policy allows)."""
    bot = _private_bot(request, name)
    seat = (bot_data.seats_of(bot).filter(game__game_id=game_id)
            .select_related("game", "version").order_by("seat").first())
    if seat is None:
        raise Http404("no such game of this bot")
    full = request.GET.get("view") == "all" and reveal_allows()
    try:
        lines = story(bot_data.replay_of(current(), seat), None if full else seat.seat)
        problem = ""
    except ReplayError as exc:
        lines, problem = [], str(exc)
    return render(request, "contest/bot_game.html", {
        "bot": bot, "seat": seat, "lines": lines, "problem": problem, "full": full,
        "can_reveal": reveal_allows()})


@login_required
def my_bots(request: HttpRequest) -> HttpResponse:
    """The signed-in participant's bots: each one's newest version, its status, and the
    newest problem any of its versions had."""
    rows = []
    for bot in Bot.objects.filter(owner_id=request.user.pk).prefetch_related("versions"):
        versions = sorted(bot.versions.all(), key=lambda v: -v.number)
        problem = next((v.problem for v in versions if v.problem), "")
        rows.append((bot, versions[0] if versions else None, problem))
    rows.sort(key=lambda row: row[0].key)
    return render(request, "contest/my_bots.html", {"rows": rows})
