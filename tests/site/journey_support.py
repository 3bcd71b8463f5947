"""What the browser journey shares: a real `arena serve` of a small class (or ladder) in a
subprocess on a free port, on SQLite or on a fresh PostgreSQL database, the `arena site`
commands the organiser types, people signed in by their one-time links in Chromium, and the
checks every page visited must pass (no script error, no horizontal scroll)."""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from needs import require

from arena.site import CONFIG_ENV, DATA_ENV, DATABASE_ENV

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "journey"
"""Screenshots of every page visited, at both widths, to look at (and kept by CI)."""
FULL_PAGES = bool(os.environ.get("ARENA_JOURNEY_FULL_PAGES"))
"""Whether each screenshot is the whole page, not the screen's part of it (set the variable
to look at the whole of each): a whole 390 px page was ~0.25 s of Chromium's CPU to draw and
encode, a third of the journey's browser work, ~5 s of the suite; the checks that each page
fits its width and had no error read the whole page either way."""
SEASON_MS = 300_000
"""How long a page may wait for the season's work (a check, a gauntlet) on a loaded machine:
the test waits on the page's state, so on an idle machine it takes what the work takes."""
PAGE_MS = 60_000
"""How long a page or a click may take on a loaded machine."""
POLL_MS = 5_000
"""How often a page htmx polls asks the site again (its `hx-trigger="every 5s"`)."""
LOOK_MS = 1_000
"""How long a wait on a polled page looks before it moves the page's clock on to its poll."""
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

CLASS = """\
name: journey
rules: dice
options: {{max_points: 2}}
entrants:
  - honest
  - statistician
  - {{bot: random, alias: demo}}
format: {{type: gauntlet, seats: 2, games: 1, champions: [honest, statistician]}}
grades: [pass: honest, merit: statistician]
seed: 35
output: {output}
"""
"""configs/class.yaml made small: two-seat dice to 2 points, two champions and two grades
(a student's third game, the first against statistician, is still its crash), one deal a
champion (each played twice, the seats swapped), one house student. boss, the student's
opponent in the browser, is one of arena's own bots: the play page offers it anyway."""
LADDER = """\
name: ladderjourney
rules: dice
options: {{max_points: 2}}
entrants: [honest, random]
format: {{type: ladder, seats: 2, min_games: 2, batch: 1, band: 2}}
seed: 35
output: {output}
"""
SERVING = re.compile(r"arena: serving \S+ at (http://127\.0\.0\.1:\d+) \(database: (\w+) .*; "
                     r"season: running\)\n")


@dataclass
class Site:
    """A served site: its address, config, data and results folders, and environment."""

    base: str
    config: Path
    data: Path
    results: Path
    env: dict[str, str]
    database: str
    shots: list[str] = field(default_factory=list)

    def arena(self, *args: str) -> str:
        """An `arena` command on this site (its config and data folder), as the organiser
        types it; its output."""
        done = subprocess.run([sys.executable, "-m", "arena", *args], env=self.env,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def site(self, *args: str) -> str:
        """`arena site ... --config CONFIG --data DIR`."""
        return self.arena("site", *args, "--config", str(self.config), "--data", str(self.data))


def postgres_database(server: str) -> Iterator[str]:
    """A fresh database on the PostgreSQL server the URL names, dropped afterwards: WITH
    (FORCE) only if a connection is left, as PostgreSQL 15 refused it to a user who is not a
    superuser while an autovacuum worker was in the new database (a loaded CI machine's)."""
    psycopg = __import__("psycopg")
    name = f"arena_journey_{secrets.token_hex(4)}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        parts = urlsplit(server)
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            try:  # an autovacuum worker in it is stopped by the server itself
                admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
            except psycopg.errors.ObjectInUse:  # a connection the site left: ours to end
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def database_url(kind: str) -> Iterator[str]:
    """'' for SQLite, or a fresh PostgreSQL database's URL (required: skipped locally
    without ARENA_TEST_POSTGRES, failed in CI)."""
    if kind == "sqlite":
        yield ""
        return
    server = os.environ.get("ARENA_TEST_POSTGRES", "")
    require(server, "no PostgreSQL server: set ARENA_TEST_POSTGRES=postgresql://USER:PW@HOST/DB")
    yield from postgres_database(server)


def serve(root: Path, template: str, database: str) -> Iterator[Site]:
    """`arena serve CONFIG --port 0` with its season, until the test is done (its log in
    root/serve.log: the requests' log must never fill a pipe)."""
    config, data, results = root / "config.yaml", root / "site", root / "results"
    config.write_text(template.format(output=results), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in (CONFIG_ENV, DATA_ENV, DATABASE_ENV)}
    if database:
        env[DATABASE_ENV] = database
    log = root / "serve.log"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", str(config), "--data", str(data),
             "--port", "0", "--workers", "1"], cwd=root, env=env, text=True,
            stdout=subprocess.PIPE, stderr=stderr)
    try:
        line = process.stdout.readline()  # type: ignore[union-attr]
        found = SERVING.fullmatch(line)
        assert found is not None, (line, log.read_text())
        yield Site(found[1], config, data, results, env, found[2])
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)


def person(browser: Any, site: Site, link: str = "") -> Any:
    """A page of a new browser context (a person of their own), signed in by a one-time
    link when given; it records script errors and the console's errors."""
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(PAGE_MS)
    page = context.new_page()
    page.clock.install()  # running in real time, until polled() moves it on
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("console", lambda message: message.type == "error"
            and not message.text.startswith("Failed to load resource")  # said below, with its URL
            and page.errors.append(f"console: {message.text}"))
    page.on("response", lambda response: response.status >= 400
            and page.errors.append(f"{response.status}: {response.url}"))
    if link:
        page.goto(link)
        page.click("main button[type=submit]")
        page.wait_for_url(f"{site.base}/account")
    return page


def polled(page: Any, locator: Any) -> None:
    """Wait until a page that htmx polls shows `locator` (SEASON_MS at most): each LOOK_MS
    without it, the page's clock (person() installs it) is moved on to its next poll, so the
    page asks the site as often as the test looks, not every 5 s. The poll, its request and
    its swap are the page's own."""
    from playwright.sync_api import TimeoutError as PageTimeout

    deadline = time.monotonic() + SEASON_MS / 1000
    while True:
        try:
            locator.wait_for(timeout=LOOK_MS)
            return
        except PageTimeout:
            if time.monotonic() > deadline:
                raise
        page.clock.fast_forward(POLL_MS)


def look(page: Any, site: Site, name: str) -> None:
    """The page as it is now fits its width (nothing scrolls sideways) and had no script
    error; its screenshot kept (what the screen shows, or the whole page: FULL_PAGES)."""
    page.wait_for_load_state()
    width = page.viewport_size["width"]
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"{page.url} scrolls sideways at {width} px ({scroll} px wide)"
    assert page.errors == [], (page.url, page.errors)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = f"{site.database.lower()}-{name}-{width}.png"
    page.screenshot(path=str(ARTIFACTS / shot), full_page=FULL_PAGES)
    site.shots.append(shot)


def visit(page: Any, site: Site, path: str, name: str) -> Any:
    """Open a page of the site and look at it."""
    response = page.goto(site.base + path)
    assert response is not None and response.status == 200, (path, response and response.status)
    look(page, site, name)
    return response
