"""A participant's bot that tries to read the site: its database, its secret key, the store of
everyone's uploads, the entries the season hands the ladder, the results folder's secret, and
the environment the site runs with, by every path it could guess (the host's, and the one the
sandbox shows a host /tmp path under), at check-bot and in a ladder game. The sandbox shows it
none of them: its crash says what it saw, and it saw nothing."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from season_support import upload

from arena.hosts.walls import IsolationError, level
from arena.site.contest import store
from arena.site.contest.contest import Contest
from arena.site.contest.models import Seat, Version
from arena.site.season import run_once
from arena.site.season.checks import check_received

pytestmark = pytest.mark.django_db

PROBE = """\
import os
import arena

TARGETS = {targets!r}


def seen():
    found = [p for t in TARGETS for p in (t, "/outside" + t) if os.path.exists(p)]
    found += [k for k in os.environ if k.startswith(("ARENA_SITE", "DJANGO"))]
    return ", ".join(found) or "nothing"


class Probe(arena.Bot):
    def act(self, observation):
        if {when}:
            raise RuntimeError("saw: " + seen())
        return arena.random_action(observation.legal, self.rng)
"""
IN_GAMES = 'any(name.startswith(("random", "honest")) for name in self.context.names)'
"""Only in the ladder's games, against either of its players (check-bot and the validation
deal, whose house bot is `house-1`, pass)."""


@pytest.fixture
def site_files(contest: Contest, bob: User) -> list[str]:
    """The data folder as a served site has it (database, secret key, bob's upload in the
    store and in entries/) and the results folder with its secret (the ladder makes it):
    every path a bot must not see."""
    data, results = contest.data, contest.results
    for path, text in ((data / "db.sqlite3", "SQLite format 3"), (data / "secret-key", "KEY"),
                       (data / "entries" / "bobbot.py", "BOB'S CODE")):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    sha = store.put(b"BOB'S CODE", contest.store)
    paths = [data, data / "db.sqlite3", data / "secret-key", data / "store",
             store.location(sha, contest.store), data / "entries",
             data / "entries" / "bobbot.py", results / "secret", results]
    return [str(p) for p in paths]


def _sandboxed(contest: Contest) -> None:
    try:
        if level(contest.config.isolation).name == "none":
            pytest.skip("this machine has no sandbox: a site here runs uploads unwalled")
    except IsolationError as exc:
        pytest.skip(str(exc))


def _probe(contest: Contest, user: User, name: str, targets: list[str], when: str) -> Version:
    return upload(contest, user, name, PROBE.format(targets=targets, when=when))


def test_a_bot_at_check_bot_sees_nothing_of_the_site(contest: Contest, alice: User,
                                                    site_files: list[str]) -> None:
    _sandboxed(contest)
    probe = _probe(contest, alice, "probe", site_files, "True")
    check_received(contest, level(contest.config.isolation).name)
    probe.refresh_from_db()
    said = " ".join(line["text"] for line in probe.checklist)
    assert "RuntimeError: saw: nothing" in said, said
    assert str(contest.data) not in said and "saw: /" not in said


def test_a_bot_in_a_ladder_game_sees_nothing_of_the_site(contest: Contest, alice: User,
                                                         site_files: list[str]) -> None:
    _sandboxed(contest)
    probe = _probe(contest, alice, "probe", site_files, IN_GAMES)
    for _ in range(8):  # until matchmaking has seated the probe
        run_once(contest)
        if Seat.objects.filter(version=probe).exists():
            break
    probe.refresh_from_db()
    assert probe.status == Version.Status.ACTIVE, (probe.status, probe.problem)
    faults = list(Seat.objects.filter(version=probe).exclude(fault="")
                  .values_list("fault_message", flat=True))
    assert faults, "the probe played no ladder game"
    for message in faults:
        assert "RuntimeError: saw: nothing" in message, message


@pytest.mark.any_database("the store is files and their modes")
def test_the_store_keeps_an_upload_private_to_the_sites_user(contest: Contest) -> None:
    """Another user of the machine (a bot's own uid under strict) reads no upload."""
    sha = store.put(b"print('mine')\n", contest.store)
    path = store.location(sha, contest.store)
    assert path.stat().st_mode & 0o077 == 0
    assert path.parent.stat().st_mode & 0o077 == 0
    assert hashlib.sha256(path.read_bytes()).hexdigest() == sha
    assert Path(contest.store).is_dir()


@pytest.mark.any_database(
    "the refusal is decided in Python from the isolation level; a version's checks and status"
    " are written on PostgreSQL by the two sandboxed tests above and test_season.py")
def test_without_a_sandbox_no_upload_runs_unless_the_organiser_said_so(
        contest: Contest, alice: User, site_files: list[str]) -> None:
    """A machine with no walls (level `none`, the strongest it has) would run a stranger's
    upload as the site's own user, secret key and database in reach: the season leaves it
    received and says why, until the organiser's config says `isolation: none`."""
    probe = _probe(contest, alice, "probe", site_files, "True")
    done, trouble = check_received(contest, "none")
    probe.refresh_from_db()
    assert (done, probe.status) == (0, Version.Status.RECEIVED)
    assert "sandbox" in trouble and "isolation: none" in trouble
    trusting = replace(contest, config=replace(contest.config, isolation="none"))
    assert check_received(trusting, "none") == (1, "")
    probe.refresh_from_db()
    said = " ".join(line["text"] for line in probe.checklist)
    assert f"saw: {contest.data}" in said  # the probe does see, unwalled: the control
