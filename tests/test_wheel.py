"""A release install (issue 32, items 1 and 2): the wheel that `pip install` of a published
package gets, built from the project's own files and installed into a fresh venv that has no
checkout on its path. It must hold every package and data file arena reads and nothing else
(no tests, no stray files), carry the distribution name of pyproject.toml, and every command
must work from it: each one's --help, check-bot, and the README's quickstart.

The venv is built once for the module (its dependencies come from the package index, as a
user's do); without pip, venv or git the tests skip here and fail in CI (tests/needs.py)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from needs import require

from arena.cli.main import cli

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("pyproject.toml", "setup.py", "README.md", "arena", "bots")
"""What a release is built from: the build's files, arena's package and the built-in bots."""
EXAMPLES = "bots/examples/"
"""The example command bots: copied from the repository (docs/protocol.md), never imported."""
DISTRIBUTION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"]


@dataclass(frozen=True)
class Release:
    """The wheel, the venv it is installed in, and a folder that is not the checkout."""

    wheel: Path
    venv: Path
    work: Path

    def run(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """Run one of the venv's programs in the work folder, with nothing of the checkout's
        (no PYTHONPATH, no user site) in its environment."""
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
        env |= {"PYTHONNOUSERSITE": "1", "VIRTUAL_ENV": str(self.venv),
                "PATH": f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', os.defpath)}"}
        program = str(self.venv / "bin" / args[0])
        return subprocess.run([program, *args[1:]], cwd=self.work, env=env, text=True,
                              capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL,
                              check=False)


def _tracked(paths: tuple[str, ...]) -> list[str]:
    """The project's files under `paths`: tracked, or new and not ignored (never a build's or
    a test run's leftovers such as build/, *.egg-info or __pycache__)."""
    require(shutil.which("git") and (ROOT / ".git").exists(), "git and a git checkout")
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "--", *paths],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [p for p in listed.splitlines() if (ROOT / p).is_file()]


def _step(what: str, argv: list[str], cwd: Path | None = None) -> None:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL, check=False)
    if done.returncode != 0:
        pytest.fail(f"{what} failed ({done.returncode}): {(done.stdout + done.stderr)[-3000:]}",
                    pytrace=False)


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Release]:
    """Build the wheel from a clean copy of the project's files, and install it into a fresh
    venv (no system site-packages, so the checkout's editable install is out of sight) by
    this Python's pip (`pip --python VENV`: the same install, without a pip in the venv)."""
    require(shutil.which("git"), "git, to list the project's files")
    base = tmp_path_factory.mktemp("release")
    source = base / "source"
    for name in _tracked(SHIPPED):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    _step("pip wheel", [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                        "-w", str(base / "dist"), str(source)])
    [wheel] = (base / "dist").glob("*.whl")
    venv = base / "venv"  # without a pip of its own (ensurepip was 3 s of CPU): this one's
    _step("python -m venv", [sys.executable, "-m", "venv", "--without-pip", str(venv)])
    _step("pip install of the wheel", [sys.executable, "-m", "pip", "--python",
                                       str(venv / "bin" / "python"), "install", "-q",
                                       "--disable-pip-version-check", str(wheel)])
    work = base / "elsewhere"
    work.mkdir()
    yield Release(wheel, venv, work)


def _expected_files() -> set[str]:
    """The wheel's files as the project lays them out: arena/ as is, bots/ as arena_bots/."""
    files = {p for p in _tracked(("arena", "bots")) if not p.startswith(EXAMPLES)}
    return {"arena_bots/" + p.removeprefix("bots/") if p.startswith("bots/") else p
            for p in files}


def test_the_wheel_holds_every_package_and_data_file_and_nothing_else(release: Release) -> None:
    with zipfile.ZipFile(release.wheel) as wheel:
        names = wheel.namelist()
    info = [n for n in names if n.split("/")[0].endswith(".dist-info")]
    assert set(names) - set(info) == _expected_files()
    assert "arena/checkbot/__init__.py" in names and "arena/report/static/report.js" in names


def test_the_wheel_is_the_distribution_named_in_pyproject_with_its_command_and_plugin(
        release: Release) -> None:
    assert DISTRIBUTION != "arena"  # the index's `arena` is another project (issue 32, item 2)
    with zipfile.ZipFile(release.wheel) as wheel:
        [metadata] = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
        [entry_points] = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
        assert f"Name: {DISTRIBUTION}\n" in wheel.read(metadata).decode()
        points = wheel.read(entry_points).decode()
    assert "[console_scripts]\narena = arena.cli:main\n" in points
    assert "[arena]\nbuiltin = arena_bots\n" in points


def test_the_venv_imports_arena_from_the_wheel_not_the_checkout(release: Release) -> None:
    code = ("import arena, arena_bots, importlib.metadata as m; "
            f"print(arena.__file__, arena_bots.__file__, m.version({DISTRIBUTION!r}))")
    done = release.run("python", "-c", code)
    assert done.returncode == 0, done.stderr
    arena_file, bots_file, version = done.stdout.split()
    site = release.venv.resolve()
    assert Path(arena_file).resolve().is_relative_to(site), arena_file
    assert Path(bots_file).resolve().is_relative_to(site), bots_file
    assert version == release.run("arena", "--version").stdout.split()[-1]


INSTALLS_ARENA = re.compile(r"(?<![Nn]ever `)pip install (-\S+ )*['\"]?arena\b(?![-_./])")
"""`pip install arena` or `'arena[dask]'`, but for a warning ("never `pip install arena`"): on
the package index, arena is another project."""


def test_no_doc_or_message_tells_anyone_to_pip_install_the_index_s_arena() -> None:
    texts = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "arena").rglob("*.py"),
             *(ROOT / "benchmarks").glob("*.py")]
    wrong = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}" for path in texts
             for n, line in enumerate(path.read_text().splitlines(), 1)
             if INSTALLS_ARENA.search(line)]
    assert wrong == []


def _commands(group: click.Group, ctx: click.Context, above: list[str]) -> Iterator[list[str]]:
    """Every command and subcommand of the checkout's `arena`, so a new one is covered."""
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        yield [*above, name]
        if isinstance(command, click.Group):
            yield from _commands(command, ctx, [*above, name])


HELPS = """\
import json, os, sys, tempfile, traceback
from arena.cli import main  # the console script's entry point, as `arena` loads it
said = []
for words in json.loads(sys.argv[1]):
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:  # each command from the entry point's state, as its own `arena` would
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            sys.argv = ["arena", *words, "--help"]
            code = 0
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                traceback.print_exc()
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        out.seek(0)
        err.seek(0)
        said.append([words, status, out.read().decode(), err.read().decode()])
print(json.dumps(said))
"""
"""Every subcommand's --help, each in a child forked from a venv Python that has loaded only
the `arena` script's entry point: the wheel's code, one interpreter start for them all."""


def test_every_command_answers_help_from_the_wheel(release: Release) -> None:
    commands = list(_commands(cli, click.Context(cli), []))
    assert {"run", "check-bot", "report", "play"} <= {c[0] for c in commands}
    done = release.run("arena", "--help")  # the console script itself
    assert done.returncode == 0, f"arena --help: {done.stderr}"
    assert done.stdout.startswith("Usage: arena"), done.stdout
    ran = release.run("python", "-c", HELPS, json.dumps(commands))
    assert ran.returncode == 0, ran.stderr
    said = json.loads(ran.stdout)
    assert [words for words, *_ in said] == commands
    for words, status, stdout, stderr in said:
        assert status == 0, f"arena {' '.join(words)} --help: {stderr}"
        assert stdout.startswith("Usage: arena"), stdout


def test_check_bot_passes_the_statistician_from_the_wheel(release: Release) -> None:
    done = release.run("arena", "check-bot", "statistician")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "✗" not in done.stdout


def test_the_readme_quickstart_plays_from_the_wheel(release: Release) -> None:
    """The quickstart at one deal a table, not 10: its 12 games still start both workers and
    every built-in bot from the wheel, and write the results folder; its 120 games were
    another second of CPU that told nothing more of the install."""
    text = (ROOT / "configs" / "quickstart.yaml").read_text()
    assert "  games: 10\n" in text
    (release.work / "quickstart.yaml").write_text(text.replace("  games: 10\n", "  games: 1\n"))
    done = release.run("arena", "run", "quickstart.yaml", "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "statistician" in done.stdout
    assert (release.work / "results" / "quickstart" / "standings.csv").is_file()


def test_the_built_in_bots_come_from_arena_whatever_the_distribution_is_called(
        release: Release) -> None:
    done = release.run("arena", "bots", "--json")
    assert done.returncode == 0, done.stderr
    origins = {bot["name"]: bot["origin"] for bot in json.loads(done.stdout)}
    version = release.run("arena", "--version").stdout.split()[-1]
    assert origins["statistician"] == origins["random"] == f"arena {version}"
