"""Cross-site request forgery on every form: each page a participant, an organiser or no one
signed in can open is read for its forms and htmx posts, and each is sent again from another
site, with the session cookie but without the CSRF token. Every one is refused (403) and
changes nothing; every form that posts carries the token, so an honest one works."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any
from urllib.parse import urljoin

import pytest
from django.contrib.auth.models import User
from django.test import Client
from sesame.utils import get_query_string  # type: ignore[import-untyped]
from test_browser_play import start

from arena.site.contest.accounts import new_invite
from arena.site.contest.contest import Contest
from arena.site.contest.models import ApiToken, Bot, HumanGame, Version


class Forms(HTMLParser):
    """The posting forms and htmx posts of a page: (address, whether it carries the token)."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.page = page
        self.found: list[list[Any]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        said = {k: v or "" for k, v in attrs}
        if tag == "form" and said.get("method", "get").lower() == "post":
            self.found.append([urljoin(self.page, said.get("action") or self.page), False])
        elif tag == "form":
            self.found.append(["", True])  # a GET form: nothing to forge
        elif tag == "input" and said.get("name") == "csrfmiddlewaretoken" and self.found:
            self.found[-1][1] = True
        if "hx-post" in said and tag != "form":  # htmx sends the body's X-CSRFToken
            self.found.append([urljoin(self.page, said["hx-post"] or self.page), "htmx"])


def forms_of(client: Client, url: str) -> list[tuple[str, Any]]:
    answer = client.get(url)
    assert answer.status_code == 200, url
    parser = Forms(url)
    parser.feed(answer.content.decode())
    return [(action, token) for action, token in parser.found if action]


@pytest.fixture
def pages(contest: Contest, alice: User) -> list[tuple[Client, str]]:
    """Every page with a form, as the one who sees it: no one, alice, and the organiser."""
    new_invite(None)
    newcomer = User.objects.create_user("newcomer")
    staff = User.objects.create_user("organiser", is_staff=True, is_superuser=True)
    bot = Bot.objects.create(name="alicebot", owner=alice)
    Version.objects.create(bot=bot, number=1, sha256="1" * 64, kind="file", size=1,
                           filename="alicebot.py")
    anonymous, participant, organiser = Client(), Client(), Client()
    participant.force_login(alice)
    organiser.force_login(staff)
    game = start(_as(alice))
    found = [(anonymous, url) for url in ("/", "/login/", "/join", "/admin/login/",
                                          f"/login/link{get_query_string(newcomer)}")]
    found += [(participant, url) for url in (
        "/", "/account", "/account/password", "/upload", "/play", f"/play/{game.pk}",
        "/bots/alicebot", "/my-bots", "/leaderboard", "/games")]
    found += [(organiser, url) for url in (
        "/admin/", "/admin/contest/bot/", f"/admin/contest/bot/{bot.pk}/change/",
        "/admin/contest/version/", "/admin/contest/season/", "/admin/auth/user/",
        f"/admin/auth/user/{alice.pk}/change/", "/grades")]
    return found


def _as(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client

pytestmark = pytest.mark.any_database(
    "the CSRF middleware refuses a forged post before the view asks the database anything")


def state() -> tuple[Any, ...]:
    """What a forged post could change."""
    return (list(ApiToken.objects.values_list("pk", "revoked")),
            list(User.objects.values_list("username", "email", "password", "is_active")),
            list(Bot.objects.values_list("name", "disabled")), Version.objects.count(),
            list(HumanGame.objects.values_list("pk", "moves")))


def test_every_form_and_htmx_post_refuses_a_forged_request(
        pages: list[tuple[Client, str]]) -> None:
    posted: set[str] = set()
    for client, url in pages:
        for action, token in forms_of(client, url):
            assert token, f"{url}: the form posting to {action} has no CSRF token"
            forger = Client(enforce_csrf_checks=True)
            forger.cookies = client.cookies  # the victim's session, sent by their browser
            before = state()
            answer = forger.post(action, {"move": "challenge", "email": "x@evil.example",
                                          "new_password1": "p0wned-pass-phrase",
                                          "new_password2": "p0wned-pass-phrase",
                                          "opponent": "honest", "action": "delete_selected"})
            assert answer.status_code == 403, f"{url}: {action} took a forged post"
            assert state() == before, action
            posted.add(action.split("?")[0])
    wanted = {"/logout/", "/account/tokens", "/account/email", "/account/password", "/upload",
              "/play", "/join", "/login/", "/login/link", "/admin/login/", "/admin/logout/",
              "/admin/contest/bot/"}
    assert wanted <= posted, sorted(wanted - posted)
