"""docs/ci.md's recipe works: docs/ci/compare.sh passes a bot that is not worse, fails one
that is (1), an undecided test (3) and a bot that cannot start (2), each with its line; the
GitHub Actions workflow parses and runs that same script; the page shows the script's line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "docs" / "ci" / "compare.sh"
STUDENTS = ROOT / "configs" / "class"  # ana: the first bot; ben: the tutorial's improved one


def compare_sh(*args: str) -> subprocess.CompletedProcess[str]:
    """The script as CI runs it, with this interpreter's `arena` on the PATH."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["sh", str(SCRIPT), *args], env=env, capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip


@pytest.mark.parametrize(("candidate", "baseline", "more", "status", "said"), [
    ("ben.py", "ana.py", (), 0, "is not worse than"),
    ("ana.py", "ben.py", (), 1, "is worse than"),
    ("ben.py", "ana.py", ("--games", "2"), 3, "undecided at the game limit"),
    ("nope.py", "ana.py", (), 2, "could not start (exit status 2)"),
])  # fmt: skip
def test_the_script_passes_on_compare_s_exit_status(
    candidate: str, baseline: str, more: tuple[str, ...], status: int, said: str
) -> None:
    result = compare_sh(str(STUDENTS / candidate), str(STUDENTS / baseline), "--trust",
                        "--seed", "1", *more)  # fmt: skip
    assert result.returncode == status, result.stdout + result.stderr
    assert said in result.stdout.splitlines()[-1], result.stdout


def test_the_script_needs_two_bots() -> None:
    result = compare_sh("only-one.py")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith("usage: compare.sh CANDIDATE BASELINE")


def test_the_workflow_parses_and_runs_the_same_script() -> None:
    workflow = yaml.safe_load((ROOT / "docs" / "ci" / "compare.yml").read_text("utf-8"))
    steps = workflow["jobs"]["compare"]["steps"]
    runs = [step["run"] for step in steps if "run" in step]
    assert runs[-1].startswith("sh docs/ci/compare.sh ")
    assert "pip install" in runs[0] and "ARENA_INSTALL" in runs[0]
    assert any(step.get("uses", "").startswith("actions/setup-python") for step in steps)


def test_the_page_shows_the_script_s_compare_line() -> None:
    page = (ROOT / "docs" / "ci.md").read_text("utf-8")
    line = next(x for x in SCRIPT.read_text("utf-8").splitlines() if x.startswith("arena "))
    assert f"\n{line}\n" in page
    assert "--elo0 0 --elo1 20 --games 6000" in line
