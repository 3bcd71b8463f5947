"""The bot pages (issue 35): the public page of a bot (rank, rating, record against each
opponent, recent games) and the owner-only part (versions and their checklists, faults with
the bot's own stderr and traceback lines, each game as its seat saw it), read from a real
round robin's results folder and its index.

The attacks first: another participant (or no one signed in) changing a bot's name or a
game id in a URL gets 404 and none of the private part; every text a bot controls (its
name, a checklist line, a problem, a file name, its stderr, its traceback) is escaped.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from django.contrib.auth.models import User
from django.test import Client
from played import STDERR_LINE, TRACE_MARK, copy_results, games, index, play_round_robin, version

from arena.cli.main import cli
from arena.site.contest import bot_data
from arena.site.contest.contest import Contest, current
from arena.site.contest.models import Bot, Season, Version

SITE = """\
name: season
rules: dice
options: {max_points: 2}
entrants: [honest, random]
format: {type: ladder, seats: 2, min_games: 4, batch: 2, band: 2, final_games: 1}
"""
CHECK_LINE = "<script>alert('check')</script> says hello"
CHECKLIST = [{"ok": True, "text": "starts and says hello"},
             {"ok": False, "text": CHECK_LINE}]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """honest, alicebot and bobbot (which crashes every game, with markup in its stderr and
    its traceback), each pair twice: a real results folder."""
    return play_round_robin(tmp_path_factory.mktemp("played"))


@pytest.fixture
def site(played: Path, tmp_path: Path, settings: object, alice: User, bob: User) -> Contest:
    """The served contest over a copy of the played folder, its games indexed; alicebot is
    alice's, bobbot bob's, each with an active version 1 (bob's with a failed version 2)."""
    results = copy_results(played, tmp_path / "results")
    config = tmp_path / "config.yaml"
    config.write_text(SITE + f"output: {results}\n", encoding="utf-8")
    settings.CONFIG = str(config)  # type: ignore[attr-defined]
    settings.DATA = tmp_path / "site"  # type: ignore[attr-defined]
    current.cache_clear()
    alicebot = Bot.objects.create(name="alicebot", owner=alice)
    bobbot = Bot.objects.create(name="bobbot", owner=bob)
    versions = {"alicebot": version(alicebot), "bobbot": version(bobbot)}
    version(bobbot, 2, status=Version.Status.FAILED_CHECK, checklist=CHECKLIST,
            problem="BOB-PROBLEM: it never answers")
    index(results, versions)
    return current()


def client_of(user: User | None) -> Client:
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)
    return client


def page(client: Client, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, url
    return response.content.decode()


PRIVATE = ("BOB-STDERR", "BOB-TRACE", "BOB-PROBLEM", "says hello", TRACE_MARK, "bobbot@2",
           "/bots/bobbot/games/", "/bots/bobbot/versions", "failed check-bot")
"""What of bobbot only bob and the staff may read."""


# --- the attacks --------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["alice", "anonymous"])
def test_no_one_but_the_owner_reads_a_bots_private_part_by_changing_a_url(
        site: Contest, alice: User, who: str) -> None:
    client = client_of(alice if who == "alice" else None)
    public = page(client, "/bots/bobbot")
    assert [text for text in PRIVATE if text in public] == []
    bobs_game = next(g["id"] for g in games(site.results) if "bobbot" in g["entrants"]
                     and "alicebot" not in g["entrants"])
    for url in ("/bots/bobbot/versions", f"/bots/bobbot/games/{bobs_game}",
                f"/bots/BobBot/games/{bobs_game}", "/bots/bobbot/games/rr-000001",
                "/bots/nosuchbot", "/bots/nosuchbot/versions",
                f"/bots/nosuchbot/games/{bobs_game}"):
        assert [text for text in PRIVATE if text in page(client, url, 404)] == [], url
    if who == "alice":  # her own bot's page does not open bob's game either
        page(client, f"/bots/alicebot/games/{bobs_game}", 404)
        page(client, "/bots/alicebot/games/no-such-game", 404)


def test_a_private_page_of_anothers_bot_answers_as_one_that_does_not_exist(
        site: Contest, alice: User) -> None:
    """No id oracle: bob's existing bot and game look to alice like nothing at all."""
    client = client_of(alice)
    bobs = client.get("/bots/bobbot/games/rr-000003")
    nothing = client.get("/bots/nosuchbot/games/rr-999999")
    assert (bobs.status_code, bobs.content) == (nothing.status_code, nothing.content)


def test_the_owner_and_the_staff_read_the_private_part(site: Contest, bob: User) -> None:
    staff = User.objects.create_user("teacher", password="a long pass phrase 3", is_staff=True)
    for user in (bob, staff):
        text = html.unescape(page(client_of(user), "/bots/bobbot"))
        for shown in ("BOB-STDERR", TRACE_MARK, "BOB-PROBLEM", CHECK_LINE, "bobbot@2",
                      "failed check-bot"):
            assert shown in text, (user.username, shown)


def test_my_bots_needs_a_sign_in_and_lists_only_ones_own(site: Contest, alice: User) -> None:
    assert client_of(None).get("/my-bots").status_code == 302  # to the sign-in page
    text = page(client_of(alice), "/my-bots")
    assert "alicebot" in text and "bobbot" not in text


MARKUP = ('x"><img src=x onerror=alert(1)>', "<script>alert('name')</script>")


def test_every_text_a_bot_controls_is_escaped(site: Contest, bob: User) -> None:
    """A name, a file name, a checklist line, a problem, stderr and a traceback line."""
    evil = Bot.objects.create(name=MARKUP[0], owner=bob)
    version(evil, filename=MARKUP[1] + ".py", problem=MARKUP[1],
            checklist=[{"ok": False, "text": MARKUP[1]}])
    client = client_of(bob)
    for url in ("/bots/bobbot", "/bots/bobbot/versions", "/bots/bobbot/games/rr-000003",
                f"/bots/{MARKUP[0]}", f"/bots/{MARKUP[0]}/versions", "/my-bots"):
        text = page(client, url)
        assert "<script>alert" not in text and "<img src=x" not in text, url
    owner_page = page(client, "/bots/bobbot")
    assert html.escape(STDERR_LINE) in owner_page  # shown, as text
    assert "&lt;script&gt;alert(&#x27;trace&#x27;)&lt;/script&gt;" in owner_page


# --- what the pages show ------------------------------------------------------------------


def counted(results: Path, name: str) -> dict[str, tuple[int, int, int]]:
    """Wins, draws and losses of `name` against each opponent, counted from games.jsonl."""
    tally: Counter[tuple[str, str]] = Counter()
    for game in games(results):
        if name not in game["entrants"]:
            continue
        mine = game["placements"][game["entrants"].index(name)]
        for other, place in zip(game["entrants"], game["placements"], strict=True):
            if other != name:
                outcome = "win" if mine < place else "draw" if mine == place else "loss"
                tally[other, outcome] += 1
    opponents = {other for other, _ in tally}
    return {o: (tally[o, "win"], tally[o, "draw"], tally[o, "loss"]) for o in opponents}


@pytest.mark.parametrize("name", ["alicebot", "bobbot"])
def test_the_record_against_each_opponent_is_what_games_jsonl_counts(
        site: Contest, name: str) -> None:
    bot = Bot.objects.get(name=name)
    expected = counted(site.results, name)
    assert {r.opponent: (r.wins, r.draws, r.losses) for r in bot_data.record(bot)} == expected
    text = page(client_of(None), f"/bots/{name}")
    rows = re.findall(r"<tr><td>([^<]+)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>"
                      r"<td>(\d+)</td></tr>", text)
    assert {o: (int(w), int(d), int(lo)) for o, g, w, d, lo in rows} == expected
    played = sum(name in g["entrants"] for g in games(site.results))
    assert f"<dt>games played</dt><dd>{played}</dd>" in text


def test_the_public_page_shows_owner_version_rank_rating_and_recent_games(
        site: Contest) -> None:
    ranking = [{"player": "alicebot@1", "entrant": "alicebot", "version": 1, "elo": 1512.4,
                "low": 1460.2, "high": 1570.9, "games": 8, "faults": 0,
                "provisional": False, "rank": 2, "tied": True}]
    (site.results / "ladder.json").write_text(json.dumps({"ranking": ranking}))
    text = page(client_of(None), "/bots/alicebot")
    assert "by alice" in text and "alicebot@1" in text
    assert "<dt>rating</dt><dd>1512 (1460 to 1571)</dd>" in text
    assert "<dt>rank</dt><dd>2 (tied)</dd>" in text
    newest = [g["id"] for g in games(site.results) if "alicebot" in g["entrants"]][::-1]
    assert re.findall(r'<a href="/games/([^"]+)">', text) == newest


def test_the_owner_sees_each_fault_newest_first_with_its_game_stderr_and_trace(
        site: Contest, bob: User) -> None:
    text = page(client_of(bob), "/bots/bobbot")
    faults = text[text.index("<h2>Faults</h2>"):]
    listed = re.findall(r'in game\s+<a href="/bots/bobbot/games/([^"]+)">', faults)
    assert listed == [g["id"] for g in games(site.results) if "bobbot" in g["entrants"]][::-1]
    assert faults.count(html.escape(STDERR_LINE)) == len(listed)
    assert faults.count(TRACE_MARK) == len(listed)


def test_the_versions_part_refreshes_itself(site: Contest, bob: User) -> None:
    text = page(client_of(bob), "/bots/bobbot")
    assert 'hx-get="/bots/bobbot/versions" hx-trigger="every 5s"' in text
    part = html.unescape(page(client_of(bob), "/bots/bobbot/versions"))
    assert "<html" not in part and "ok: starts and says hello" in part
    assert f"not ok: {CHECK_LINE}" in part


def story_of(text: str) -> list[str]:
    return html.unescape(text.split('<pre class="story">')[1].split("</pre>")[0]).splitlines()


def test_a_game_as_the_seat_saw_it_is_what_arena_replay_seat_prints(
        site: Contest, bob: User) -> None:
    game = next(g for g in games(site.results) if "bobbot" in g["entrants"])
    seat = game["entrants"].index("bobbot")
    told = CliRunner().invoke(cli, ["replay", str(site.results), game["id"], "--seat",
                                    str(seat)])
    assert told.exit_code == 0, told.output
    shown = story_of(page(client_of(bob), f"/bots/bobbot/games/{game['id']}"))
    assert shown == told.output.splitlines()


@pytest.mark.parametrize(("policy", "closed", "full"), [
    ("game", False, True), ("season", False, False), ("season", True, True),
    ("never", True, False)])
def test_the_full_view_only_as_the_reveal_policy_allows(
        site: Contest, bob: User, settings: object, policy: str, closed: bool,
        full: bool) -> None:
    settings.ARENA_SITE_REVEAL = policy  # type: ignore[attr-defined]
    Season.objects.update_or_create(pk=1, defaults={"closed": closed})
    game = next(g for g in games(site.results) if "bobbot" in g["entrants"])
    everyone = CliRunner().invoke(cli, ["replay", str(site.results), game["id"]])
    shown = story_of(page(client_of(bob), f"/bots/bobbot/games/{game['id']}?view=all"))
    assert (shown == everyone.output.splitlines()) is full
    assert any(line.startswith("view: seat ") for line in shown) is not full
