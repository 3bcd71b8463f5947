"""The house rules a change must keep: ruff clean over the tree, mypy clean on arena/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[1]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=TOP, capture_output=True,
                          text=True, timeout=300, check=False)


def test_ruff_finds_nothing() -> None:
    done = _run("ruff", "check", "--quiet", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing_in_arena() -> None:
    done = _run("mypy", "arena/")
    assert done.returncode == 0, done.stdout + done.stderr
