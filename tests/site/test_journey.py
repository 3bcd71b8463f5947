"""Issue 35's journey in a real browser (Playwright, Debian's Chromium), on a real `arena
serve` with its season: a teacher adds a roster of three students, each signs in with their
one-time link and uploads a bot from the page — a good one, one that fails check-bot (its
page says what to fix), one that crashes in its third game (its owner's page shows the
traceback line; the other students' and the public's do not); the leaderboard shows the new
bots without a reload; a student plays a game against `boss` to its end; the teacher's
gradebook says what the season's grades.json say. Every page visited fits a desktop and a
390 px phone. A ladder's `arena submit` shows its checklist on the bot's page.

Each journey runs on the database of the site it stands for (docs/site.md): the class on
SQLite, a laptop's, and the ladder on PostgreSQL, a public contest's (skipped locally without
ARENA_TEST_POSTGRES, failed in CI). So each database serves a real `arena serve` whose season
process writes beside the pages' requests, in the browser; the class's own queries (roster,
links, gauntlets, grades, play) run on PostgreSQL too, in test_on_postgresql.py's re-run of
the site's database tests, without a browser.

The test waits on what the pages show, never on a clock: the season's work has minutes, and
a page htmx polls is made to poll as often as the test looks (journey_support.polled)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from journey_support import (
    CLASS,
    LADDER,
    PHONE,
    Site,
    database_url,
    look,
    person,
    polled,
    serve,
    visit,
)
from report.browser import launch_browser  # tests/report's own Chromium

from arena.ratings.standings import DECIMALS

STEADY = """\
import arena


class Steady(arena.Bot):
    \"\"\"Plays any legal action.\"\"\"

    def act(self, observation: arena.Observation) -> arena.Action:
        return arena.random_action(observation.legal, self.rng)
"""
WRONG = """\
import arena


class Wrong(arena.Bot):
    def act(self, observation: arena.Observation) -> arena.Action:
        return "raise to five"
"""
"""A bot that fails check-bot: it answers with a string, not an action."""
CRASHY = """\
import arena


class Crashy(arena.Bot):
    \"\"\"Plays any legal action, but has no plan against statistician when it sits second.\"\"\"

    def act(self, observation: arena.Observation) -> arena.Action:
        if self.context.names[:1] == ("statistician",):
            raise RuntimeError("no plan against statistician")
        return arena.random_action(observation.legal, self.rng)
"""
"""A bot that passes check-bot (whose games name no one) and crashes in its third game of the
gauntlet: the first against statistician, which sits first (honest twice, then statistician)."""
RAISES = 'raise RuntimeError("no plan against statistician")'


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


@pytest.fixture
def class_site(tmp_path: Path) -> Iterator[Site]:
    """The small class served, on SQLite (a laptop's database)."""
    for url in database_url("sqlite"):
        yield from serve(tmp_path, CLASS, url)


def links(site: Site, root: Path, names: list[str]) -> dict[str, str]:
    """`arena site roster` of these names: each one's one-time sign-in link."""
    roster = root / f"roster-{names[0]}.txt"
    roster.write_text("".join(f"{name}\n" for name in names), encoding="utf-8")
    printed = site.site("roster", str(roster), "--url", site.base)
    found = dict(line.split(" ", 1) for line in printed.splitlines())
    assert sorted(found) == sorted(names), printed
    return found


def upload(page: Any, site: Site, root: Path, name: str, text: str) -> None:
    """Upload a bot from the page: the form, then its own page."""
    path = root / "bots" / f"{name}.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    visit(page, site, "/upload", "upload")
    page.set_input_files("input[type=file]", str(path))
    page.click("main button[type=submit]")
    page.wait_for_url(f"{site.base}/bots/{name}")
    assert page.locator("main").inner_text().count(f"uploaded {name}@1") == 1


def status(page: Any, text: str) -> None:
    """Wait until the owner's versions (polled by htmx) show this status."""
    polled(page, page.locator("#versions .status", has_text=text).first)


def test_a_class_in_the_browser(browser: Any, class_site: Site, tmp_path: Path) -> None:
    site = class_site
    site.site("add-user", "teacher", "--staff")
    said = site.site("link", "teacher", "--url", site.base).split()
    assert said[0] == "teacher", said
    teacher = person(browser, site, said[1])
    students = links(site, tmp_path, ["ana", "ben", "cleo"])
    ana, ben, cleo = (person(browser, site, students[n]) for n in ("ana", "ben", "cleo"))
    public = person(browser, site)
    visit(public, site, "/leaderboard", "leaderboard-before")
    public.evaluate("window.notReloaded = true")

    upload(ana, site, tmp_path, "steady", STEADY)
    upload(ben, site, tmp_path, "wrong", WRONG)
    upload(cleo, site, tmp_path, "crashy", CRASHY)

    status(ben, "failed check-bot")
    problem = ben.inner_text("#versions .problem")
    assert "act returned 'raise to five', which is not an action" in problem
    look(ben, site, "bot-failed-check")

    polled(public, public.locator("#board a[href='/bots/steady']"))
    crashy = public.locator("#board tr:has(a[href='/bots/crashy']) td.faulty")
    polled(public, crashy)  # its row, its faults counted
    assert public.evaluate("window.notReloaded === true")  # swapped in by htmx
    look(public, site, "leaderboard-after")

    status(ana, "active")
    status(cleo, "active")
    cleo.reload()
    trace = cleo.inner_text(".faults")
    assert "crashy.py" in trace and RAISES in trace, trace
    look(cleo, site, "bot-crashed-owner")
    for page, who in ((public, "public"), (ana, "other-student")):
        visit(page, site, "/bots/crashy", f"bot-crashed-{who}")
        assert RAISES not in page.content() and "Faults" not in page.inner_text("main")

    played = play_boss(cleo, site)
    gradebook(teacher, site)
    on_a_phone(site, {"public": public, "ana": ana, "ben": ben, "cleo": cleo,
                      "teacher": teacher}, played)


def play_boss(page: Any, site: Site) -> str:
    """A whole game against boss, a move a click, each swapped in by htmx."""
    visit(page, site, "/play", "play")
    page.check("input[value=boss]")
    page.click("main button:text('start a game')")
    page.wait_for_url(f"{site.base}/play/*")
    page.evaluate("window.notReloaded = true")
    while not page.locator("#board h2:text('Result')").count():
        before = page.inner_text("#board")
        moves = page.locator("#board button[name=move]")
        labels = moves.all_inner_texts()
        moves.nth(labels.index("challenge") if "challenge" in labels else 0).click()
        page.wait_for_function("text => document.querySelector('#board').innerText !== text",
                               arg=before)
    assert page.evaluate("window.notReloaded === true")
    look(page, site, "play-over")
    played = str(page.url).removeprefix(site.base)
    page.click("text=The whole game in the replay viewer")
    page.wait_for_url("**/viewer.html*")
    page.wait_for_load_state()
    page.wait_for_selector("#game:not([hidden])")  # arena's viewer, every die shown
    look(page, site, "play-viewer")
    return played


def gradebook(page: Any, site: Site) -> None:
    """The teacher's grades page, and its CSV export as each version's grades.json says."""
    visit(page, site, "/grades", "grades")
    answer = page.request.get(site.base + "/grades.csv")
    assert answer.status == 200
    rows = {row["entrant"]: row for row in csv.DictReader(io.StringIO(answer.text()))}
    written = {}
    for path in site.results.parent.rglob("grades.json"):
        if "@" in path.parent.name:  # a version's own gauntlet, not the house class
            for graded in json.loads(path.read_text(encoding="utf-8"))["graded"]:
                written[graded["entrant"]] = graded
    assert sorted(written) == sorted(rows) == ["crashy", "steady"]
    for name, graded in written.items():
        assert rows[name]["reached"] == (graded["reached"] or "")
        assert rows[name]["sentence"] == graded["sentence"]
        for meeting in graded["against"]:
            for key in ("score", "low", "high"):  # written rounded: the same to the digit
                assert abs(float(rows[name][f"{key} vs {meeting['bot']}"]) - meeting[key]) \
                    <= 0.5 * 10 ** -DECIMALS
            assert rows[name][f"games vs {meeting['bot']}"] == str(meeting["games"])
            assert rows[name][f"beat {meeting['bot']}"] == ("yes" if meeting["beat"] else "no")


def on_a_phone(site: Site, people: dict[str, Any], played: str) -> None:
    """Every page the journey visited, again at 390 px."""
    pages = {
        "public": ["/", "/leaderboard", "/games", "/bots/steady", "/bots/crashy", "/login/"],
        "ana": ["/bots/steady", "/my-bots", "/upload", "/account"],
        "ben": ["/bots/wrong", "/my-bots"],
        "cleo": ["/bots/crashy", "/play", played],
        "teacher": ["/grades", "/bots/crashy"],
    }
    for who, paths in pages.items():
        page = people[who]
        page.set_viewport_size(PHONE)
        for path in paths:
            visit(page, site, path, f"{who}{path.replace('/', '-')}")
    games = people["public"]
    visit(games, site, "/games", "games")
    games.click("table.games a >> nth=0")  # the newest: a student's gauntlet's
    games.frame_locator("iframe.viewer").locator("#game:not([hidden])").wait_for()
    look(games, site, "game")
    cleo = people["cleo"]
    visit(cleo, site, "/bots/crashy", "bot-crashed-owner")
    cleo.click(".faults a >> nth=0")
    look(cleo, site, "bot-seat-view")


@pytest.fixture
def ladder_site(tmp_path: Path) -> Iterator[Site]:
    """The small ladder served, on a fresh PostgreSQL database (a public contest's)."""
    for url in database_url("postgresql"):
        yield from serve(tmp_path, LADDER, url)


def test_arena_submit_on_a_ladder_shows_its_checklist(browser: Any, ladder_site: Site,
                                                      tmp_path: Path) -> None:
    site = ladder_site
    token = site.site("add-user", "lee").rsplit(" ", 1)[1].strip()
    bot = tmp_path / "lees_bot.py"
    bot.write_text(STEADY, encoding="utf-8")
    said = site.arena("submit", str(bot), "--server", site.base, "--token", token)
    assert "lees_bot" in said, said
    lee = person(browser, site, links(site, tmp_path, ["lee"])["lee"])
    visit(lee, site, "/bots/lees_bot", "ladder-bot")
    polled(lee, lee.locator("#versions .checklist li.ok").first)
    assert "starts and says hello" in lee.inner_text("#versions .checklist")
    lee.set_viewport_size(PHONE)
    look(lee, site, "ladder-bot")
