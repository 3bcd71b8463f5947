"""The contest's public pages: the contest page and its starter kit, the live leaderboard, the
games list and one game with arena's replay viewer. They read the results folder and the
games index; they never play, write, or open a path a request names."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_safe

from arena.site.contest import about, replays
from arena.site.contest.board import board
from arena.site.contest.contest import current
from arena.site.contest.csp import HEADER
from arena.site.contest.models import Game
from arena.site.contest.starter import starter_kit
from arena.site.contest.visibility import full_view, hides_from, own_bots
from arena.tournament.run import safe_read

__all__ = ["game", "game_chances", "game_next_pack", "game_pack", "game_rules", "game_viewer",
           "games", "home", "kit", "leaderboard", "leaderboard_rows"]

GAMES_A_PAGE = 50
SCRIPT = "text/javascript; charset=utf-8"


def _site(request: HttpRequest) -> str:
    """This site's address as a participant's `arena submit` reaches it."""
    return request.build_absolute_uri("/").rstrip("/")


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """The contest page: rules, format, deadline, how to write a bot, the season's state."""
    contest = current()
    about_text = [part.strip() for part in str(settings.ARENA_SITE_ABOUT).split("\n\n")
                  if part.strip()]
    return render(request, "contest/home.html", {
        "rules": about.rules(contest), "format_lines": about.format_lines(contest),
        "deadline": settings.ARENA_SITE_DEADLINE, "about": about_text,
        "season": about.season_state(), "site": _site(request),
    })


@require_safe
def kit(request: HttpRequest) -> HttpResponse:
    """/starter-kit.zip: a bot that plays, a README with this site's commands, the rules."""
    response = HttpResponse(starter_kit(current(), _site(request)),
                            content_type="application/zip")
    response["Content-Disposition"] = 'attachment; filename="starter-kit.zip"'
    return response


def _board(request: HttpRequest) -> dict[str, Any]:
    hidden = hides_from(request.user)
    mine = own_bots(request.user)
    return {"board": board(current(), mine if hidden else None), "hidden": hidden,
            "mine": mine}


@require_safe
def leaderboard(request: HttpRequest) -> HttpResponse:
    """The live leaderboard: rows refreshed by htmx from /leaderboard/rows."""
    return render(request, "contest/leaderboard.html", _board(request))


@require_safe
def leaderboard_rows(request: HttpRequest) -> HttpResponse:
    """The leaderboard's rows alone, what htmx swaps in every few seconds."""
    response = render(request, "contest/leaderboard_rows.html", _board(request))
    response["Cache-Control"] = "no-store"
    return response


def _games(request: HttpRequest) -> QuerySet[Game]:
    """The games this reader may see: every game, or in a class that hides results only
    those one of their bots sat in."""
    found = Game.objects.all()
    if hides_from(request.user) and not request.user.is_authenticated:
        found = Game.objects.none()  # an owner of None would match every house bot's seat
    elif hides_from(request.user):
        found = found.filter(seats__version__bot__owner_id=request.user.pk).distinct()
    return found.prefetch_related("seats")


@require_safe
def games(request: HttpRequest) -> HttpResponse:
    """The games played, newest first, a page at a time."""
    page = Paginator(_games(request), GAMES_A_PAGE).get_page(request.GET.get("page"))
    return render(request, "contest/games.html", {"page": page, "hidden":
                                                  hides_from(request.user)})


def _game(request: HttpRequest, game_id: str) -> Game:
    """The game, or 404 (unknown, or hidden from this reader: the same answer)."""
    return get_object_or_404(_games(request), game_id=game_id)


@require_safe
def game(request: HttpRequest, game_id: str) -> HttpResponse:
    """One game: its seats and result, and the viewer when the reveal policy allows."""
    found = _game(request, game_id)
    shown, when = full_view(request.user)
    return render(request, "contest/game.html", {
        "game": found, "seats": sorted(found.seats.all(), key=lambda s: s.seat),
        "shown": shown, "when": when,
    })


def _revealed(request: HttpRequest, game_id: str) -> Game:
    """The game whose full view this reader may have; 404 otherwise (no oracle)."""
    found = _game(request, game_id)
    if not full_view(request.user)[0]:
        raise Http404("no full view of this game")
    return found


@require_safe
@xframe_options_sameorigin
def game_viewer(request: HttpRequest, game_id: str) -> HttpResponse:
    """arena's replay viewer for one game (framed by the game page, or on its own)."""
    _revealed(request, game_id)
    page = replays.viewer(reverse("games"))
    response = HttpResponse(page.html)
    response[HEADER] = page.csp
    return response


@require_safe
def game_rules(request: HttpRequest, game_id: str) -> HttpResponse:
    """viewer-rules.js beside the viewer: the contest's rule set."""
    _revealed(request, game_id)
    return HttpResponse(replays.rules_for(current()), content_type=SCRIPT)


def _replay(request: HttpRequest, game_id: str) -> tuple[Game, replays.Replay]:
    found = _revealed(request, game_id)
    try:
        return found, replays.read_replay(current(), found)
    except safe_read.Unreadable as exc:
        raise Http404(f"the replay of {found.game_id} cannot be read: {exc}") from None


@require_safe
def game_pack(request: HttpRequest, game_id: str) -> HttpResponse:
    """replays/pack-00000.js beside the viewer: this game's replay, and no other."""
    found, replay = _replay(request, game_id)
    return HttpResponse(replay.pack(found.game_id), content_type=SCRIPT)


@require_safe
def game_chances(request: HttpRequest, game_id: str) -> HttpResponse:
    """replays/chances/pack-00000.js: the game's id and its claims' chances."""
    found, replay = _replay(request, game_id)
    return HttpResponse(replay.chances(found.game_id), content_type=SCRIPT)


@require_safe
def game_next_pack(request: HttpRequest, game_id: str) -> HttpResponse:
    """replays/chances/pack-00001.js: no pack after this game's own (replays.NO_NEXT_PACK)."""
    _revealed(request, game_id)
    return HttpResponse(replays.NO_NEXT_PACK, content_type=SCRIPT)
