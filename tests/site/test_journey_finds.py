"""What the browser journey (test_journey.py) found wrong, pinned where it is quick: a class
version's fault told with its trace to its owner and its game in the viewer (the gauntlet's
own ids, without the index's prefix), no server folder in what a page says, the viewer's
look for a next game answered, a class's faults counted on its leaderboard, an upload's
line shown on the page it lands on, and a class's pages in a class's words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from season_support import AGAINST, GOOD, upload

from arena.site.contest import bot_data, grades
from arena.site.contest.contest import Contest, current
from arena.site.contest.models import Seat, Version
from arena.site.season import run_once

pytestmark = pytest.mark.django_db
CLASS = """\
name: class
rules: dice
options: {max_points: 2}
entrants: [honest, {bot: random, alias: demo}]
format: {type: gauntlet, seats: 2, games: 1, champions: [honest]}
grades: [pass: honest]
"""
PICKY = AGAINST.replace("NAME", "honest")
"""Passes check-bot (whose games name no one), then raises in every game against honest."""


@pytest.fixture
def klass(tmp_path: Path, settings: object) -> Iterator[Contest]:
    """A served class: one champion, one deal, a house student."""
    config = tmp_path / "class.yaml"
    config.write_text(CLASS + f"output: {tmp_path / 'results' / 'class'}\n", encoding="utf-8")
    settings.CONFIG = str(config)  # type: ignore[attr-defined]
    settings.DATA = tmp_path / "site"  # type: ignore[attr-defined]
    current.cache_clear()
    yield current()
    current.cache_clear()


def signed(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def board_page(client: Client) -> str:
    """picky's public page, as this client reads it."""
    return str(client.get("/bots/picky").content.decode())


def test_a_class_versions_fault_is_told_its_game_viewed_and_counted(
        klass: Contest, alice: User, bob: User, tmp_path: Path) -> None:
    upload(klass, alice, "picky", PICKY)
    run_once(klass)
    assert Version.objects.get().status == Version.Status.ACTIVE
    seat = Seat.objects.exclude(fault="").select_related("game").first()
    assert seat is not None and seat.game.game_id.startswith("picky@1-")
    owner = signed(alice).get("/bots/picky").content.decode()
    assert "picky.py:7 in Picky.act: raise RuntimeError" in owner and "no details" not in owner
    view = signed(alice).get(f"/bots/picky/games/{seat.game.game_id}").content.decode()
    assert "cannot be shown" not in view and "honest" in view
    for reader in (Client(), signed(bob)):
        assert "Picky.act" not in reader.get("/bots/picky").content.decode()
    viewer = f"/games/{seat.game.game_id}/replay/replays/"
    pack = Client().get(viewer + "pack-00000.js")
    assert pack.status_code == 200 and seat.game.game_id in pack.content.decode()
    after = Client().get(viewer + "chances/pack-00001.js")
    assert after.status_code == 200 and b"window.ARENA_PACK_IDS=[];" in after.content
    board = Client().get("/leaderboard").content.decode()
    faults = Seat.objects.filter(version__bot__name="picky").exclude(fault="").count()
    assert re.search(rf'href="/bots/picky">picky</a>.*?faulty">{faults}</td>', board, re.DOTALL)
    assert "<td>demo <span" in board and 'href="/bots/demo"' not in board
    ranks = re.findall(r"<tr[^>]*>\s*<td>(\d+)</td>\s*<td>(?:<a [^>]*>)?(\w+)", board)
    assert ranks == [("1", "demo"), ("1", "picky")]  # no grade either: the same rank
    graded = grades.version_grades(klass, Version.objects.get())
    assert graded is not None and f"<dd>none: {graded['sentence']}</dd>" in board_page(Client())
    home, own = bot_data.home(klass, seat.game)
    (home / "replays" / f"{own}.json.gz").unlink()
    gone = signed(alice).get("/bots/picky").content.decode()
    assert "no details" in gone and str(tmp_path) not in gone


def test_an_upload_from_the_page_is_said_on_the_page_it_lands_on(
        klass: Contest, signed_in: Client) -> None:
    form = signed_in.get("/upload")
    landed = signed_in.post("/upload", {"file": SimpleUploadedFile("steady.py", GOOD.encode()),
                                        "csrfmiddlewaretoken": form.context["csrf_token"]},
                            follow=True)
    assert landed.redirect_chain == [("/bots/steady", 302)]
    assert "uploaded steady@1: received" in landed.content.decode()
    assert "uploaded steady@1" not in signed_in.get("/account").content.decode()  # said once


def test_a_class_is_told_in_a_classs_words(klass: Contest, alice: User) -> None:
    home = Client().get("/").content.decode()
    assert "plays 1 deal against each of honest" in home and "validation deal" not in home
    upload(klass, alice, "steady", GOOD)
    Version.objects.update(status=Version.Status.WAITING)
    for page in ("/bots/steady", "/my-bots"):
        assert "waiting to play the graded bots" in signed(alice).get(page).content.decode()


def test_a_class_that_hides_its_results_hides_each_bots_page_from_the_others(
        klass: Contest, alice: User, bob: User, settings: object) -> None:
    upload(klass, alice, "steady", GOOD)
    settings.ARENA_SITE_HIDE_RESULTS = True  # type: ignore[attr-defined]
    staff = User.objects.create_user("teacher", is_staff=True)
    assert [c.get("/bots/steady").status_code for c in (signed(alice), signed(staff))] == [200] * 2
    for reader in (Client(), signed(bob)):
        assert reader.get("/bots/steady").status_code == 404
        assert reader.get("/bots/steady").content == reader.get("/bots/nobot").content
