"""Archives in the season (issue 35): a zip of a Python bot folder and a tar.gz of a command
bot (`python3 bot.py`) are unpacked from the store (every member checked again), checked
with check-bot, enter the ladder and play; a command bot that crashes has its fault on its
owner's page; a command bot's next version is new content to the ladder; an archive the
store no longer holds intact is the site's trouble, never the bot's failure."""

from __future__ import annotations

import html
import json

import pytest
from django.contrib.auth.models import User
from django.test import Client
from season_support import command_bot, upload, upload_archive

from arena.site.contest.contest import Contest
from arena.site.contest.models import Seat, Version
from arena.site.season import run_once

pytestmark = [pytest.mark.django_db, pytest.mark.any_database(
    "the season's database work (a version checked, entered, retired, its games indexed) is"
    " test_season.py's, run on PostgreSQL; an archive adds its unpacking, on the file system")]
Status = Version.Status
FOLDER = {
    "bot.py": "import arena\nfrom helper import pick\n\n\nclass Wren(arena.Bot):\n"
              "    def act(self, observation: arena.Observation) -> arena.Action:\n"
              "        return pick(observation, self.rng)\n",
    "helper.py": "import arena\n\n\ndef pick(observation, rng):\n"
                 "    return arena.random_action(observation.legal, rng)\n",
}
"""A Python bot folder: bot.py imports its sibling."""
PYTHON3 = ("python3", "bot.py")
PLAYERS = ("honest", "random", "wren", "echo")
"""The ladder's other players (the contest's two and two uploads): never its validation's
house bot nor check-bot's, so picky passes both and crashes in its first ladder game."""


def _log(contest: Contest) -> list[dict[str, object]]:
    text = (contest.results / "ladder-log.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_archives_are_checked_enter_the_ladder_and_play_and_a_crash_is_on_its_page(
        contest: Contest, alice: User, bob: User) -> None:
    wren = upload_archive(contest, alice, "wren", FOLDER)
    echo = upload_archive(contest, bob, "echo", {"bot.py": command_bot()}, PYTHON3, ".tar.gz")
    picky = upload_archive(contest, bob, "picky", {"bot.py": command_bot(*PLAYERS)}, PYTHON3,
                           ".tar.gz")
    run_once(contest)
    for version in (wren, echo, picky):
        version.refresh_from_db()
        assert version.status == Status.ACTIVE, (version, version.problem, version.checklist)
        assert version.player == f"{version.bot.name}@1"
        assert version.checklist[0]["ok"] is True
    frozen = contest.results / "versions" / "wren@1" / "wren"
    assert sorted(p.name for p in frozen.iterdir()) == ["bot.py", "helper.py"]
    digests = {e["entrant"]: e["digest"] for e in _log(contest) if e["status"] == "active"}
    assert digests["echo"] == echo.digest and digests["picky"] == picky.digest
    for _ in range(12):  # until matchmaking has seated all three (picky crashes at once)
        if all(Seat.objects.filter(version=v).exists() for v in (wren, echo, picky)):
            break
        run_once(contest)
    assert Seat.objects.filter(version=wren, fault="").exists()
    assert Seat.objects.filter(version=echo, fault="").exists()
    assert Seat.objects.filter(version=picky, fault="crash").exists()
    owner, other = Client(), Client()
    owner.force_login(bob)
    other.force_login(alice)
    said = html.escape("I will not play them", quote=True)
    assert said in owner.get("/bots/picky").content.decode()
    assert said not in other.get("/bots/picky").content.decode()


def test_a_command_bots_next_version_replaces_it_in_the_ladder(
        contest: Contest, alice: User) -> None:
    first = upload_archive(contest, alice, "echo", {"bot.py": command_bot()}, PYTHON3)
    run_once(contest)
    second = upload_archive(contest, alice, "echo",
                            {"bot.py": command_bot() + "\n# version two\n"}, PYTHON3)
    run_once(contest)
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == (Status.RETIRED, Status.ACTIVE)
    assert (first.player, second.player) == ("echo@1", "echo@2")
    assert first.digest != second.digest
    folders = list((contest.data / "commands").iterdir())
    assert sorted(p.name for p in folders) == sorted([second.sha256, f".{second.sha256}.sha256"])
    run_once(contest)
    assert Seat.objects.filter(version=second).exists()


def test_a_bot_that_switches_from_a_file_to_a_folder_is_one_entrant(
        contest: Contest, alice: User) -> None:
    upload(contest, alice, "wren", FOLDER["helper.py"].replace(
        "def pick(observation, rng):\n    return",
        "class Wren(arena.Bot):\n    def act(self, observation):\n        return").replace(
        "observation.legal, rng", "observation.legal, self.rng"))
    run_once(contest)
    folder = upload_archive(contest, alice, "wren", FOLDER)
    run_once(contest)
    folder.refresh_from_db()
    assert folder.status == Status.ACTIVE and folder.player == "wren@2", folder.problem
    assert sorted(p.name for p in contest.entries.iterdir()) == [".wren.sha256", "wren"]


def test_a_tampered_store_is_the_sites_trouble_and_a_bad_archive_fails_its_check(
        contest: Contest, alice: User, bob: User) -> None:
    kept = upload_archive(contest, alice, "wren", FOLDER)
    stored = contest.store / kept.sha256[:2] / kept.sha256
    stored.write_bytes(stored.read_bytes()[:-1] + b"!")
    climber = upload_archive(contest, bob, "climb", {"bot.py": "x = 1\n"}, ("../sh", "x"))
    turn = run_once(contest)
    kept.refresh_from_db()
    climber.refresh_from_db()
    assert kept.status == Status.RECEIVED and "does not hold the bytes" in turn.trouble
    assert climber.status == Status.FAILED_CHECK
    assert climber.problem == "the command's program '../sh' is outside the archive"
