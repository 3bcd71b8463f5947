"""A bot file's code runs only in its own bot process: `arena run` (its main process and its
workers), `validate`, `compare`, `play` and `arena.play_game` learn its name, rule sets and
options from what it says at hello, never by importing it. A bot that patches the rules from
its module-level code patches only its own process; one that blocks or hoards memory at
import is refused with one line within the start-up timeout."""

from __future__ import annotations

import json
import shutil
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import warm_arena
from click.testing import CliRunner
from warm_arena import run_arena, run_arenas

import arena
from arena.cli.main import cli

ZOO = Path(__file__).parents[1] / "hosts" / "zoo"


@pytest.fixture(scope="module", autouse=True)
def warm_server() -> Iterator[None]:
    """The module's `arena` commands are children forked from one warm arena process (their
    own processes, as `python -m arena` is, without an interpreter start and arena's imports
    each: tests/warm_arena.py), stopped when the module ends."""
    yield
    warm_arena.stop()


def _zoo(folder: Path, name: str) -> Path:
    """A copy of a zoo bot in the test's folder (its marker is written beside it)."""
    return Path(shutil.copy(ZOO / name, folder / name))


def _config(folder: Path, bot: str, games: int = 10, other: str = "statistician",
            more: str = "") -> Path:
    path = folder / "t.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: t
        rules: dice
        seed: 3
        entrants:
          - {bot}
          - {other}
        format: {{type: round-robin, seats: 2, games: {games}}}
        """) + more)
    return path


def _invoke(*args: str | Path) -> object:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def _marker(folder: Path) -> str:
    marker = folder / "tamperer.marker"
    return marker.read_text() if marker.exists() else ""


# --- a bot that patches the rules at import ------------------------------------------------


def test_arena_run_never_loads_a_bot_file_outside_its_process(tmp_path: Path) -> None:
    _zoo(tmp_path, "tamperer.py")
    config = _config(tmp_path, "tamperer.py")
    ran = run_arena("run", config, "--out", tmp_path / "out", "--workers", "2", "-q",
                    timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert _marker(tmp_path) == ""
    games = [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").open()]
    assert len(games) == 20
    won = sum(g["placements"][g["entrants"].index("tamperer")] == 1 for g in games)
    assert won <= 2, f"the tamperer won {won} of 20: the rules were patched"
    assert all(g["faults"] == [] for g in games)  # neither bot was blamed for anything
    verified = _invoke("replay", tmp_path / "out", "--verify")
    assert verified.exit_code == 0, verified.output
    assert "20 games verified" in verified.output


def test_validate_compare_and_play_never_load_a_bot_file_outside_its_process(
        tmp_path: Path) -> None:
    bot = _zoo(tmp_path, "tamperer.py")
    validated = _invoke("validate", _config(tmp_path, "tamperer.py"))
    assert validated.exit_code == 0, validated.output
    assert validated.stdout.startswith("ok: 2 entrants, 20 games\n")
    compared = _invoke("compare", bot, "statistician", "--games", "10", "--workers", "2",
                       "--json")
    assert compared.exit_code in (1, 3), compared.output  # worse, or not decided: never better
    totals = json.loads(compared.stdout)
    assert totals["verdict"] != "better", totals
    played = _invoke("play", "--bots", f"{bot},statistician", "--seed", "4")
    assert played.exit_code == 0, played.output
    record = arena.play_game("dice", [str(bot), "statistician"], seed=5)
    assert record.result.placements == (2, 1)  # five aces claimed blind: false at once
    assert _marker(tmp_path) == ""


# --- a bot that blocks or hoards memory at import --------------------------------------------


START = 2
"""The start-up limit these commands are given (the config's `limits.start`, else
`--start-timeout`): short, but room for a loaded machine to start the bot's launcher."""


def _commands(bot: Path, config: Path) -> dict[str, list[str]]:
    """Each command that starts a bot file, as `arena` arguments."""
    start = ["--start-timeout", str(START)]
    return {
        "validate": ["validate", str(config)],
        "run": ["run", str(config), "--out", str(config.parent / "out"), "-q"],
        "compare": ["compare", str(bot), "random", "--games", "4", *start],
        "play": ["play", "--bots", f"{bot},random", *start],
    }


def test_a_bot_file_that_blocks_at_import_is_refused_within_the_start_up_timeout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = _zoo(tmp_path, "slow_import.py")
    config = _config(tmp_path, "slow_import.py", games=1, other="random",
                     more=f"limits: {{start: {START}}}\n")
    monkeypatch.chdir(tmp_path)
    commands = _commands(bot, config)
    started = time.monotonic()
    # The four at once (each its own process, as in four terminals): the start-up timeout is
    # waited out once, not four times; a hang raises.
    done = dict(zip(commands, run_arenas(list(map(tuple, commands.values())), timeout=60),
                    strict=True))
    assert time.monotonic() - started < 60
    for name, ran in done.items():
        assert (ran.returncode, ran.stdout) == (2, ""), (name, ran.stdout, ran.stderr)
        assert ran.stderr.count("\n") == 1, (name, ran.stderr)
        assert f"no 'hello' reply within {START}s" in ran.stderr, (name, ran.stderr)
    assert not (tmp_path / "out").exists()


def test_a_bot_file_that_hoards_memory_at_import_is_refused_with_one_line(
        tmp_path: Path) -> None:
    bot = _zoo(tmp_path, "hog_import.py")
    config = _config(tmp_path, "hog_import.py", games=1, other="random")
    for name, command in _commands(bot, config).items():
        result = _invoke(*command)
        assert result.exit_code == 2, (name, result.output)
        assert result.stdout == "", (name, result.stdout)
        assert result.stderr.count("\n") == 1, (name, result.stderr)
        assert "MemoryError" in result.stderr, (name, result.stderr)


def test_a_module_class_reference_is_never_imported_outside_its_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(ZOO / "tamperer.py", tmp_path / "tamperer_mod.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    played = _invoke("play", "--bots", "tamperer_mod:Tamperer,statistician", "--seed", "4")
    assert played.exit_code == 0, played.output
    assert " 2nd  seat 0 (tamperer_mod:Tamperer)  5 points\n" in played.stdout
    validated = _invoke("validate", _config(tmp_path, "tamperer_mod:Tamperer"))
    assert validated.exit_code == 0, validated.output
    assert "says it is 'tamperer', plays dice" in validated.stdout
    missing = _invoke("validate", _config(tmp_path, "no_such_module_xyz:Bot"))
    assert missing.exit_code == 2
    assert "cannot import module 'no_such_module_xyz'" in missing.stderr
    assert _marker(tmp_path) == ""
