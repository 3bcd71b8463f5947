"""Tests for what `arena run` of a ladder says about its entrants (issue 32): each run's
changes once (joined, replaced, left, rejected with the reason), and a submission's file
name checked as a config's alias is, with no name that differs from another only in case."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from click.testing import CliRunner
from test_ladder_runs import BOT, CONFIG
from test_ladder_season import CRASHY

from arena.cli.main import cli

VERBS = ("joined ", "replaced ", "left ", "rejected ")
RULE = ("a name may use only letters, digits, '.', '-' and '_', start with a letter or "
        "digit, and be at most 64 long (rename the file)")


def _season(root: Path, entrants: str = "bluffer", **bots: str) -> Path:
    (root / "entries").mkdir(exist_ok=True)
    for name, text in bots.items():
        (root / "entries" / f"{name}.py").write_text(text, "utf-8")
    (root / "ladder.yaml").write_text(CONFIG.replace("ENTRANTS", entrants), encoding="utf-8")
    return root / "ladder.yaml"


def _told(config: Path, out: Path) -> list[str]:
    """What a run of 4 more games says of its entrants (the lines before its ranking)."""
    result = CliRunner().invoke(cli, ["run", str(config), "--out", str(out), "--games", "4",
                                      "-q"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()  # stderr: the written seed's warning
    told = [line for line in lines if line.startswith(VERBS)]
    assert lines[:len(told)] == told, "the changes come first, then the ranking"
    return told


def test_each_run_says_once_who_joined_was_replaced_left_or_was_rejected(
        tmp_path: Path) -> None:
    config = _season(tmp_path, alice=BOT.replace("VERSION", "one"), crashy=CRASHY)
    out = tmp_path / "out"
    assert _told(config, out) == [
        "joined honest@1", "joined random@1", "joined bluffer@1", "joined alice@1",
        ("rejected crashy@1: crash in its validation game vd-crashy@1-1: ZeroDivisionError: "
         "division by zero"),
    ]
    _season(tmp_path, entrants="statistician", alice=BOT.replace("VERSION", "two"),
            bob=BOT.replace("VERSION", "bob"))
    assert _told(config, out) == ["joined statistician@1", "joined bob@1",
                                  "replaced alice@1 by alice@2", "left bluffer@1"]
    assert _told(config, out) == []
    _season(tmp_path, entrants="bluffer", alice=BOT.replace("VERSION", "one"))
    (tmp_path / "entries" / "bob.py").unlink()
    assert _told(config, out) == ["joined bluffer@1 (back)",
                                  "replaced alice@2 by alice@1 (back)", "left bob@1",
                                  "left statistician@1"]
    (tmp_path / "entries" / "crashy.py").write_text(CRASHY + "# again\n", "utf-8")
    assert _told(config, out) == [
        ("rejected crashy@2: crash in its validation game vd-crashy@2-1: ZeroDivisionError: "
         "division by zero")]


def test_a_submission_name_that_is_no_alias_or_a_case_twin_is_refused_and_said_why(
        tmp_path: Path) -> None:
    """An attack: each of these names was accepted and ranked, beside the built-in honest."""
    config, out = _season(tmp_path), tmp_path / "out"
    good = BOT.replace("VERSION", "good")
    names = ["h\u043enest", "ev\u202eil", "new\nline", "honest@1", "<b>x", "=1+2+cmd|x!A1",
             "@evil", "Honest", "random", "statistician", "Bob", "bob", "alice"]
    for name in names:
        (tmp_path / "entries" / f"{name}.py").write_text(good, "utf-8")
    assert sorted(_told(config, out)) == sorted([
        "joined honest@1", "joined random@1", "joined bluffer@1", "joined alice@1",
        (f"rejected h\\u043enest.py@1: its name 'h\\u043enest' has '\\u043e' (CYRILLIC SMALL "
        f"LETTER O): {RULE}"),
        (f"rejected ev\\u202eil.py@1: its name 'ev\\u202eil' has '\\u202e' (RIGHT-TO-LEFT "
        f"OVERRIDE): {RULE}"),
        f"rejected new\\nline.py@1: its name 'new\\nline' has '\\n': {RULE}",
        f"rejected honest@1.py@1: its name 'honest@1' has '@' (the version separator): {RULE}",
        f"rejected <b>x.py@1: its name '<b>x' starts with '<': {RULE}",
        f"rejected =1+2+cmd|x!A1.py@1: its name '=1+2+cmd|x!A1' starts with '=': {RULE}",
        f"rejected @evil.py@1: its name '@evil' starts with '@' (the version separator): {RULE}",
        ("rejected Honest.py@1: its name 'Honest' differs only in case from the organiser's "
         "entrant 'honest' (rename the file)"),
        ("rejected random.py@1: its name 'random' is the organiser's entrant 'random' (rename "
         "the file)"),
        ("rejected statistician.py@1: its name 'statistician' is the bot 'statistician' "
         "(rename the file)"),
        ("rejected Bob.py@1: its name 'Bob' differs only in case from the new submission "
         "'bob' (rename the file)"),
        ("rejected bob.py@1: its name 'bob' differs only in case from the new submission "
         "'Bob' (rename the file)"),
    ])
    ladder = json.loads((out / "ladder.json").read_text("utf-8"))
    assert {row["player"] for row in ladder["ranking"]} == {
        "honest@1", "random@1", "bluffer@1", "alice@1"}
    played = {n for line in (out / "games.jsonl").read_text("utf-8").splitlines()
              for n in json.loads(line)["entrants"]}
    assert played <= {"honest@1", "random@1", "bluffer@1", "alice@1"}
    assert not (out / "versions" / "honest@1@1").exists()
    with open(out / "standings.csv", encoding="utf-8", newline="") as handle:
        assert {row["entrant"] for row in csv.DictReader(handle)} == played
    assert _told(config, out) == [], "a refusal is said once"
    (tmp_path / "entries" / "Bob.py").unlink()
    assert _told(config, out) == ["joined bob@1"], "once its twin is gone, bob may join"
    (tmp_path / "entries" / "BOB.py").write_text(good, "utf-8")
    assert _told(config, out) == [
        ("rejected BOB.py@1: its name 'BOB' differs only in case from the ladder's entrant "
        "'bob' (rename the file)")]
