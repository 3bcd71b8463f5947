"""A browser game in a real browser (headless Chromium, Playwright): a click on a move swaps
the board by htmx without a reload, the game is played to its end on a 390 px phone without
horizontal scroll, and the finished game opens in arena's replay viewer. The site runs in a
thread of the test process (pytest-django's live_server), as waitress runs it: no alarm."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from needs import require
from report.browser import CHROMIUM_ARGS

from arena.site.contest.contest import Contest
from arena.site.contest.models import HumanGame

pytestmark = pytest.mark.any_database(
    "htmx's swaps and a phone's width are the browser's; the game's rows and moves run on"
    " PostgreSQL in test_browser_play.py")


@pytest.fixture
def chromium() -> Iterator[Any]:
    """Headless Chromium; skipped (failed in CI) without Playwright or a Chromium."""
    try:
        from playwright import sync_api
    except ImportError:
        sync_api = None
    require(sync_api, "Playwright is not installed (pip install -e '.[test]')")
    found = [os.environ.get("ARENA_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")]
    executable = next((c for c in found if c and Path(c).is_file()), None)
    require(executable, "no Chromium found (apt-get install chromium, or set ARENA_CHROMIUM)")
    assert sync_api is not None
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "1"  # Playwright's loop beside the test's ORM
    try:
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable,
                                                 args=CHROMIUM_ARGS)  # tests/report's
            yield browser
            browser.close()
    finally:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


def test_a_game_in_a_phone_browser(chromium: Any, live_server: Any, contest: Contest,
                                   transactional_db: None) -> None:
    signed = Client()  # signed in by the session cookie (the sign-in page is not this one's)
    signed.force_login(User.objects.create_user("carla", password="a long pass phrase 3"))
    session = signed.cookies[settings.SESSION_COOKIE_NAME].value
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session,
                          "url": live_server.url}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/play")
    page.check("input[value=honest]")
    page.click("text=start a game")
    page.wait_for_url("**/play/*")
    game = HumanGame.objects.get()
    page.evaluate("window.notReloaded = true")
    for _ in range(200):
        if page.locator("#board h2:text('Result')").count():
            break
        before = page.inner_text("#board")
        moves = page.locator("#board button[name=move]")
        labels = moves.all_inner_texts()
        pick = labels.index("challenge") if "challenge" in labels else 0
        moves.nth(pick).click()
        page.wait_for_function("text => document.querySelector('#board').innerText !== text",
                               arg=before)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate("window.notReloaded === true")  # every move swapped, none reloaded
    game.refresh_from_db()
    assert game.finished
    page.click("text=The whole game in the replay viewer")
    page.wait_for_selector("#game:not([hidden])")
    assert "seed" in page.inner_text("#subtitle")
    assert errors == []
    context.close()
