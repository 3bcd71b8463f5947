"""A seat played in the browser against one of arena's bots (`/play`, `/play/<id>`): what
`arena play --bots BOT,human` does in a terminal, with the same texts (arena.human,
arena.primer). The game is played again from its seed and the person's moves at every request
(arena.site.contest.seat); nothing of it is ever counted in a ranking or written to the
results folder. A finished game opens in arena's own replay viewer, every die shown."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.middleware import HtmxDetails

from arena.human import HELP_WORDS, asks_rules, example_texts, help_lines, view_lines
from arena.primer import primer, rules_help
from arena.report.viewer import rules_script
from arena.rules import get_rules
from arena.site.contest import replays
from arena.site.contest.contest import current
from arena.site.contest.csp import HEADER
from arena.site.contest.models import HumanGame
from arena.site.contest.seat import Position, ReplayError, Table, opponents, play, replay_bytes

MOVE_CHARS = 200
"""The longest move a person types (the longest legal one is a few dozen characters)."""
SEED_BITS = 63
"""A game's seed: any the replay format and the database's bigint hold."""


class HtmxHttpRequest(HttpRequest):
    """A request as django-htmx's middleware leaves it (`request.htmx`)."""

    htmx: HtmxDetails


def _games_per_hour() -> int:
    return int(getattr(settings, "GAMES_PER_HOUR", 30))


def _person(request: HttpRequest) -> User:
    """The signed-in person (login_required turned everyone else away)."""
    if not isinstance(request.user, User):
        raise PermissionDenied("sign in to play")
    return request.user


def _table(game: HumanGame) -> Table:
    """The game's terms: its rule set, the contest's options, its bot and seed."""
    return Table(game.rules, dict(current().config.options), game.opponent, game.seed)


def _choices() -> tuple[str, ...]:
    """The bots a person may play under the contest's rules and options."""
    config = current().config
    return opponents(config.rules, tuple(sorted(dict(config.options).items())))


@login_required
@require_http_methods(["GET", "POST"])
def new_game(request: HttpRequest) -> HttpResponse:
    """Choose a bot and start a game of the contest's rules against it."""
    choices = _choices()
    if request.method == "GET":
        return _choose(request, choices)
    opponent = request.POST.get("opponent", "")
    if opponent not in choices:
        return _choose(request, choices, f"{opponent[:40]!r} is not a bot you can play here "
                                         f"(choose one of: {', '.join(choices)})", 400)
    since = timezone.now() - timedelta(hours=1)
    if HumanGame.objects.filter(user=_person(request), created__gte=since).count() \
            >= _games_per_hour():
        return HttpResponse(f"at most {_games_per_hour()} games an hour: try again later\n",
                            status=429, content_type="text/plain; charset=utf-8")
    game = HumanGame.objects.create(user=_person(request), opponent=opponent,
                                    rules=current().config.rules,
                                    seed=secrets.randbits(SEED_BITS))
    return redirect("play-game", game_id=game.pk)


def _choose(request: HttpRequest, choices: tuple[str, ...], problem: str = "",
            status: int = 200) -> HttpResponse:
    """The page that starts a game: the bots, the rules in force, the games left."""
    config = current().config
    ruleset = get_rules(config.rules)
    house = [name for name in choices if name in {e.bot for e in config.entrants}]
    return render(request, "contest/play.html", {
        "choices": choices, "house": house, "problem": problem,
        "primer": "\n".join(primer(ruleset, config.options)),
        "games": HumanGame.objects.filter(user=_person(request)).order_by("-created")[:20],
    }, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def game_page(request: HtmxHttpRequest, game_id: int) -> HttpResponse:
    """The game from the person's seat; a POST is their move."""
    game = get_object_or_404(HumanGame, pk=game_id, user=_person(request))
    text = request.POST.get("move", "").strip()[:MOVE_CHARS] if request.method == "POST" \
        else ""
    try:
        position = play(_table(game), game.moves, _as_move(text))
    except ReplayError as exc:
        return HttpResponse(f"this game cannot be played again: {exc}\n", status=410,
                            content_type="text/plain; charset=utf-8")
    moved = request.method == "POST" and position.refused is None and bool(text)
    if moved and not _store(game, position):
        position = play(_table(game), game.moves)  # another tab moved first: show it
    status = 400 if position.refused and not request.htmx else 200  # htmx swaps only a 200
    template = "contest/play_board.html" if request.htmx else "contest/play_game.html"
    return render(request, template, _board(game, position, text), status=status)


def _as_move(text: str) -> str | None:
    """The person's line as a move; none for an empty line or a request for help (the page
    always shows the help and the rules)."""
    if not text or text.lower() in HELP_WORDS or asks_rules(text):
        return None
    return text


def _store(game: HumanGame, position: Position) -> bool:
    """Keep the move just taken, unless the game moved on since it was read (two tabs)."""
    with transaction.atomic():
        row = HumanGame.objects.select_for_update().get(pk=game.pk)
        if row.moves != game.moves:
            game.moves = row.moves
            return False
        row.moves, row.finished = list(position.moves), position.over
        row.save(update_fields=["moves", "finished"])
    game.moves, game.finished = row.moves, row.finished
    return True


def _board(game: HumanGame, position: Position, typed: str) -> dict[str, Any]:
    """What the board shows: the game as the person's seat saw it, their decision, choices and
    help, or the result and the replay's link."""
    table, obs = position.table, position.observation
    ruleset = get_rules(table.rules)
    sof = bool(table.options.get("straight_over_full", False))
    context: dict[str, Any] = {
        "game": game, "position": position, "seat": table.seat, "lines": position.lines,
        "refused": position.refused, "typed": typed if position.refused else "",
        "primer": "\n".join(primer(ruleset, table.options)),
        "rules": "\n".join(rules_help(ruleset, table.options)),
    }
    if obs is not None:
        context.update(view=view_lines(obs, ruleset.description),
                       help=help_lines(obs, sof, ruleset.description, stop=""),
                       examples=example_texts(obs))
    else:
        context.update(result=position.result, viewer=_viewer_link(game))
    return context


# --- the finished game in arena's replay viewer ---------------------------------------------

def _finished(request: HttpRequest, game_id: int) -> tuple[HumanGame, Position]:
    """The person's own finished game, played again; anyone else's, or one not over: 404."""
    game = get_object_or_404(HumanGame, pk=game_id, user=_person(request))
    try:
        position = play(_table(game), game.moves)
    except ReplayError:
        raise Http404("this game cannot be played again") from None
    if not position.over:
        raise Http404("the game is not over: its replay would show the bot's dice")
    return game, position


def _game_id(game: HumanGame) -> str:
    return f"play-{game.pk}"


def _viewer_link(game: HumanGame) -> str:
    return (reverse("play-viewer", kwargs={"game_id": game.pk})
            + f"#game={_game_id(game)}&pack=0")


@login_required
@require_GET
def viewer(request: HttpRequest, game_id: int) -> HttpResponse:
    """arena's replay viewer, its back link to the game's page."""
    game, _ = _finished(request, game_id)
    page = replays.viewer(reverse("play-game", kwargs={"game_id": game.pk}), "The game")
    response = HttpResponse(page.html)
    response[HEADER] = page.csp
    return response


@login_required
@require_GET
def viewer_rules(request: HttpRequest, game_id: int) -> HttpResponse:
    """The rule set's description, as the viewer reads it beside itself."""
    game, _ = _finished(request, game_id)
    return _script(rules_script(get_rules(game.rules).description).encode())


@login_required
@require_GET
def viewer_pack(request: HttpRequest, game_id: int) -> HttpResponseBase:
    """The game's replay as the viewer's one pack."""
    game, position = _finished(request, game_id)
    raw = replay_bytes(position, _game_id(game), current().name)
    return _script(replays.Replay.of(raw).pack(_game_id(game)))


@login_required
@require_GET
def viewer_chances(request: HttpRequest, game_id: int) -> HttpResponseBase:
    """The chance each claim held, as the viewer charts it."""
    game, position = _finished(request, game_id)
    raw = replay_bytes(position, _game_id(game), current().name)
    return _script(replays.Replay.of(raw).chances(_game_id(game)))


@login_required
@require_GET
def viewer_next_pack(request: HttpRequest, game_id: int) -> HttpResponseBase:
    """No pack after the game's own, where the viewer looks for a next game."""
    _finished(request, game_id)
    return _script(replays.NO_NEXT_PACK)


def _script(body: bytes) -> HttpResponse:
    return HttpResponse(body, content_type="text/javascript; charset=utf-8")
