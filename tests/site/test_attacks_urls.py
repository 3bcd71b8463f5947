"""Attacks by address: every URL pattern the site has, enumerated from its URLconf, asked for
with another participant's bot name, game id, browser game or token in it, by a stranger and by
no one signed in; the same under a class's hidden results; the public replay viewer's data;
the admin as a participant; an open redirect on sign-in; a token in a URL.

A pattern nobody classified fails the first test: a new page must say who may read it.
"""

from __future__ import annotations

import base64
import gzip
import re
from collections.abc import Iterator
from typing import Any

import pytest
import test_bot_pages
from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from played import STDERR_LINE, TRACE_MARK, games
from test_bot_pages import PRIVATE, client_of
from test_browser_play import play_through, start

from arena.site.contest.contest import Contest
from arena.site.contest.models import ApiToken, Version

played, site = test_bot_pages.played, test_bot_pages.site
"""The bot pages' fixtures: a real round robin's folder, alice's and bob's bots indexed."""

PUBLIC = {
    "", "starter-kit.zip", "leaderboard", "leaderboard/rows", "games", "games/<str:game_id>",
    "games/<str:game_id>/replay/viewer.html", "games/<str:game_id>/replay/viewer-rules.js",
    "games/<str:game_id>/replay/replays/pack-00000.js",
    "games/<str:game_id>/replay/replays/chances/pack-00000.js",
    "games/<str:game_id>/replay/replays/chances/pack-00001.js", "bots/<str:name>",
    "login/", "logout/", "login/link", "join", "admin/login/", "admin/logout/",
}
"""Anyone may ask for these (each still hides what is not public: the tests below)."""
OWN = {"account", "account/tokens", "account/email", "account/password", "my-bots", "upload",
       "play", "api/submit"}
"""A signed-in participant's own things: no id in the address, nothing of anyone else's."""
OWNERS = {
    "account/tokens/<int:pk>/revoke", "bots/<str:name>/games/<str:game_id>",
    "bots/<str:name>/versions", "play/<int:game_id>", "play/<int:game_id>/viewer.html",
    "play/<int:game_id>/viewer-rules.js", "play/<int:game_id>/replays/pack-00000.js",
    "play/<int:game_id>/replays/chances/pack-00000.js",
    "play/<int:game_id>/replays/chances/pack-00001.js",
}
"""An id of its owner's in the address: the owner (the control) reads it, anyone else 404."""
STAFF = {"grades", "grades.csv"}
REFUSED = (302, 404, 405)
"""What a stranger may get: sent to sign in, not found, or not this method."""


def routes() -> Iterator[tuple[str, str]]:
    """Every pattern of the URLconf as its full route and its parameters' converters."""
    def walk(patterns: list[Any], prefix: str) -> Iterator[tuple[str, str]]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                assert isinstance(pattern, URLPattern)
                yield prefix + str(pattern.pattern), type(pattern.pattern).__name__
    return walk(get_resolver().url_patterns, "")


def address(route: str, fill: dict[str, str]) -> str:
    """The route with each parameter as `fill` names it (by converter and name)."""
    route = route.replace("^", "").replace("$", "")
    route = re.sub(r"\(\?P<app_label>[^)]*\)", "contest", route)
    route = re.sub(r"\(\?P<url>\.\*\)", "contest/bot/x/", route)
    return "/" + re.sub(r"<(?:(\w+):)?(\w+)>",
                        lambda m: fill[f"{m.group(1) or 'str'}:{m.group(2)}"], route)


@pytest.fixture
def bobs(site: Contest, bob: User) -> dict[str, str]:
    """bob's ids: his bot, a game only his bot played, his finished browser game, his token."""
    owner = client_of(bob)
    human = start(owner)
    play_through(owner, human)
    token = ApiToken.issue(bob)[0]
    game = next(g["id"] for g in games(site.results) if "bobbot" in g["entrants"]
                and "alicebot" not in g["entrants"])
    return {"str:name": "bobbot", "str:game_id": game, "int:game_id": str(human.pk),
            "int:pk": str(token.pk), "path:object_id": "1", "path:content_type_id": "1",
            "str:id": str(bob.pk)}

pytestmark = pytest.mark.any_database(
    "who may read a page is decided in Python on rows looked up by an exact name or id; the"
    " pages' own queries (hidden results, an owner's rows) run on PostgreSQL in test_pages.py"
    " and test_bot_pages.py")


def test_every_address_is_classified() -> None:
    """A new page must say who may read it before the attacks below cover it."""
    known = PUBLIC | OWN | OWNERS | STAFF
    unknown = [r for r, _ in routes() if r not in known and not r.startswith("admin/")]
    assert unknown == []


@pytest.mark.parametrize("who", ["alice", "anonymous"])
def test_no_address_with_anothers_id_opens_it_to_a_stranger(
        bobs: dict[str, str], alice: User, bob: User, who: str) -> None:
    stranger, owner = _client(alice if who == "alice" else None), _client(bob)
    checked = 0
    for route, _ in routes():
        if route not in OWNERS:
            continue
        url = address(route, bobs)
        method = "post" if route.endswith("/revoke") else "get"
        answer = getattr(stranger, method)(url)
        assert answer.status_code in REFUSED, url
        if answer.status_code == 302:
            assert answer["Location"].startswith("/login/"), url
        if method == "post":
            assert not ApiToken.objects.filter(user=bob, revoked__isnull=False).exists()
        assert getattr(owner, method)(url).status_code in (200, 302), url  # the control
        checked += 1
    assert checked == len(OWNERS)


def _client(user: User | None) -> Client:
    """A browser without CSRF checks (what is tried here is who, not how)."""
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.parametrize("who", ["alice", "anonymous"])
def test_no_page_a_stranger_may_open_shows_anothers_private_part(
        bobs: dict[str, str], alice: User, who: str) -> None:
    client = client_of(alice if who == "alice" else None)
    for route, _ in routes():
        if route in PUBLIC | OWN and route not in ("logout/", "api/submit"):
            text = client.get(address(route, bobs)).content.decode("utf-8", "replace")
            assert [t for t in PRIVATE if t in text] == [], route


@pytest.mark.parametrize("who", ["alice", "anonymous"])
def test_the_staffs_pages_and_the_admin_are_closed_to_everyone_else(
        bobs: dict[str, str], alice: User, who: str) -> None:
    client = client_of(alice if who == "alice" else None)
    for route, kind in routes():
        if route in STAFF:
            assert client.get(address(route, bobs)).status_code == 404, route
        elif route.startswith("admin/") and route not in PUBLIC and kind == "RoutePattern":
            answer = client.get(address(route, bobs))
            assert answer.status_code == 302, route
            assert answer["Location"].startswith("/admin/login/"), route


def test_hidden_results_hide_anothers_bot_and_games_on_every_page(
        bobs: dict[str, str], alice: User, settings: Any) -> None:
    """A class that hides its results: nothing of bob's bot from alice or anyone, by any
    public address with bob's bot or game in it."""
    settings.ARENA_SITE_HIDE_RESULTS = True
    game = bobs["str:game_id"]
    for client in (client_of(alice), client_of(None)):
        for route, _ in routes():
            if route in PUBLIC and ("<" in route or route in ("leaderboard", "games")):
                answer = client.get(address(route, bobs))
                text = answer.content.decode("utf-8", "replace")
                shown = [t for t in (game, "bobbot") if t in text]
                if route == "games":  # alice's own games name her opponents, bob's not
                    shown = [t for t in shown if t == game]
                assert answer.status_code == 404 or shown == [], route


def _replay_of(pack: bytes) -> str:
    """The replay text a viewer pack holds (its gzip bytes in base64)."""
    packed = re.search(rb'="([A-Za-z0-9+/=]+)";', pack)
    assert packed is not None
    return gzip.decompress(base64.b64decode(packed.group(1))).decode()


@pytest.mark.parametrize("who", ["alice", "anonymous"])
def test_the_public_replay_holds_no_bots_stderr_trace_or_host_path(
        bobs: dict[str, str], alice: User, site: Contest, who: str) -> None:
    """A game's full view is public (policy `game`), but its faults' stderr and traceback lines
    are its owner's, and the organiser's folders no one's: the viewer's data is what `arena
    publish` would publish."""
    client = client_of(alice if who == "alice" else None)
    game = bobs["str:game_id"]
    replay = _replay_of(client.get(f"/games/{game}/replay/replays/pack-00000.js").content)
    assert '"type":"result"' in replay.replace(" ", "") and "bobbot" in replay
    for private in ("BOB-STDERR", STDERR_LINE, TRACE_MARK, "BobBot.plan", str(site.results.parent)):
        assert private not in replay, private
    chances = client.get(f"/games/{game}/replay/replays/chances/pack-00000.js").content.decode()
    assert "BOB-STDERR" not in chances and str(site.results.parent) not in chances


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/", "/\\evil.example/",
                                    "https:evil.example", " //evil.example"])
def test_sign_in_never_sends_anyone_to_another_site(site: Contest, alice: User,
                                                    target: str) -> None:
    client = Client()
    answer = client.post(f"/login/?next={target}", {"username": "alice",
                                                    "password": "a long pass phrase 1"})
    assert answer.status_code == 302 and answer["Location"] == "/"


def test_a_token_counts_only_in_its_header_never_in_an_address_or_a_form(
        site: Contest, alice: User) -> None:
    """A token in a URL ends up in logs and in Referer headers: it is never accepted there."""
    secret, before = ApiToken.issue(alice)[1], Version.objects.count()
    for answer in (Client().post(f"/api/submit?token={secret}"),
                   Client().post(f"/api/submit?access_token={secret}"),
                   Client().post("/api/submit", {"token": secret, "access_token": secret})):
        assert answer.status_code == 401
    assert Version.objects.count() == before
