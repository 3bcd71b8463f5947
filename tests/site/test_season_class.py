"""The season of a class (a gauntlet config with grades): the config's own students play as
the demo class, each uploaded student's version plays the gauntlet against the champions
into results/<name>-versions/<bot>@<n>/ (beside the demo class's folder, not inside it),
indexed with prefixed ids, and `grades()` says what each version's grades.json says; once
all is played, a turn has nothing to do."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from season_support import GOOD, command_bot, games, upload, upload_archive

from arena.site.contest.contest import Contest, current
from arena.site.contest.models import Game, Season, Version
from arena.site.contest.standings import grades, leaderboard
from arena.site.season import run_once
from arena.site.season.loop import beat
from arena.tournament.run.results import foreign

pytestmark = pytest.mark.django_db
CLASS = """\
name: class
rules: dice
options: {max_points: 2}
entrants:
  - honest
  - random
  - {bot: class/ana.py, alias: ana}
format: {type: gauntlet, seats: 2, games: 2, champions: [honest, random]}
grades: [pass: random, merit: honest]
"""
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def klass(tmp_path: Path, settings: object) -> Iterator[Contest]:
    """A served class in tmp_path: the demo student ana, two champions, two grades."""
    (tmp_path / "class").mkdir()
    shutil.copy(ROOT / "configs" / "class" / "ana.py", tmp_path / "class" / "ana.py")
    config = tmp_path / "class.yaml"
    config.write_text(CLASS + f"output: {tmp_path / 'results' / 'class'}\n", encoding="utf-8")
    settings.CONFIG = str(config)  # type: ignore[attr-defined]
    settings.DATA = tmp_path / "site"  # type: ignore[attr-defined]
    current.cache_clear()
    yield current()
    current.cache_clear()


def test_a_class_plays_each_students_gauntlet_and_grades_are_grades_json(
        klass: Contest, alice: User) -> None:
    first = run_once(klass)
    assert first.indexed == len(games(klass.results)) > 0, "the demo class plays at once"
    mine = upload(klass, alice, "zed", GOOD)
    run_once(klass)
    mine.refresh_from_db()
    assert mine.status == Version.Status.ACTIVE and mine.player == "zed@1"
    folder = klass.gauntlet("zed@1")
    assert folder.parent == klass.results.parent / "class-versions"
    assert not foreign(klass.results), "the demo's folder holds only arena results"
    written = json.loads((folder / "grades.json").read_text("utf-8"))["graded"]
    said = {row["student"]: row for row in grades(klass)}
    assert set(said) == {"zed", "ana"}
    assert [{k: said["zed"][k] for k in ("reached", "sentence", "against")}] == \
        [{k: w[k] for k in ("reached", "sentence", "against")} for w in written]
    ids = [g.game_id for g in Game.objects.filter(game_id__startswith="zed@1-")]
    assert sorted(ids) == sorted(f"zed@1-{g['id']}" for g in games(folder))
    assert Game.objects.count() == len(games(klass.results)) + len(games(folder))
    row = next(r for r in leaderboard(klass) if r["student"] == "zed")
    assert row["games"] == len(games(folder)) and set(row["against"]) == {"random", "honest"}
    before = sorted(p.name for p in klass.results.rglob("*"))
    idle = run_once(klass)
    assert not idle.busy and idle.indexed == 0, "nothing left to do"
    beat(idle)
    assert "Season: idle." in Client().get("/").content.decode()
    assert sorted(p.name for p in klass.results.rglob("*")) == before
    assert Season.current().games_indexed == Game.objects.count()


@pytest.mark.any_database(
    "a command bot's archive, sandbox and gauntlet are the files' and arena's; a class's rows"
    " (the version checked and entered, its games indexed, its grades) are written and read on"
    " PostgreSQL in the test above")
def test_a_command_bot_of_a_class_plays_its_gauntlet(klass: Contest, alice: User) -> None:
    mine = upload_archive(klass, alice, "echo", {"bot.py": command_bot()},
                          ("python3", "bot.py"), ".tar.gz")
    run_once(klass)
    mine.refresh_from_db()
    assert mine.status == Version.Status.ACTIVE, (mine.problem, mine.checklist)
    folder = klass.gauntlet("echo@1")
    assert len(games(folder)) == 8 and not any(g["faults"] for g in games(folder))
    assert [row["student"] for row in grades(klass) if not row["house"]] == ["echo"]
