"""`arena site ...`: the organiser adds participants (a token, or a roster's one-time links),
invites, issues and revokes tokens; each prints exactly its line, and a bad input is one
line naming what is wrong. In this process, on the test database the `contest` fixture serves;
the one subprocess test reads the real database file for a leaked secret."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from django.contrib.auth.models import User
from django.test import Client

from arena.cli.main import cli
from arena.site import CONFIG_ENV, DATA_ENV, DATABASE_ENV
from arena.site.contest import accounts
from arena.site.contest.contest import Contest
from arena.site.contest.models import ApiToken, Invite, digest

TOKEN = r"arena_[A-Za-z0-9_-]{43}"


@pytest.fixture
def site(contest: Contest, db: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Contest]:
    """The contest, with the environment `arena site` sets restored afterwards."""
    for name in (CONFIG_ENV, DATA_ENV):
        monkeypatch.setenv(name, os.environ.get(name, ""))
    yield contest


def arena_site(contest: Contest, *args: str) -> Result:
    """`arena site COMMAND ARGS --config CONFIG --data DATA` in this process."""
    return CliRunner().invoke(cli, ["site", *args, "--config", str(contest.config_path),
                                    "--data", str(contest.data)])


def test_add_user_prints_the_token_once_and_keeps_only_its_digest(site: Contest) -> None:
    done = arena_site(site, "add-user", "carol", "--email", "carol@example.org")
    assert done.exit_code == 0, done.output
    assert re.fullmatch(rf"added carol; API token \(shown once\): ({TOKEN})\n", done.output)
    secret = done.output.split(": ")[-1].strip()
    carol = User.objects.get(username="carol")
    assert (carol.email, carol.is_staff, carol.has_usable_password()) == (
        "carol@example.org", False, False)
    assert accounts.user_of_token(secret) == carol
    assert ApiToken.objects.get().digest == digest(secret)


def test_add_user_staff_makes_an_organiser(site: Contest) -> None:
    assert arena_site(site, "add-user", "teacher", "--staff").exit_code == 0
    assert User.objects.get(username="teacher").is_staff


@pytest.mark.parametrize(("args", "said"), [
    (("add-user", "alice"), ("arena: error: the name 'alice' is participant 'alice' (choose "
                            "another name)\n")),
    (("add-user", "ALICE"), ("arena: error: the name 'ALICE' differs only in case from "
                            "participant 'alice' (choose another name)\n")),
    (("add-user", "random"), ("arena: error: the name 'random' is house entrant 'random' "
                             "(choose another name)\n")),
    (("add-user", "x", "--email", "nope"), ("arena: error: --email: 'nope' is not an e-mail "
                                           "address\n")),
    (("token", "nobody"), "arena: error: no participant is called 'nobody'\n"),
    (("link", "nobody"), "arena: error: no participant is called 'nobody'\n"),
    (("revoke", "nobody"), "arena: error: no participant is called 'nobody'\n"),
])
def test_a_refused_command_says_why_in_one_line(site: Contest, alice: User,
                                                args: tuple[str, ...], said: str) -> None:
    done = arena_site(site, *args)
    assert (done.exit_code, done.output) == (2, said)
    assert User.objects.count() == 1


def test_a_name_off_the_ladder_s_rules_is_refused(site: Contest) -> None:
    done = arena_site(site, "add-user", "../carol")
    assert done.exit_code == 2
    assert done.output.startswith("arena: error: the name '../carol' starts with '.'")
    assert done.output.endswith("(choose another name)\n")


def test_token_issues_another_and_revoke_revokes_them_all(site: Contest, alice: User) -> None:
    _, first = ApiToken.issue(alice)
    done = arena_site(site, "token", "alice")
    assert re.fullmatch(rf"new API token for alice \(shown once\): ({TOKEN})\n", done.output)
    second = done.output.split(": ")[-1].strip()
    assert accounts.user_of_token(first) == accounts.user_of_token(second) == alice
    assert arena_site(site, "revoke", "alice").output == "revoked 2 API tokens of alice\n"
    assert accounts.user_of_token(first) is None and accounts.user_of_token(second) is None
    assert arena_site(site, "revoke", "alice").output == "revoked 0 API tokens of alice\n"


def test_invite_prints_a_code_that_lets_as_many_join_as_it_says(site: Contest) -> None:
    done = arena_site(site, "invite", "--uses", "3")
    found = re.fullmatch(r"invite code \(shown once; for 3 participants\): (\S+)\n", done.output)
    assert found is not None, done.output
    assert accounts.invite_problem(found.group(1)) is None
    assert Invite.objects.get().max_uses == 3
    any_number = arena_site(site, "invite").output
    assert any_number.startswith("invite code (shown once; for any number of participants): ")


def test_a_roster_adds_the_missing_and_prints_each_one_s_link(site: Contest, alice: User,
                                                              tmp_path: Path) -> None:
    roster = tmp_path / "class.txt"
    roster.write_text("# period 3\nana\n\nben, ben@example.org  # late\nalice\n",
                      encoding="utf-8")
    done = arena_site(site, "roster", str(roster), "--url", "http://testserver/")
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert [line.split(" ")[0] for line in lines] == ["ana", "ben", "alice"]
    for line in lines:
        assert re.fullmatch(r"\S+ http://testserver/login/link\?sesame=[A-Za-z0-9_-]+", line)
    assert User.objects.get(username="ben").email == "ben@example.org"
    link = lines[1].split(" ")[1].removeprefix("http://testserver")
    client = Client()
    assert client.post(link).status_code == 302
    assert client.get("/account").context["user"].username == "ben"  # type: ignore[index]
    assert Client().post(link).status_code == 410


def test_link_signs_in_an_organiser_added_by_add_user_once(site: Contest) -> None:
    assert arena_site(site, "add-user", "teacher", "--staff").exit_code == 0
    done = arena_site(site, "link", "teacher", "--url", "http://testserver")
    assert done.exit_code == 0, done.output
    found = re.fullmatch(r"teacher http://testserver(/login/link\?sesame=[A-Za-z0-9_-]+)\n",
                         done.output)
    assert found is not None, done.output
    client = Client()
    assert client.post(found[1]).status_code == 302
    assert client.get("/grades").status_code == 200  # the staff's page
    assert Client().post(found[1]).status_code == 410


@pytest.mark.parametrize(("text", "said"), [
    ("ana\nben,ben@x.org,extra\n", ("line 2: a roster line is NAME or NAME,EMAIL, got "
                                   "'ben,ben@x.org,extra'")),
    ("ana\n,ben@x.org\n", "line 2: a roster line is NAME or NAME,EMAIL, got ',ben@x.org'"),
    ("ana\nben,not-an-address\n", "line 2: 'not-an-address' is not an e-mail address"),
    ("ana\nBen\nben\n", ("line 3: the name 'ben' differs only in case from participant 'Ben' "
                        "(choose another name)")),
])
def test_a_bad_roster_line_is_one_line_naming_it_and_adds_no_one(
        site: Contest, tmp_path: Path, text: str, said: str) -> None:
    roster = tmp_path / "class.txt"
    roster.write_text(text, encoding="utf-8")
    done = arena_site(site, "roster", str(roster))
    assert (done.exit_code, done.output) == (2, f"arena: error: {roster}, {said}\n")
    assert not User.objects.exists()


def test_a_config_error_is_one_line(site: Contest, tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("name: x\nrules: dice\nentrants: [honest]\nformat: {type: swiss}\n",
                      encoding="utf-8")
    done = CliRunner().invoke(cli, ["site", "invite", "--config", str(config)])
    assert done.exit_code == 2
    assert done.output.startswith("arena: error: ") and done.output.count("\n") == 1


def test_a_round_robin_is_not_served(site: Contest, tmp_path: Path) -> None:
    config = tmp_path / "rr.yaml"
    config.write_text("name: rr\nrules: dice\nentrants: [honest, random]\n", encoding="utf-8")
    done = CliRunner().invoke(cli, ["site", "invite", "--config", str(config)])
    assert (done.exit_code, done.output) == (2, (
        f"arena: error: {config}: a site serves a ladder (format: {{type: ladder}}) or a "
        "class (a gauntlet with grades), not a round-robin\n"))


def test_the_database_file_holds_no_secret(tmp_path: Path) -> None:
    """A real `arena site add-user` in its own process: neither its token nor an invite
    code is anywhere in the SQLite files, only their digests."""
    config = tmp_path / "config.yaml"
    config.write_text("name: season\nrules: dice\nentrants: [honest, random]\n"
                      "format: {type: ladder, seats: 2}\n", encoding="utf-8")
    data = tmp_path / "site"
    env = {k: v for k, v in os.environ.items() if k not in (CONFIG_ENV, DATA_ENV, DATABASE_ENV)}

    def run(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "arena", "site", *args, "--config",
                               str(config), "--data", str(data)], env=env, cwd=tmp_path,
                              capture_output=True, text=True, check=False, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.split(": ")[-1].strip()

    secrets = [run("add-user", "carol"), run("invite")]
    stored = b"".join(p.read_bytes() for p in data.glob("db.sqlite3*"))
    for secret in secrets:
        assert secret.encode() not in stored
        assert digest(secret).encode() in stored
    assert (data.stat().st_mode & 0o777) == 0o700


class Watched(logging.Handler):
    """A handler of the process that says whether someone closed it."""

    was_closed = False

    def close(self) -> None:
        self.was_closed = True
        super().close()


def test_arena_site_in_a_process_whose_django_runs_leaves_its_logging_alone(
        site: Contest) -> None:
    """Django starts once a process: a second start re-configured logging and closed every
    handler (open_spiel's absl handler closes its stream, here pytest's capture of stderr, and
    the whole suite stopped)."""
    handler = Watched()
    logging.getLogger().addHandler(handler)
    try:
        assert arena_site(site, "invite", "--uses", "1").exit_code == 0
        assert not handler.was_closed
    finally:
        logging.getLogger().removeHandler(handler)
