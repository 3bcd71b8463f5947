"""The referee's own failures are never a bot's fault. Many process entrants need many open
files in the referee: its soft limit is raised to the hard limit and a worker keeps only the
hosts that fit, so a contest of 8 process entrants under 128 open files (where 6 hosts fit:
(128 - 64 reserved) // 10 per host) plays with no fault; and when the referee does run out
(here its limit is lowered under it mid-run), the run stops with one line and a `--resume`
hint, no bot blamed, and resuming gives the results of a run that never stopped."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from needs import require

from arena.cli.main import cli
from arena.hosts import processes, sandbox, walls

ENTRANTS = 8
"""More process entrants than 128 open files keep hosts for, so hosts are stopped and
started again: enough to test, few enough to be quick (each start is a sandbox)."""
UNDER_LIMIT = """
import resource, sys
soft, hard = int(sys.argv[1]), int(sys.argv[2])
if soft:
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
from arena.cli.main import cli
cli.main(sys.argv[3:], prog_name="arena")
"""


def contest(folder: Path) -> Path:
    """A gauntlet: one champion against 7 challengers, every one in its own process."""
    lines = ["name: many", "rules: dice", "entrants:"]
    for n in range(1, ENTRANTS + 1):
        lines += ["  - bot: random", f"    alias: p{n:02d}", "    mode: process"]
    lines += ["format:", "  type: gauntlet", "  champions: [p01]", "  games: 1",
              "seed: 5", "workers: 1", "replays: false"]
    path = folder / "many.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def arena(*args: object, files: tuple[int, int] = (0, 0)) -> subprocess.Popen[str]:
    """`arena ARGS` in its own process, under this soft and hard limit of open files."""
    return subprocess.Popen([sys.executable, "-c", UNDER_LIMIT, *map(str, files),
                             *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finished(run: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = run.communicate(timeout=300)
    return run.returncode, out, err


def games(folder: Path) -> list[dict]:
    path = folder / "games.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def results(folder: Path) -> list[tuple[str, list[int]]]:
    return sorted((g["id"], g["placements"]) for g in games(folder))


def faults(folder: Path) -> list[object]:
    return [f for g in games(folder) for f in g.get("faults", [])]


LIMITS = {"soft": (128, resource.getrlimit(resource.RLIMIT_NOFILE)[1]), "hard": (128, 128)}
"""128 open files as the soft limit (raised by the referee to the hard one) and as both."""


@pytest.fixture(scope="module")
def under_128(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    """The contest played to its end under each limit of LIMITS, the two runs at once (each
    in its own process, its own folder): (config, {limit: results folder})."""
    folder = tmp_path_factory.mktemp("many")
    config = contest(folder)
    outs = {name: folder / f"under-{name}" for name in LIMITS}
    running = {name: arena("run", config, "--out", outs[name], "-q", files=files)
               for name, files in LIMITS.items()}
    for name, run in running.items():
        code, _, err = finished(run)
        assert code == 0, (name, err)
    return config, outs


@pytest.mark.parametrize("limit", list(LIMITS))
def test_a_contest_of_process_entrants_under_128_open_files_plays_with_no_fault(
        under_128: tuple[Path, dict[str, Path]], limit: str) -> None:
    out = under_128[1][limit]
    assert len(games(out)) == 2 * (ENTRANTS - 1)
    assert faults(out) == [], faults(out)[:3]


def test_a_referee_out_of_open_files_stops_the_run_blaming_no_bot_and_resume_finishes_it(
        tmp_path: Path, under_128: tuple[Path, dict[str, Path]]) -> None:
    """The run that never stopped is the contest played under the soft limit of 128 (the
    same games, whatever the limit: a worker only stops and starts hosts more often)."""
    config, outs = under_128
    whole, cut = outs["soft"], tmp_path / "cut"
    run = arena("run", config, "--out", cut, "-q")
    until = time.monotonic() + 120
    while len(games(cut)) < 6 and run.poll() is None and time.monotonic() < until:
        time.sleep(0.01)
    held = len(list(Path(f"/proc/{run.pid}/fd").iterdir()))
    resource.prlimit(run.pid, resource.RLIMIT_NOFILE, (held + 2, held + 2))
    code, _, err = finished(run)
    if code == 0:
        pytest.fail(f"the run ended before its limit was lowered: {err}")
    warning, *lines = err.strip().splitlines()  # first: its seed is written
    assert warning.startswith("arena: warning: the config writes seed: 5 and 'p01', "), err
    assert code == 75 and len(lines) == 1, err
    assert "the referee failed, not a bot" in lines[0] and "Too many open files" in lines[0]
    assert "; the games in games.jsonl are kept; once fixed: " in lines[0]
    assert lines[0].endswith(f"arena run {config} --out {cut} --resume")
    played = games(cut)
    assert 6 <= len(played) < 2 * (ENTRANTS - 1) and faults(cut) == []

    code, _, err = finished(arena("run", config, "--out", cut, "--resume", "-q"))
    assert code == 0, err
    assert games(cut)[: len(played)] == played  # nothing played was lost or played again
    assert results(cut) == results(whole) and faults(cut) == []
    standings = "standings.csv"
    assert (cut / standings).read_text() == (whole / standings).read_text()


BOT = '''
import arena
from arena.rules.playout import random_action


class Plain(arena.Bot):
    name = "plain"

    def act(self, observation):
        return random_action(observation.legal, self.rng)
'''


@pytest.mark.parametrize("command", ["play", "compare", "validate", "run"])
def test_a_missing_tool_to_start_bots_with_is_the_referees_one_line_not_a_crash(
        command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = tmp_path / "plain.py"
    bot.write_text(BOT)
    config = tmp_path / "two.yaml"
    config.write_text(f"name: two\nrules: dice\nentrants: [{bot}, random]\nworkers: 1\n")
    args = {"play": ["play", "--rules", "dice", "--bots", f"{bot},random", "--seed", "1"],
            "compare": ["compare", str(bot), "random", "--games", "4", "--workers", "1"],
            "validate": ["validate", str(config)],
            "run": ["run", str(config), "--out", str(tmp_path / "out"), "-q"]}[command]
    missing = Path(os.path.realpath(sys.executable)).with_name("no-such-python")
    assert not missing.exists()  # beside the real one: in the folders sandboxes already show
    monkeypatch.setattr(sys, "executable", str(missing))  # (in tmp_path, it made tmp_path an
    # interpreter's folder: a sandbox image of it built, ldd and all, 1.2 s of CPU a command)
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 75, result.output
    assert len(lines) == 1 and lines[0].startswith("arena: the referee failed, not a bot: "), lines
    assert "no-such-python" in lines[0] and "crash" not in result.output
    assert not (tmp_path / "out" / "games.jsonl").exists() or games(tmp_path / "out") == []


@pytest.mark.parametrize("sandboxed", [False, True])
def test_a_bot_process_that_never_reached_arenas_launcher_is_the_referees_failure(
        sandboxed: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sandbox or interpreter that dies before arena's launcher runs (a tool gone from the
    image, no namespace left, a launcher file lost) ran nothing of the bot's: never its crash."""
    level = walls.level().name
    require(not sandboxed or level != "none", "no sandbox on this machine")
    bot = tmp_path / "plain.py"
    bot.write_text(BOT)
    monkeypatch.setattr(processes, "LAUNCHER", tmp_path / "gone" / "launcher.py")
    monkeypatch.setattr(sandbox, "LAUNCHER", "/arena/arena/hosts/gone.py")
    args = ["play", "--rules", "dice", "--bots", f"{bot},random", "--seed", "1",
            "--isolation", level if sandboxed else "none"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 75, result.output
    assert len(lines) == 1 and lines[0].startswith(
        "arena: the referee failed, not a bot: a bot process did not get as far as arena's "
        "launcher (crash: "), lines
