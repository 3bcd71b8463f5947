"""The public pages answer and show what they must, from a results folder a real short ladder
run made (honest, random and a submitted bot, the starter kit's): the contest page and its
kit, the live leaderboard, the games list and the replay viewer, under the organiser's
policies (reveal, hidden results); a name a bot controls is escaped everywhere."""

from __future__ import annotations

import base64
import gzip
import html
import io
import json
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from arena.primer import primer
from arena.report.publish import public_replay
from arena.rules import get_rules
from arena.site.contest import csp, pages
from arena.site.contest.contest import Contest, current
from arena.site.contest.models import Bot, Game, Season, Seat, Version
from arena.site.contest.starter import BOT_FILE, bot_template

ROOT = Path(__file__).resolve().parents[2]
LADDER = """\
name: season
rules: dice
options: {max_points: 2}
entrants: [honest, random]
submissions: submissions
format: {type: ladder, seats: 2, min_games: 5, batch: 2, band: 2, final_games: 1}
"""
GAMES = 7
"""Three players, 14 seats: two reach min_games, one stays provisional."""
SCRIPT = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ladder played by `arena run` into a folder: honest, random and mybot (submitted)."""
    folder = tmp_path_factory.mktemp("played")
    (folder / "submissions").mkdir()
    (folder / "submissions" / "mybot.py").write_text(bot_template(), encoding="utf-8")
    config = folder / "config.yaml"
    config.write_text(LADDER + f"output: {folder / 'results' / 'season'}\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "arena", "run", str(config), "--games", str(GAMES),
                    "-q"], cwd=folder, check=True, capture_output=True)
    return folder


def index(contest: Contest, owner: User) -> None:
    """games.jsonl into Game and Seat (as the season's indexer does); mybot is `owner`'s."""
    bot = Bot.objects.create(name="mybot", owner=owner)
    version = Version.objects.create(bot=bot, number=1, sha256="0" * 64, kind="file",
                                     filename="mybot.py", size=1,
                                     status=Version.Status.ACTIVE)
    lines = (contest.results / "games.jsonl").read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        record = json.loads(line)
        faults = {fault["seat"]: fault for fault in record["faults"]}
        game = Game.objects.create(number=number, game_id=record["id"], seed=str(record["seed"]),
                                   players=record["entrants"], placements=record["placements"],
                                   faulted=bool(faults))
        for seat, (entrant, place) in enumerate(zip(record["entrants"], record["placements"],
                                                    strict=True)):
            fault = faults.get(seat, {})
            Seat.objects.create(game=game, seat=seat, entrant=entrant, placement=place,
                                version=version if entrant == "mybot@1" else None,
                                fault=fault.get("kind", ""), fault_message=fault.get(
                                    "message", ""))


def serve(folder: Path, settings: Any, data: Path) -> Contest:
    settings.CONFIG = str(folder / "config.yaml")
    settings.DATA = data
    current.cache_clear()
    return current()


@pytest.fixture
def season(played: Path, settings: Any, tmp_path: Path, alice: User) -> Iterator[Contest]:
    """The played ladder served, its games indexed, mybot alice's."""
    contest = serve(played, settings, tmp_path / "site")
    index(contest, alice)
    yield contest
    current.cache_clear()


def ranking(contest: Contest) -> list[dict[str, Any]]:
    document = json.loads((contest.results / "ladder.json").read_text(encoding="utf-8"))
    rows: list[dict[str, Any]] = document["ranking"]
    return rows


def text(response: Any) -> str:
    return str(response.content.decode("utf-8"))


# --- the contest page and the starter kit -------------------------------------------------


def test_the_contest_page_tells_the_rules_the_format_and_how_to_send_a_bot(
        season: Contest) -> None:
    page = text(Client().get("/"))
    assert "<h1>season</h1>" in page
    for line in primer(get_rules("dice"), {"max_points": 2})[1:3]:  # arena's own words
        assert html.escape(line.strip().split(";")[0]) in page
    assert "2 points and you are out" in page  # the config's options, not the defaults
    assert "ranked after 5 games" in page
    assert "arena check-bot my_bot.py" in page
    assert "arena submit my_bot.py --server http://testserver --token YOUR_TOKEN" in page
    assert 'href="/starter-kit.zip"' in page


def test_the_contest_page_shows_the_organisers_deadline_and_text_escaped(
        season: Contest, settings: Any) -> None:
    settings.ARENA_SITE_DEADLINE = "Friday 18:00"
    settings.ARENA_SITE_ABOUT = f"Welcome.\n\nPrizes {SCRIPT}"
    page = text(Client().get("/"))
    assert "Friday 18:00" in page and "Welcome." in page
    assert SCRIPT not in page and html.escape(SCRIPT) in page


def test_the_seasons_state_is_on_the_contest_page_and_matches_stuck_are_visible(
        season: Contest) -> None:
    assert "Season: stopped." in text(Client().get("/"))  # no process has beaten yet
    Version.objects.filter(bot__name="mybot").update(status=Version.Status.WAITING)
    assert "Matches stuck: 1 upload(s) wait" in text(Client().get("/"))
    row = Season.current()
    row.heartbeat = timezone.now()
    row.status = "playing batch 3"
    row.save()
    assert "Season: running." in text(Client().get("/"))
    Version.objects.update(status=Version.Status.ACTIVE)
    row.status = ""
    row.save()
    assert "Season: idle." in text(Client().get("/"))
    row.heartbeat = timezone.now() - timedelta(hours=1)
    row.save()
    assert "Season: stopped." in text(Client().get("/"))
    row.closed = True
    row.save()
    assert "Season: closed." in text(Client().get("/"))


@pytest.mark.any_database(
    "the kit is made from the config and answered before any query; its bot is checked by a"
    " process given no database")
def test_the_starter_kits_bot_passes_check_bot(season: Contest, tmp_path: Path) -> None:
    response = Client().get("/starter-kit.zip")
    assert response["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.content)) as kit:
        assert sorted(kit.namelist()) == ["starter-kit/README.txt", "starter-kit/RULES.txt",
                                          f"starter-kit/{BOT_FILE}"]
        kit.extractall(tmp_path)
    folder = tmp_path / "starter-kit"
    readme = (folder / "README.txt").read_text(encoding="utf-8")
    assert f"arena submit {BOT_FILE} --server http://testserver --token" in readme
    assert "2 points and you are out" in (folder / "RULES.txt").read_text(encoding="utf-8")
    checked = subprocess.run([sys.executable, "-m", "arena", "check-bot", BOT_FILE,
                              "--rules", "dice", "--json"], cwd=folder, capture_output=True,
                             text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["passed"] is True


def test_the_starter_kits_bot_is_the_first_bot_of_writing_a_bot() -> None:
    doc = (ROOT / "docs" / "writing-a-bot.md").read_text(encoding="utf-8")
    first = re.search(r"```python\n(.*?)```", doc, re.DOTALL)
    assert first is not None and bot_template() == first.group(1)


# --- the leaderboard ------------------------------------------------------------------------


def test_the_leaderboard_shows_each_ladder_row_and_the_provisional_apart(
        season: Contest) -> None:
    page = text(Client().get("/leaderboard"))
    ranked, provisional = page.split("<h2>Provisional</h2>") if "Provisional" in page \
        else (page, "")
    rows = ranking(season)
    assert any(row["provisional"] for row in rows) and not all(r["provisional"] for r in rows)
    for row in rows:
        where = provisional if row["provisional"] else ranked
        name = row["entrant"]
        if name == "mybot":  # a participant's bot has a page; a house entrant has none
            assert f'<a href="/bots/{name}">{name}</a>' in where
        else:
            assert f"<td>{name} <span" in where and f'href="/bots/{name}"' not in page
            assert Client().get(f"/bots/{name}").status_code == 404
        margin = round((row["high"] - row["low"]) / 2)
        assert f"{round(row['elo'])} ± {margin}" in where
        if not row["provisional"]:
            assert f"{round(row['low'])} – {round(row['high'])}" in where
    assert 'title="not separated from the bot above at 95%">=</abbr>' in ranked \
        or not any(row["tied"] for row in rows)


def test_the_leaderboard_refreshes_its_rows_by_htmx(season: Contest) -> None:
    page = text(Client().get("/leaderboard"))
    assert 'hx-get="/leaderboard/rows" hx-trigger="every 5s"' in page
    rows = Client().get("/leaderboard/rows", headers={"HX-Request": "true"})
    assert rows.status_code == 200 and "<html" not in text(rows)
    assert '<a href="/bots/mybot">mybot</a>' in text(rows)
    assert rows["Cache-Control"] == "no-store"


def test_hidden_results_show_a_participant_their_own_rows_only(
        season: Contest, settings: Any, alice: User, bob: User) -> None:
    settings.ARENA_SITE_HIDE_RESULTS = True
    signed_in = Client()
    signed_in.force_login(alice)
    mine = text(signed_in.get("/leaderboard/rows"))
    assert "/bots/mybot" in mine and "/bots/honest" not in mine
    assert "/bots/" not in text(Client().get("/leaderboard/rows"))
    theirs = Client()
    theirs.force_login(bob)
    assert "/bots/" not in text(theirs.get("/leaderboard"))
    alone = Game.objects.exclude(seats__version__isnull=False).first()
    assert alone is not None  # a game of the house bots alone
    assert theirs.get(f"/games/{alone.game_id}").status_code == 404
    assert signed_in.get(f"/games/{alone.game_id}").status_code == 404
    assert alone.game_id not in text(signed_in.get("/games"))
    staff = Client()
    staff.force_login(User.objects.create_user("teacher", is_staff=True))
    assert "<td>honest <span" in text(staff.get("/leaderboard"))  # a house row, no page


def test_an_unreadable_ladder_file_is_one_line_not_a_crash(
        played: Path, settings: Any, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(played, copy)
    config = copy / "config.yaml"
    config.write_text(config.read_text().replace(str(played), str(copy)), encoding="utf-8")
    contest = serve(copy, settings, tmp_path / "site")
    (contest.results / "ladder.json").write_text("{", encoding="utf-8")
    page = text(Client().get("/leaderboard"))
    assert "The leaderboard cannot be read now:" in page and "not JSON" in page


# --- games and the viewer --------------------------------------------------------------------


def test_the_games_list_is_newest_first_paginated_with_faults_and_voids_marked(
        season: Contest, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pages, "GAMES_A_PAGE", 3)
    Seat.objects.filter(game__number=GAMES - 1, seat=0).update(fault="crash")
    Game.objects.filter(number=GAMES - 2).update(voided=True)
    first = text(Client().get("/games"))
    ids = re.findall(r'<a href="/games/([^"]+)">', first)
    newest = Game.objects.order_by("-number")
    assert ids == [game.game_id for game in newest[:3]]
    assert '<span class="fault">crash</span>' in first
    assert '<span class="mark">voided</span>' in first
    second = text(Client().get("/games?page=2"))
    assert re.findall(r'<a href="/games/([^"]+)">', second) == [g.game_id for g in newest[3:6]]


def test_a_game_shows_its_seats_and_arenas_viewer_fed_its_own_replay(season: Contest) -> None:
    game = Game.objects.get(number=0)
    page = text(Client().get(f"/games/{game.game_id}"))
    for seat in game.seats.all():
        assert seat.entrant in page
    viewer = f"/games/{game.game_id}/replay/"
    assert f'<iframe class="viewer" title="Replay of game {game.game_id}" src="{viewer}' \
           f'viewer.html#game={game.game_id}&amp;pack=0">' in page
    shown = Client().get(viewer + "viewer.html")
    assert shown.status_code == 200 and shown["X-Frame-Options"] == "SAMEORIGIN"
    assert '<a class="back" id="back" href="/games" target="_top">← Games</a>' in text(shown)
    pack = text(Client().get(viewer + "replays/pack-00000.js"))
    listed = json.loads((season.results / "games.jsonl").read_text().splitlines()[0])["replay"]
    lines = gzip.decompress((season.results / listed).read_bytes()).decode().splitlines()
    public = public_replay(json.loads(line) for line in lines)  # as arena publish has it
    stored = base64.b64encode(gzip.compress(public.encode(), mtime=0)).decode()
    assert f'window.ARENA_REPLAY["{game.game_id}"]="{stored}";' in pack
    chances = text(Client().get(viewer + "replays/chances/pack-00000.js"))
    assert f'window.ARENA_PACK_IDS=["{game.game_id}"];' in chances
    assert "ARENA_RULES" in text(Client().get(viewer + "viewer-rules.js"))


def test_the_viewers_inline_script_and_style_are_allowed_by_hash_and_nothing_else(
        season: Contest) -> None:
    game = Game.objects.get(number=0)
    shown = Client().get(f"/games/{game.game_id}/replay/viewer.html")
    page, policy = text(shown), shown[csp.HEADER]
    for tag in ("script", "style"):
        inline = re.findall(rf"<{tag}>(.*?)</{tag}>", page, re.DOTALL)
        assert inline and all(csp.source_hash(body) in policy for body in inline)
    assert "unsafe-inline" not in policy and "frame-ancestors 'self'" in policy
    for address in ("/", "/leaderboard", "/games", f"/games/{game.game_id}"):
        header = Client().get(address)[csp.HEADER]
        assert header == csp.DEFAULT and "script-src 'self';" in header


def test_an_unknown_game_is_404_and_its_viewer_too(season: Contest) -> None:
    for address in ("/games/ld-99999999", "/games/ld-99999999/replay/viewer.html",
                    "/games/ld-99999999/replay/replays/pack-00000.js",
                    "/games/..%2F..%2Fsecret/replay/replays/pack-00000.js"):
        assert Client().get(address).status_code == 404, address


@pytest.mark.parametrize("policy", ["never", "season"])
def test_the_reveal_policy_closes_the_viewer_but_not_to_staff(
        season: Contest, settings: Any, policy: str) -> None:
    settings.ARENA_SITE_REVEAL = policy
    game = Game.objects.get(number=0)
    page = text(Client().get(f"/games/{game.game_id}"))
    assert "<iframe" not in page and game.game_id in page
    assert ("when the season closes" if policy == "season" else "keeps games") in page
    for name in ("viewer.html", "replays/pack-00000.js", "replays/chances/pack-00000.js",
                 "viewer-rules.js"):
        assert Client().get(f"/games/{game.game_id}/replay/{name}").status_code == 404
    staff = Client()
    staff.force_login(User.objects.create_user("organiser", is_staff=True))
    assert "<iframe" in text(staff.get(f"/games/{game.game_id}"))
    assert staff.get(f"/games/{game.game_id}/replay/replays/pack-00000.js").status_code == 200
    Season.objects.update_or_create(pk=1, defaults={"closed": True})
    opened = "<iframe" in text(Client().get(f"/games/{game.game_id}"))
    assert opened is (policy == "season")


# --- what a bot controls is escaped ---------------------------------------------------------


def test_a_name_in_ladder_json_and_games_jsonl_cannot_inject_script(
        played: Path, settings: Any, tmp_path: Path, alice: User) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(played, copy)
    config = copy / "config.yaml"
    config.write_text(config.read_text().replace(str(played), str(copy)), encoding="utf-8")
    contest = serve(copy, settings, tmp_path / "site")
    results = contest.results
    for name in ("ladder.json", "games.jsonl"):
        path = results / name
        path.write_text(path.read_text().replace("random", SCRIPT.replace('"', "'")),
                        encoding="utf-8")
    index(contest, alice)
    game = Game.objects.filter(seats__entrant__contains="script").first()
    assert game is not None
    for address in ("/leaderboard", "/leaderboard/rows", "/games", f"/games/{game.game_id}"):
        page = text(Client().get(address))
        assert SCRIPT not in page, address
        assert html.escape(SCRIPT) in page, address


CLASS = """\
name: class
rules: dice
entrants: [honest, statistician, random]
format: {type: gauntlet, seats: 2, games: 2, champions: [honest, statistician]}
grades: [pass: honest, merit: statistician]
"""


def test_a_class_leaderboard_shows_each_students_newest_grade(
        settings: Any, tmp_path: Path, db: None) -> None:
    (tmp_path / "config.yaml").write_text(CLASS + f"output: {tmp_path / 'results'}\n",
                                          encoding="utf-8")
    contest = serve(tmp_path, settings, tmp_path / "site")
    for folder, reached, status in (("ana@1", None, Version.Status.RETIRED),
                                    ("ana@2", "merit", Version.Status.ACTIVE),
                                    ("ben@1", "pass", Version.Status.ACTIVE)):
        name, _, number = folder.partition("@")
        owner, _ = User.objects.get_or_create(username=name)
        bot, _ = Bot.objects.get_or_create(name=name, defaults={"owner": owner})
        Version.objects.create(bot=bot, number=int(number), sha256=folder, kind="file",
                               filename=f"{name}.py", size=1, status=status, player=folder)
        path = contest.gauntlet(folder) / "grades.json"
        path.parent.mkdir(parents=True)
        graded = {"entrant": name, "reached": reached, "sentence": "",
                  "against": [{"grade": "pass", "bot": "honest", "games": 4}]}
        path.write_text(json.dumps({"graded": [graded]}), encoding="utf-8")
    page = text(Client().get("/leaderboard"))
    order = re.findall(r'<a href="/bots/(\w+)">\w+</a> <span class="version">v(\d)</span>'
                       r'</td>\s*<td>(\w+)</td>', page)
    assert order == [("ana", "2", "merit"), ("ben", "1", "pass")]
    current.cache_clear()
