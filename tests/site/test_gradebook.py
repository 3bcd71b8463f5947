"""The teacher's grades (issue 35): every student's grade against the class's graded bots,
exactly as each version's grades.json says, and the gradebook CSV with arena run's columns.
Staff only: a participant or no one signed in gets 404. A ladder has no grades."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from played import bots_in, version

from arena.site.contest.contest import Contest, current
from arena.site.contest.models import Bot, Version
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

CLASS = """\
name: class
rules: dice
options: {{max_points: 2}}
entrants: [honest, {entrants}]
format: {{type: gauntlet, seats: 2, games: 2, champions: [honest]}}
grades: [pass: honest]
workers: 1
"""


def _entrant(path: Path, alias: str) -> str:
    return f"{{bot: {path}, alias: {alias}}}"


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A class's results folder as the season leaves it: each student's version played the
    gauntlet against the champions into results-versions/<bot>@<n>/ (Contest.gauntlet:
    grades.json, grades.csv)."""
    root = tmp_path_factory.mktemp("class")
    alice, bob = bots_in(root / "bots")
    for path, alias in ((alice, "alicebot"), (bob, "bobbot")):
        config = root / f"{alias}.yaml"
        config.write_text(CLASS.format(entrants=_entrant(path, alias)), encoding="utf-8")
        run_tournament(load_tournament(config), root / "results-versions" / f"{alias}@1",
                       workers=1)
    (root / "class.yaml").write_text(CLASS.format(entrants=", ".join(
        (_entrant(alice, "alicebot"), _entrant(bob, "bobbot")))) + f"output: {root / 'results'}\n",
        encoding="utf-8")
    return root


@pytest.fixture
def school(graded: Path, tmp_path: Path, settings: object, alice: User, bob: User) -> Contest:
    """The class served: alice's and bob's bots active at version 1, carol with no bot."""
    settings.CONFIG = str(graded / "class.yaml")  # type: ignore[attr-defined]
    settings.DATA = tmp_path / "site"  # type: ignore[attr-defined]
    current.cache_clear()
    version(Bot.objects.create(name="alicebot", owner=alice))
    bobbot = Bot.objects.create(name="bobbot", owner=bob)
    version(bobbot, 1, status=Version.Status.RETIRED)
    version(bobbot, 2, status=Version.Status.ACTIVE)  # not graded yet
    User.objects.create_user("carol", password="yet another long pass phrase")
    return current()


@pytest.fixture
def teacher(db: None) -> Client:
    user = User.objects.create_user("teacher", password="a long pass phrase 3", is_staff=True)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


@pytest.mark.parametrize("who", ["alice", "anonymous"])
@pytest.mark.parametrize("url", ["/grades", "/grades.csv"])
def test_the_grades_are_the_teachers_only(school: Contest, alice: User, who: str,
                                          url: str) -> None:
    client = Client()
    if who == "alice":
        client.force_login(alice)
    response = client.get(url)
    assert response.status_code == 404
    assert b"alicebot" not in response.content


def test_the_gradebook_is_each_versions_grades_csv_row_with_arena_runs_columns(
        school: Contest, teacher: Client) -> None:
    """Only alicebot@1 is graded (bobbot's active version 2 has no games yet)."""
    response = teacher.get("/grades.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    alice_run = (school.gauntlet("alicebot@1") / "grades.csv").read_text()
    head, row = alice_run.splitlines(keepends=True)
    assert response.content.decode() == f"student,{head}alice,{row}"
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:3] == ["student", "entrant", "reached"] and rows[1][:2] == ["alice", "alicebot"]


def test_the_gradebook_of_several_students_is_their_rows_in_order(
        school: Contest, teacher: Client, bob: User) -> None:
    Version.objects.filter(bot__name="bobbot", number=2).delete()
    Version.objects.filter(bot__name="bobbot").update(status=Version.Status.ACTIVE)
    runs = [(school.gauntlet(f"{name}@1") / "grades.csv").read_text().splitlines(
        keepends=True) for name in ("alicebot", "bobbot")]
    assert teacher.get("/grades.csv").content.decode() == "".join(
        ["student," + runs[0][0], *("alice," + r for r in runs[0][1:]),
         *("bob," + r for r in runs[1][1:])])


def test_the_page_says_each_students_grade_as_grades_json_says(
        school: Contest, teacher: Client) -> None:
    text = teacher.get("/grades").content.decode()
    said = json.loads((school.gauntlet("alicebot@1") / "grades.json").read_text())
    row = said["graded"][0]
    assert f"<td>{row['reached'] or 'none'}</td>" in text
    assert "not graded yet" in text  # bobbot@2
    assert "<td>carol</td>" in text and "no bot" in text


def test_a_ladder_has_no_grades(contest: Contest, db: None) -> None:
    staff = User.objects.create_user("organiser", password="a long pass phrase 4", is_staff=True)
    client = Client()
    client.force_login(staff)
    assert "There are no grades in this contest" in client.get("/grades").content.decode()
    assert client.get("/grades.csv").status_code == 404
