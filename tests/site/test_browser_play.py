"""A seat played in the browser (`/play`): a whole game against a bot through the pages, the
same game from the same seed and moves, the owner's alone, arena's own words for a bad move,
CSRF, the rate limit, and never a die of the bot's before the game is over."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from arena.human import example_texts, take
from arena.narrative import Narrator
from arena.referee import ActionEntry
from arena.rules.base import Observation
from arena.site.contest.contest import Contest
from arena.site.contest.models import Game, HumanGame
from arena.site.contest.seat import Table, play

BUTTON = re.compile(r'<button name="move" value="([^"]*)">')
HTMX = {"HTTP_HX_REQUEST": "true"}


def csrf(client: Client) -> dict[str, str]:
    """The header a page's htmx sends: the CSRF cookie's token."""
    if "csrftoken" not in client.cookies:
        client.get("/play")
    return {"HTTP_X_CSRFTOKEN": client.cookies["csrftoken"].value}


def start(client: Client, opponent: str = "honest", seed: int | None = None) -> HumanGame:
    """Start a game from the /play page as a browser does; the new game's row, its seed set
    to `seed` when given (the person's seat is the seed's parity), so a test is one game."""
    response = client.post("/play", {"opponent": opponent}, **csrf(client))
    assert response.status_code == 302, response.content
    game = HumanGame.objects.latest("pk")
    assert response["Location"] == f"/play/{game.pk}"
    if seed is not None:
        HumanGame.objects.filter(pk=game.pk).update(seed=seed)
        game.refresh_from_db()
    return game


def choose(page: str) -> str:
    """The scripted person: calls whenever it may, rerolls nothing, else bids the lowest
    legal claim (the first of the page's buttons that claims)."""
    buttons = [html.unescape(value) for value in BUTTON.findall(page)]
    for wanted in ("challenge", "reroll none"):
        if wanted in buttons:
            return wanted
    return next(b for b in buttons if b.startswith("claim"))


def play_through(client: Client, game: HumanGame, each: Any = None) -> str:
    """Play the game to its end through the page's board (htmx posts); the last board."""
    page = client.get(f"/play/{game.pk}").content.decode()
    for _ in range(500):
        if each is not None:
            each(page)
        if "<h2>Result</h2>" in page:
            return page
        response = client.post(f"/play/{game.pk}", {"move": choose(page)}, **HTMX, **csrf(client))
        assert response.status_code == 200
        page = response.content.decode()
        assert 'role="alert"' not in page, page
    raise AssertionError("the game did not end in 500 moves")


def test_a_whole_game_against_honest_through_the_pages(signed_in: Client,
                                                         contest: Contest) -> None:
    page = signed_in.get("/play").content.decode()
    assert 'value="honest"' in page and "how a game goes" in page
    game = start(signed_in, seed=20240606)
    first = signed_in.get(f"/play/{game.pk}").content.decode()
    for said in ("you may: ", "claim ladder: ", "you decide: ", "every claim, lowest first",
                 "options in force:", "how a game goes"):  # arena's help, as at the prompt
        assert said in first
    assert "Ctrl-D" not in first  # a terminal's way to stop: no such thing here
    board = play_through(signed_in, game)
    assert board.startswith('<div id="board">')  # the htmx partial, not a whole page
    game.refresh_from_db()
    assert game.finished and game.moves
    assert re.search(r"1st  seat \d \((you|honest)\)", board)
    link = html.unescape(re.search(r'<a href="([^"]*viewer.html[^"]*)"', board)[1])
    assert link == f"/play/{game.pk}/viewer.html#game=play-{game.pk}&pack=0"
    viewer = signed_in.get(link.partition("#")[0]).content.decode()
    assert f'href="/play/{game.pk}" target="_top">← The game' in viewer
    pack = signed_in.get(f"/play/{game.pk}/replays/pack-00000.js").content.decode()
    assert f'ARENA_REPLAY["play-{game.pk}"]=' in pack
    chances = signed_in.get(f"/play/{game.pk}/replays/chances/pack-00000.js")
    assert chances.status_code == 200 and b"ARENA_CHANCES" in chances.content
    assert signed_in.get(f"/play/{game.pk}/viewer-rules.js").status_code == 200
    again = signed_in.post(f"/play/{game.pk}", {"move": "challenge"}, **csrf(signed_in))
    assert "the game is over" in again.content.decode()
    assert Game.objects.count() == 0  # never in the games index
    assert not (contest.results / "games.jsonl").exists()  # nor in the season's results


def test_the_same_seed_and_moves_give_the_same_game() -> None:
    table = Table("dice", {"max_points": 2}, "random", 20240607)  # random: its own rng
    moves: list[dict[str, Any]] = []
    position = play(table, moves)
    while position.observation is not None:
        obs = position.observation
        text = "challenge" if obs.legal.problem(take("challenge", obs)) is None else \
            "reroll 1 2" if obs.decision == "reroll" else f"claim {obs.min_claim}"
        position = play(table, position.moves, text)
    first = play(table, position.moves)
    second = play(table, position.moves)
    assert first.record is not None and second.record is not None
    assert first.lines == second.lines == position.lines
    assert timeless(first.record.log) == timeless(second.record.log)
    other = play(Table("dice", {"max_points": 2}, "random", 20240608), [])
    assert other.lines != play(table, []).lines  # the seed makes the game


@pytest.mark.parametrize("rules", ["dice", "dice-cards", "cards"])
def test_every_rule_set_is_played_to_its_end(rules: str) -> None:
    """`cards` is for 3 to 6 players: the bot takes every seat but the person's."""
    table = Table(rules, {}, "honest", 5)
    assert table.names.count("you") == 1 and len(table.names) == (3 if rules == "cards" else 2)
    position = play(table, [])
    while position.observation is not None:
        assert position.observation.seat == table.seat
        position = play(table, position.moves, example_texts(position.observation)[0])
        assert position.refused is None
    assert position.record is not None and position.result
    assert [p.name for p in position.record.players] == list(table.names)


def timeless(log: Any) -> list[Any]:
    """A game's log without the seconds each decision took."""
    return [(e.seat, e.action) if isinstance(e, ActionEntry) else e for e in log]


def test_another_users_game_is_404(signed_in: Client, bob: User) -> None:
    game = start(signed_in)
    play_through(signed_in, game)
    other = Client(enforce_csrf_checks=True)
    other.force_login(bob)
    for path in ("", "/viewer.html", "/viewer-rules.js", "/replays/pack-00000.js",
                 "/replays/chances/pack-00000.js"):
        assert other.get(f"/play/{game.pk}{path}").status_code == 404
    before = HumanGame.objects.get(pk=game.pk).moves
    assert other.post(f"/play/{game.pk}", {"move": "challenge"},
                      **csrf(other)).status_code == 404
    assert HumanGame.objects.get(pk=game.pk).moves == before
    assert Client().get(f"/play/{game.pk}")["Location"].startswith("/login/")
    assert Client().get("/play")["Location"].startswith("/login/")


def illegal(obs: Observation) -> str:
    """A move that reads well but is not legal at this decision."""
    return next(text for text in ("challenge", "reroll 0 1", "accept")
                if isinstance(take(text, obs), str))


@pytest.mark.parametrize("seed", [10, 11])  # the person throws first, or answers first
@pytest.mark.parametrize("text", ["xyz", "pair", "illegal"])
def test_an_illegal_move_is_refused_with_arenas_own_message(signed_in: Client, text: str,
                                                              seed: int) -> None:
    game = start(signed_in, seed=seed)
    table = Table(game.rules, {"max_points": 2}, game.opponent, game.seed)
    obs = play(table, []).observation
    assert obs is not None
    text = illegal(obs) if text == "illegal" else text
    said = take(text, obs)
    assert isinstance(said, str) and said.startswith(("  not understood: ", "  not legal: "))
    plain = signed_in.post(f"/play/{game.pk}", {"move": text}, **csrf(signed_in))
    assert plain.status_code == 400
    assert html.escape(said) in plain.content.decode()  # the terminal prompt's own lines
    board = signed_in.post(f"/play/{game.pk}", {"move": text}, **HTMX, **csrf(signed_in))
    assert board.status_code == 200 and html.escape(said) in board.content.decode()
    assert HumanGame.objects.get(pk=game.pk).moves == []


def test_csrf_is_enforced(signed_in: Client) -> None:
    assert signed_in.post("/play", {"opponent": "honest"}).status_code == 403
    assert not HumanGame.objects.exists()
    game = start(signed_in)
    page = signed_in.get(f"/play/{game.pk}").content.decode()
    assert signed_in.post(f"/play/{game.pk}", {"move": choose(page)}).status_code == 403
    assert HumanGame.objects.get(pk=game.pk).moves == []


def test_only_arenas_own_bots_sit_at_the_table(signed_in: Client) -> None:
    """A participant's bot, a file or a module never runs in a web request."""
    for opponent in ("bots/honest.py", "arena_bots.honest:Honest", "alice", "equilibrium",
                     ""):
        response = signed_in.post("/play", {"opponent": opponent}, **csrf(signed_in))
        assert response.status_code == 400
        assert "is not a bot you can play here" in response.content.decode()
    assert not HumanGame.objects.exists()


def test_the_rate_limit(signed_in: Client, settings: Any) -> None:
    settings.GAMES_PER_HOUR = 2
    first = start(signed_in)
    start(signed_in)
    refused = signed_in.post("/play", {"opponent": "honest"}, **csrf(signed_in))
    assert refused.status_code == 429
    assert refused.content.decode().count("\n") == 1
    assert HumanGame.objects.count() == 2
    HumanGame.objects.filter(pk=first.pk).update(created=timezone.now() - timedelta(hours=2))
    start(signed_in)  # an hour on, a game started then no longer counts


def test_the_page_never_shows_the_bots_hidden_dice(signed_in: Client) -> None:
    """At every decision, no line told only from the bot's private view (its dice under the
    cup) is on the page; and its replay, every die shown, only once the game is over."""
    game = start(signed_in, "statistician", seed=20240607)  # the bot throws first
    pages: list[str] = []

    def early_replay_is_404(page: str) -> None:
        pages.append(page)
        if "<h2>Result</h2>" not in page:
            assert signed_in.get(f"/play/{game.pk}/replays/pack-00000.js").status_code == 404

    play_through(signed_in, game, early_replay_is_404)
    table = Table(game.rules, {"max_points": 2}, game.opponent, game.seed)
    record = play(table, HumanGame.objects.get(pk=game.pk).moves).record
    assert record is not None
    names = table.names
    cuts = [i for i, e in enumerate(record.log)
            if isinstance(e, ActionEntry) and e.seat == table.seat] + [len(record.log)]
    assert len(cuts) == len(pages)
    hidden_seen = 0
    for cut, page in zip(cuts, pages, strict=True):
        events = [e for e in record.log[:cut] if hasattr(e, "kind")]
        everything, mine = Narrator("dice", names, None), Narrator("dice", names, table.seat)
        told = [line for e in events for line in everything.feed(e)] + everything.flush()
        seen = {line for e in events for line in mine.feed(e)} | set(mine.flush())
        hidden = [line for line in told if line not in seen]
        hidden_seen += len(hidden)
        text = html.unescape(page)
        assert not [line for line in hidden if line in text]
    assert hidden_seen  # the bot's dice were there to hide


@pytest.mark.parametrize("moves", [[{"bogus": 1}], [{"action": "challenge"}] * 400, "not a list"])
def test_a_game_that_no_longer_plays_is_said_in_one_line(signed_in: Client,
                                                         moves: Any) -> None:
    """Moves the game does not take (the contest's rules changed, or the row was edited)."""
    game = start(signed_in, seed=10)
    HumanGame.objects.filter(pk=game.pk).update(moves=moves)
    response = signed_in.get(f"/play/{game.pk}")
    assert response.status_code == 410
    assert response.content.decode().startswith("this game cannot be played again: ")
    assert response.content.decode().count("\n") == 1
    assert signed_in.get(f"/play/{game.pk}/viewer.html").status_code == 404
