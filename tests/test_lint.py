"""The house rules a change must keep: ruff clean over the tree, mypy clean on arena/ under
the strict configuration of pyproject.toml ([tool.mypy] strict = true), py.typed shipped."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[1]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=TOP, capture_output=True,
                          text=True, timeout=300, check=False)


def test_ruff_finds_nothing() -> None:
    done = _run("ruff", "check", "--quiet", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def mypy_cache() -> Path:
    """mypy's cache for this suite, outside the checkout, so a fresh clone (what CI runs)
    starts warm: the checker's own stubs and Django's, most of a cold run, are the same in
    every clone, and a module whose text changed is checked again (mypy compares its hash).
    One file a module (not mypy's SQLite store), written by replacing: two checkouts'
    suites may run mypy on it at once."""
    home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(home) / "liars-poker-arena" / "mypy"


@pytest.mark.slow  # 17 s of CPU on a cold cache (a first run on a machine), 0.6 s warm
def test_mypy_finds_nothing_in_arena() -> None:
    done = _run("mypy", "--cache-dir", str(mypy_cache()), "--no-sqlite-cache", "arena/")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_package_ships_py_typed_so_users_type_checkers_read_the_hints(tmp_path: Path) -> None:
    """What setuptools installs (build_py: the packages and their package data) has py.typed."""
    source = tmp_path / "source"
    source.mkdir()
    for part in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(TOP / part, source / part)
    for folder in ("arena", "bots"):
        shutil.copytree(TOP / folder, source / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    built = tmp_path / "built"
    done = subprocess.run([sys.executable, "setup.py", "--quiet", "build_py",
                           "--build-lib", str(built)], cwd=source, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (built / "arena" / "py.typed").is_file()
    assert (built / "arena" / "rules" / "base.py").is_file()
    assert (built / "arena_bots" / "random_bot.py").is_file()
    assert (built / "arena" / "checkbot" / "__init__.py").is_file()


def _branches(count: int) -> str:
    """A function that takes one of `count + 1` paths (its cyclomatic complexity)."""
    return "def choose(n: int) -> int:\n" + "".join(
        f"    if n == {i}:\n        return {i}\n" for i in range(count)) + "    return -1\n"


def test_a_function_of_more_than_twelve_paths_is_refused() -> None:
    """Complexity, not a module's length, is what the tree is kept readable by (C901, 12)."""
    def complaints(source: str) -> str:
        return subprocess.run(
            [sys.executable, "-m", "ruff", "check", "--quiet", "--stdin-filename",
             "arena/example.py", "-"], cwd=TOP, input=source, capture_output=True, text=True,
            timeout=300, check=False).stdout

    assert complaints(_branches(11)) == ""
    assert "C901 `choose` is too complex (13 > 12)" in complaints(_branches(12))


def test_no_two_modules_under_tests_share_a_name() -> None:
    """The tests' folders are not packages (rootdir-relative imports, `from needs import ...`),
    so two modules of one name stop the whole suite at collection; one file run alone passes."""
    names: dict[str, list[str]] = {}
    for path in sorted((TOP / "tests").rglob("*.py")):
        if path.name != "conftest.py" and "zoo" not in path.parts and "fixtures" not in path.parts:
            names.setdefault(path.name, []).append(str(path.relative_to(TOP)))
    assert {n: p for n, p in names.items() if len(p) > 1} == {}
