"""docs/teaching.md stays true: its class config is configs/class.yaml, which validates and
grades every student in one run, and the grade book grades.csv says what grades.json says."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

from cli_support import invoke_cli, unloaded

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "teaching.md"
CONFIG = ROOT / "configs" / "class.yaml"
STUDENTS = ["ana", "ben", "cleo"]


def test_the_page_shows_the_class_config_and_its_commands() -> None:
    text = PAGE.read_text(encoding="utf-8")
    shown = re.search(r"```\n(entrants:\n.*?)```", text, re.DOTALL)
    assert shown is not None
    config = CONFIG.read_text(encoding="utf-8")
    assert shown.group(1) in config
    assert "```sh\narena validate configs/class.yaml\narena run configs/class.yaml\n```" in text


def test_the_class_is_graded_in_one_run_into_grades_csv(tmp_path: Path) -> None:
    """The page's class at 4 deals a champion (its 40 are a minute): a line per student, and
    the grade book's rows are grades.json's students, grades and sentences. On one worker:
    the grades are those of any number of workers, with each student's process started once
    instead of once a worker, and no worker processes (8 s of CPU on two, 5 s on one)."""
    assert invoke_cli("validate", CONFIG).exit_code == 0
    shutil.copytree(ROOT / "configs" / "class", tmp_path / "class")
    text = CONFIG.read_text(encoding="utf-8")
    assert "  games: 40\n" in text
    config = tmp_path / "class.yaml"
    config.write_text(text.replace("  games: 40\n", "  games: 4\n"), encoding="utf-8")
    out = tmp_path / "out"
    result = invoke_cli("run", config, "--out", out, "--workers", "1", "-q")
    assert (result.exit_code, unloaded(result.stderr)) == (0, "")
    lines = [line for line in result.stdout.splitlines() if line.startswith("grade: ")]
    assert [line.split()[1] for line in lines] == STUDENTS
    assert lines[2].startswith("grade: cleo reached no grade: did not beat honest (0% of 8 ")
    document = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    rows = list(csv.DictReader(io.StringIO((out / "grades.csv").read_text(encoding="utf-8"))))
    assert [(r["entrant"], r["reached"] or None, r["sentence"]) for r in rows] == [
        (g["entrant"], g["reached"], g["sentence"]) for g in document["graded"]]
    assert [f"grade: {r['sentence']}" for r in rows] == lines
    assert all(row["games vs honest"] == "8" for row in rows)
