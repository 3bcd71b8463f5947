"""`arena run` and `arena validate`: exact output, exit codes, and real interruptions."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import ctrl_c
import pytest
from cli_support import invoke_cli as _invoke
from cli_support import unloaded
from cli_support import write_config as _write
from click.testing import CliRunner

from arena.cli import progress
from arena.cli.main import cli
from arena.ratings.render import MD_CHAMPIONS_NOTE
from arena.replay import read_replay, timeless
from arena.report.markup import escape
from arena.tournament import load as tournament
from arena.tournament.run import folder_lock, results

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))
COMPARED = ("games.jsonl", *results.DERIVED)
SECONDS = re.compile(rb',"seconds":[^,}]*')
SMALL = """
    name: small
    rules: dice
    entrants:
      - random
      - bot: random
        alias: other
      - bot: random
        alias: third
    format:
      type: round-robin
      seats: 2
      games: 1
    seed: 3
"""
# Big enough to interrupt mid-way on a loaded machine: 600 two-seat games of random bots, cut
# after 40 (150 would save ~1 s of CPU, but leave a loaded machine's signal a margin of a
# third of a second).
LONG = SMALL.replace("games: 1", "games: 100").replace("name: small", "name: long")
LONG_GAMES = 600


def _same_results(a: Path, b: Path) -> None:
    for name in COMPARED:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    names = sorted(p.name for p in (a / results.REPLAYS).glob("*.json.gz"))
    assert names == sorted(p.name for p in (b / results.REPLAYS).glob("*.json.gz"))
    for name in names:
        left, right = (_timeless_text(x / results.REPLAYS / name) for x in (a, b))
        assert left == right, name
    sample = sorted(names)[:: max(1, len(names) // 5)]
    for name in sample:  # the text comparison, cross-checked the slow way
        left_replay, right_replay = (read_replay(x / results.REPLAYS / name) for x in (a, b))
        assert timeless(left_replay) == timeless(right_replay), name


def _timeless_text(path: Path) -> bytes:
    """A replay's text without the seconds of each decision (fast: no JSON parsing)."""
    return SECONDS.sub(b"", gzip.decompress(path.read_bytes()))


# --- validate -----------------------------------------------------------------------------


def test_validate_prints_the_size_of_the_tournament(tmp_path: Path) -> None:
    result = _invoke("validate", _write(tmp_path, SMALL))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "ok: 3 entrants, 6 games\n", "")


CONFIG_ERRORS = [
    ("seed: 3", "sead: 3", "13: sead: unknown key 'sead' (did you mean 'seed'?)"),
    (
        "  - random\n",
        "  - [random\n",
        (
            "5: invalid YAML: while parsing a flow sequence, expected ',' or ']', "
            "but got ':' (column 8)"
        ),
    ),
    (
        "  - random\n",
        "  - randon\n",
        "4: entrants.0: unknown bot 'randon' (did you mean 'random'?)",
    ),
    ("rules: dice", "rules: dcie", "2: rules: unknown rule set 'dcie' (did you mean 'dice'?)"),
    (
        "  - random\n",
        f"  - {ROOT}/bots/honest.py:HonestBot\n",
        (
            f"4: entrants.0: file {ROOT}/bots/honest.py: no class 'HonestBot' "
            "(its arena.Bot classes: Honest)"
        ),
    ),
    (
        "  - random\n",
        "  - bots/nope.py\n",
        (
            "4: entrants.0: bot file 'bots/nope.py' not found: looked at {folder}/bots/nope.py "
            "(a bot file is found relative to the config file)"
        ),
    ),
    (
        "rules: dice",
        "rules: dice\noptions: {max_pionts: 3}",
        "3: options.max_pionts: unknown option 'max_pionts' (did you mean 'max_points'?)",
    ),
    (
        "seats: 2",
        "seats: 9",
        "11: format.seats: rule set 'dice' is for 2 to 6 players, got 9 seats",
    ),
    (
        "alias: other",
        "alias: other\n    options: {nerve: 1}",
        "7: entrants.1.options.nerve: unknown option 'nerve' for bot 'random' (known: none)",
    ),
    (
        "alias: third",
        "alias: other",
        (
            "8: entrants.2.alias: duplicate entrant name 'other' (same as entrants.1); "
            "add an alias to tell them apart"
        ),
    ),
]


@pytest.mark.parametrize(("old", "new", "error"), CONFIG_ERRORS)
def test_each_config_error_is_one_line_with_exit_status_2(
    tmp_path: Path, old: str, new: str, error: str
) -> None:
    text = textwrap.dedent(SMALL).lstrip()
    assert old in text
    path = _write(tmp_path, text.replace(old, new, 1))
    for command in (["validate", path], ["run", path, "--out", tmp_path / "out"]):
        result = _invoke(*command)
        assert (result.exit_code, result.stdout) == (2, "")
        where = error.replace("{folder}", str(tmp_path))
        assert result.stderr == f"arena: error: {path}:{where}\n"
    assert not (tmp_path / "out").exists(), "a config error must stop before the folder"


def test_a_missing_config_file_is_an_error(tmp_path: Path) -> None:
    result = _invoke("validate", tmp_path / "none.yaml")
    assert result.exit_code == 2
    assert result.stderr == (
        f"arena: error: {tmp_path}/none.yaml: cannot read the file: No such file or directory\n"
    )


def test_every_example_config_validates() -> None:
    assert len(CONFIGS) >= 5
    rule_sets = set()
    formats = set()
    for path in CONFIGS:
        result = _invoke("validate", path)
        assert result.exit_code == 0, result.stderr
        first, *said = result.stdout.splitlines()  # then a line per entrant not arena's own
        assert first.startswith("ok: ") and first.endswith(" games"), result.stdout
        assert all(line.startswith("entrant '") for line in said), result.stdout
        cfg = tournament.load_tournament(path)
        rule_sets.add(cfg.rules)
        formats.add(cfg.format.type)
    assert rule_sets == {"dice", "dice-cards", "cards"}
    assert formats == {"round-robin", "elimination", "gauntlet", "swiss", "ladder"}


# --- run ----------------------------------------------------------------------------------


def test_quickstart_runs_and_prints_the_standings(tmp_path: Path) -> None:
    out = tmp_path / "quick"
    started = time.monotonic()
    result = _invoke("run", ROOT / "configs" / "quickstart.yaml", "--out", out, "--workers", "2")
    took = time.monotonic() - started
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (out / "standings.md").read_text()
    for bot in ("honest", "bluffer", "statistician", "random"):
        assert f"| {bot} " in result.stdout
    said = result.stderr.splitlines()
    shown = [line for line in said if line.startswith("arena: progress: ")]
    assert [line for line in said if line not in shown] == [
        f"arena: quickstart: 120 games; playing 120 on 2 workers into {out}",
        f"arena: results in {out}/ (open report.html to see them)",
    ]
    counts = [int(line.split()[2]) for line in shown]  # tests/cli/test_progress.py has
    assert counts[-1] == 120 and counts == sorted(set(counts))  # the rest: a line crosses a
    minutes = [count for last, count in zip([0, *counts[:-1]], counts, strict=True)  # tenth
               if count // 12 == last // 12]  # (games come in batches: 80 crosses 72), or
    assert len(minutes) <= took // progress.LINE_SECONDS  # is one a minute on a slow machine


def test_the_boss_league_prints_each_challenger_s_grade_after_the_standings(
    tmp_path: Path,
) -> None:
    """configs/boss-league.yaml, 10 deals a champion, with a second challenger strong
    enough to reach a grade: one exact line each, as grades.json says them. The rival, the
    statistician itself, splits every deal with it: 50%, whose interval over 10 pairs is
    still wide, as a sweep's is (0 of 10 pairs: 0-28%, never a measured 0-0%). The
    champions, who never met, follow the ranked challengers apart."""
    student = ROOT / "bots" / "examples" / "example_bot.py"
    text = (ROOT / "configs" / "boss-league.yaml").read_text().replace("games: 80", "games: 10")
    text = text.replace("../bots/examples/example_bot.py", str(student)).replace(
        "    alias: student\n", "    alias: student\n  - {bot: statistician, alias: rival}\n")
    config, out = _write(tmp_path, text), tmp_path / "out"
    # one worker: the same bytes as on any number, with one student process instead of one
    # a worker and no worker processes (9 s of CPU on the machine's two, 5.6 s on one)
    result = _invoke("run", config, "--out", out, "--workers", "1", "-q")
    # its seed is public, for replaying it (and a loaded machine adds its own line)
    assert (result.exit_code, unloaded(result.stderr)) == (0, (
        "arena: warning: the config writes seed: 18 and 'student' is not arena's own: a bot "
        "that knows the seed foresees every die; for a contest leave seed: out (arena draws "
        "a secret one and keeps it in the results folder's secret)\n"))
    standings = (out / "standings.md").read_text()
    assert result.stdout.startswith(standings)
    assert result.stdout[len(standings):] == (
        "\n"
        "grade: student reached no grade: did not beat honest (5% of 20 games, 95% interval "
        "1-34%), statistician (0% of 20, 0-28%) and boss (25% of 20, 8-56%)\n"
        "grade: rival reached pass: beat honest (90% of 20 games, 95% interval 60-98%); did "
        "not beat statistician (50% of 20, 24-76%) and boss (0% of 20, 0-28%)\n"
    )
    ranked, apart = standings.split(f"\n{MD_CHAMPIONS_NOTE}\n\n")
    assert [line.split("|")[2].strip() for line in ranked.splitlines()[2:4]] == [
        "rival", "student"]  # fmt: skip
    assert [line.split("|")[1:3] for line in apart.splitlines()[2:]] == [
        ["   - ", " honest       "], ["   - ", " statistician "], ["   - ", " boss         "]]
    graded = json.loads((out / results.GRADES).read_text())["graded"]
    assert [f"grade: {g['sentence']}\n" for g in graded] == result.stdout.splitlines(True)[-2:]
    page = (out / "report.html").read_text()  # the report says them after the standings
    shown = page[page.index('<section id="grades">'):page.index('<section id="spread">')]
    assert re.findall("<li>(.*?)</li>", shown) == [escape(g["sentence"]) for g in graded]
    assert '<a href="grades.json">' in page and page.index('id="standings"') < page.index(
        'id="grades"')


def test_run_quiet_prints_only_the_standings_and_refuses_a_second_run(tmp_path: Path) -> None:
    config, out = _write(tmp_path, SMALL), tmp_path / "out"
    first = _invoke("run", config, "--out", out, "--workers", "1", "--quiet")
    assert (first.exit_code, unloaded(first.stderr)) == (0, "")  # a loaded machine says so
    assert first.stdout == (out / "standings.md").read_text()
    again = _invoke("run", config, "--out", out, "--quiet")
    assert (again.exit_code, again.stdout) == (2, "")
    assert again.stderr == (
        f"arena: error: {out} already holds 6 games of a run; add --resume to play the rest, "
        "or --force to start over\n"
    )
    both = _invoke("run", config, "--out", out, "--resume", "--force")
    assert both.stderr == "arena: error: --resume and --force contradict each other; choose one\n"
    forced = _invoke("run", config, "--out", out, "--workers", "1", "--force", "-q")
    assert forced.exit_code == 0 and forced.stdout == first.stdout
    resumed = _invoke("run", config, "--out", out, "--workers", "1", "--resume")
    assert resumed.exit_code == 0 and resumed.stdout == first.stdout
    assert resumed.stderr.startswith("arena: small: 6 games, 6 already played; playing 0 on")


def test_a_run_writes_the_report_that_arena_report_writes(tmp_path: Path) -> None:
    config, out = _write(tmp_path, SMALL), tmp_path / "out"
    assert _invoke("run", config, "--out", out, "--workers", "1", "-q").exit_code == 0
    written = {name: (out / name).read_bytes() for name in ("report.html", "viewer.html")}
    assert b"<h2>Standings</h2>" in written["report.html"]
    for name in written:
        (out / name).unlink()
    assert _invoke("report", out).exit_code == 0
    assert {name: (out / name).read_bytes() for name in written} == written


def test_an_elimination_prints_its_ranking(tmp_path: Path) -> None:
    config = _write(tmp_path, SMALL.replace("type: round-robin", "type: elimination"))
    result = _invoke("run", config, "--out", tmp_path / "out", "--workers", "1", "-q")
    assert result.exit_code == 0
    standings, _, ranking = result.stdout.rpartition("\nelimination: ")
    assert standings == (tmp_path / "out" / "standings.md").read_text()
    assert ranking.count(". ") == 3 and ranking.startswith("1. ") and ranking.endswith("\n")


def test_resume_with_a_changed_config_and_a_locked_folder_are_refused(tmp_path: Path) -> None:
    config, out = _write(tmp_path, SMALL), tmp_path / "out"
    assert _invoke("run", config, "--out", out, "--workers", "1", "-q").exit_code == 0
    changed = _write(tmp_path, SMALL.replace("seed: 3", "seed: 4"), "changed.yaml")
    result = _invoke("run", changed, "--out", out, "--resume", "-q")
    assert result.exit_code == 2
    assert result.stderr == (
        f"arena: error: the configuration changed since {out} was started: its seed is not "
        f"the one saved in {out / results.SECRET} (resume with the original configuration, "
        "or --force to start over)\n"
    )
    with folder_lock.locked(out):
        result = _invoke("run", config, "--out", out, "--resume", "-q")
    assert result.exit_code == 2
    assert result.stderr == (
        f"arena: error: {out} is in use by another arena run (process {os.getpid()}); "
        "wait for it to finish\n"
    )


def test_ctrl_c_in_process_exits_130_with_how_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entrant = f"bot: {ROOT / 'tests' / 'ctrl_c.py'}\n        alias: third\n        mode: inline"
    config = _write(tmp_path, SMALL.replace("bot: random\n        alias: third", entrant))
    out = tmp_path / "out"
    monkeypatch.setenv(ctrl_c.ARMED, ctrl_c.armed(3, tmp_path / "ends"))  # third's 3rd game
    result = _invoke("run", config, "--out", out, "--workers", "1", "-q")
    assert (result.exit_code, result.stdout) == (130, "")
    assert result.stderr.endswith(  # after the warning that `third` runs inline
        f"arena: interrupted: 4 of 6 games are saved in {out}; "
        f"to play the rest: arena run {config} --out {out} --resume\n"
    )
    assert len((out / results.GAMES).read_bytes().splitlines()) == 4  # the 5th was cut


# --- real processes: kill -9 and Ctrl-C ---------------------------------------------------


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """An uninterrupted run of LONG: (config, results folder)."""
    folder = tmp_path_factory.mktemp("reference")
    config = _write(folder, LONG)
    result = _invoke("run", config, "--out", folder / "out", "--workers", "1", "-q")
    assert result.exit_code == 0
    return config, folder / "out"


def _start(config: Path, out: Path) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-m",
        "arena",
        "run",
        str(config),
        "--out",
        str(out),
        "--workers",
        "2",
        "--quiet",
    ]
    return subprocess.Popen(
        command,
        cwd=config.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _wait_for_games(out: Path, count: int, process: subprocess.Popen[bytes]) -> int:
    games = out / results.GAMES
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done = games.read_bytes().count(b"\n") if games.exists() else 0
        if done >= count:
            return done
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        time.sleep(0.005)
    raise AssertionError(f"no {count} games after 60 s")


def _descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _gone(pids: set[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{pid}").exists() for pid in pids):
            return True
        time.sleep(0.05)
    return False


def test_resume_after_kill_9_ends_with_the_same_files(
    tmp_path: Path, reference: tuple[Path, Path]
) -> None:
    config, expected = reference
    out = tmp_path / "killed"
    process = _start(config, out)
    _wait_for_games(out, 40, process)
    workers = _descendants(process.pid)
    assert len(workers) >= 3, "expected a fork server and 2 workers"
    process.kill()
    process.wait()
    done = (out / results.GAMES).read_bytes().count(b"\n")
    assert 40 <= done < LONG_GAMES, "the run must be cut in the middle"
    assert _gone(workers, 10), "workers must exit when the main process dies"
    resumed = _invoke("run", config, "--out", out, "--workers", "2", "--resume", "-q")
    assert resumed.exit_code == 0, resumed.stderr
    _same_results(expected, out)
    assert not list(out.glob(".*.tmp")) and not list((out / results.REPLAYS).glob(".*.tmp"))


def test_ctrl_c_of_a_real_run_exits_130_and_resumes(
    tmp_path: Path, reference: tuple[Path, Path]
) -> None:
    config, expected = reference
    out = tmp_path / "stopped"
    process = _start(config, out)
    _wait_for_games(out, 40, process)
    os.killpg(process.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole group
    _, stderr = process.communicate(timeout=30)
    done = (out / results.GAMES).read_bytes().count(b"\n")
    assert process.returncode == 130
    assert 40 <= done < LONG_GAMES
    assert stderr.decode() == (
        f"arena: interrupted: {done} of {LONG_GAMES} games are saved in {out}; "
        f"to play the rest: arena run {config} --out {out} --resume\n"
    )
    resumed = _invoke("run", config, "--out", out, "--workers", "1", "--resume", "-q")
    assert resumed.exit_code == 0, resumed.stderr
    _same_results(expected, out)


def test_isolated_and_command_entrants_play_a_tournament(tmp_path: Path) -> None:
    """A bot not shipped with arena runs in its own process by default; a command entrant
    runs its program; the replay header says where each ran; no bot process outlives it."""
    from arena.hosts.process_tree import leftovers

    bot = tmp_path / "student.py"
    bot.write_text(textwrap.dedent('''
        import arena
        from arena.rules.playout import random_action

        class Student(arena.Bot):
            """A student's bot."""
            name = "student"

            def act(self, observation):
                return random_action(observation.legal, self.rng)
    '''))
    config = tmp_path / "iso.yaml"
    config.write_text(textwrap.dedent(f"""
        name: iso
        rules: dice
        entrants:
          - random
          - bot: {bot}
          - bot: {bot}
            alias: trusted-student
            mode: inline
          - command: ["{sys.executable}", "{ROOT / 'bots' / 'examples' / 'example_bot.py'}"]
            alias: py-command
        format: {{type: round-robin, seats: 2, games: 1}}
        seed: 5
    """))
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", str(config), "--out", str(out), "--workers", "1",
                                      "-q"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(
        "arena: warning: entrant 'trusted-student' runs inline, in the referee's own process: "
        "only for bots you trust (see docs/protocol.md)\n")
    modes = {}
    for path in sorted((out / "replays").glob("*.json.gz")):
        for seat in read_replay(path).header["entrants"]:
            modes[seat["name"]] = seat["mode"]
    assert modes == {"random": "inline", "student": "process", "trusted-student": "inline",
                     "py-command": "command"}
    lines = (out / "games.jsonl").read_text().splitlines()
    assert len(lines) == 12
    assert '"faults":[]' in lines[0]
    assert leftovers() == []


# --- workers that cannot start ------------------------------------------------------------


def _quickstart_of_12_games(folder: Path) -> None:
    """configs/quickstart.yaml in `folder`, one game a table instead of 10: 12 games still
    reach both workers (each takes up to 8 at once): the start is what is tested, not games."""
    text = (ROOT / "configs" / "quickstart.yaml").read_text()
    assert "  games: 10\n" in text
    (folder / "quickstart.yaml").write_text(text.replace("  games: 10\n", "  games: 1\n"))


def test_a_bots_folder_in_the_current_directory_does_not_stop_a_run(tmp_path: Path) -> None:
    """The original report: `arena run quickstart.yaml` beside an empty `bots/` hung."""
    (tmp_path / "bots").mkdir()
    _quickstart_of_12_games(tmp_path)
    command = [sys.executable, "-m", "arena", "run", "quickstart.yaml", "--workers", "2", "-q"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, timeout=120, check=False)
    assert (done.returncode, done.stderr) == (0, b"")
    folder = tmp_path / "results" / "quickstart"
    assert done.stdout == (folder / "standings.md").read_bytes()
    assert (folder / results.GAMES).read_bytes().count(b"\n") == 12
    assert not (folder / results.LOCK).exists(), "a finished folder keeps no lock file"


def test_nothing_in_the_current_directory_shadows_arenas_imports_in_its_workers(
    tmp_path: Path,
) -> None:
    """An `arena_bots/` folder or a `random.py` beside the config reached the fork server."""
    (tmp_path / "arena_bots").mkdir()
    (tmp_path / "random.py").write_text("raise SystemExit('the random.py in the cwd was run')\n")
    _quickstart_of_12_games(tmp_path)
    command = [str(Path(sys.executable).with_name("arena")), "run", "quickstart.yaml",
               "--workers", "2", "-q"]  # fmt: skip
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, timeout=120, check=False)
    assert (done.returncode, done.stderr) == (0, b"")
    folder = tmp_path / "results" / "quickstart"
    assert (folder / results.GAMES).read_bytes().count(b"\n") == 12


WORKER_ONLY = '''
import multiprocessing

import arena

if multiprocessing.parent_process() is not None:
    raise RuntimeError("this bot cannot load in a worker")


class Homebody(arena.Bot):
    """Loads only in the process that checks the config."""

    name = "homebody"

    def act(self, observation):
        return observation.legal[0]
'''


def test_a_worker_that_cannot_start_stops_the_run_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "homebody.py").write_text(WORKER_ONLY)
    # trusted: run inline, so every worker loads it (untrusted, no worker ever does)
    entrant = "  - {bot: homebody.py, mode: inline}\n"
    config = _write(tmp_path, SMALL.replace("  - random\n", entrant, 1))
    command = [sys.executable, "-m", "arena", "run", str(config), "--out", "out",
               "--workers", "2", "-q"]  # fmt: skip
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, timeout=30, check=False)
    assert (done.returncode, done.stdout) == (2, b"")
    warning, seed, error = done.stderr.decode().split("\n", 2)
    assert warning.startswith("arena: warning: entrant 'homebody' runs inline")
    assert seed.startswith("arena: warning: the config writes seed: 3 and 'homebody' is not")
    assert error.count("\n") == 1, error
    assert error.startswith("arena: error: a worker could not start: ")
    assert error.endswith("homebody.py: RuntimeError: this bot cannot load in a worker\n")


# --- entrants that can only fail ----------------------------------------------------------


BROKEN = '''
import arena


class Broken(arena.Bot):
    """Raises at every decision."""

    name = "broken"

    def act(self, observation):
        raise ValueError("no strategy yet")
'''


def test_a_run_where_an_entrant_faulted_in_every_game_ends_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text(BROKEN)
    entrant = "  - random\n", f"  - {{bot: {tmp_path / 'broken.py'}, mode: inline}}\n"
    config = _write(tmp_path, SMALL.replace(*entrant, 1))
    result = _invoke("run", config, "--out", tmp_path / "out", "--workers", "1", "-q")
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "games it played" in line]
    assert len(warnings) == 1
    assert warnings[0].startswith(
        "arena: warning: entrant 'broken' faulted in all 4 games it played; "
        "commonest fault: crash: "
    )
    assert "no strategy yet" in warnings[0]
    clean = _invoke("run", _write(tmp_path, SMALL, "clean.yaml"), "--out", tmp_path / "clean",
                    "--workers", "1", "-q")  # fmt: skip
    assert (clean.exit_code, unloaded(clean.stderr)) == (0, "")


def test_a_capped_round_robin_says_so_in_validate_and_run(tmp_path: Path) -> None:
    config = _write(tmp_path, SMALL.replace("games: 1", "games: 5\n      cap: 4"))
    note = (
        "note: a full round robin would be 30 games, more than format.cap (4): "
        "4 games at balanced random tables instead\n"
    )
    checked = _invoke("validate", config)
    assert (checked.exit_code, checked.stdout) == (0, "ok: 3 entrants, 4 games\n" + note)
    ran = _invoke("run", config, "--out", tmp_path / "out", "--workers", "1", "-q")
    assert (ran.exit_code, unloaded(ran.stderr)) == (0, "arena: " + note)
    plain = _invoke("validate", _write(tmp_path, SMALL, "plain.yaml"))
    assert plain.stdout == "ok: 3 entrants, 6 games\n"


# --- the saved configuration --------------------------------------------------------------


def test_the_saved_config_is_valid_from_its_folder_and_resumes_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The saved config.yaml kept bot files as paths from the current folder: it did not
    validate, and a resume from the config's own folder was refused as a change."""
    import shutil

    folders = []
    for checkout in ("one", "two"):  # the same run from two checkouts
        root = tmp_path / checkout
        (root / "contest" / "bots").mkdir(parents=True)
        shutil.copy(ROOT / "bots" / "random_bot.py", root / "contest" / "bots" / "my_bot.py")
        _write(root / "contest", SMALL.replace("  - random\n", "  - bot: bots/my_bot.py\n", 1),
               "x.yaml")
        monkeypatch.chdir(root)
        done = _invoke("run", "-q", "contest/x.yaml", "--out", "results/x", "--workers", "1")
        assert done.exit_code == 0, done.output
        folders.append(root / "results" / "x")
    one, two = folders
    for name in ("config.yaml", results.GAMES, "standings.md"):
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
    saved = one / results.CONFIG
    assert "bot: ../../contest/bots/my_bot.py" in saved.read_text()
    monkeypatch.chdir(tmp_path)
    checked = _invoke("validate", saved)
    assert checked.exit_code == 0, checked.output
    again = _invoke("run", "-q", saved, "--out", tmp_path / "again", "--workers", "1")
    assert again.exit_code == 0, again.output  # under a new secret: the seed is not in it
    seeded = one / "seeded.yaml"  # with the run's secret as its seed: the same games
    seeded.write_text(saved.read_text() + (one / results.SECRET).read_text().join(["seed: ", ""]))
    again = _invoke("run", "-q", seeded, "--out", tmp_path / "seeded", "--workers", "1")
    seeded.unlink()
    assert again.exit_code == 0, again.output
    assert (tmp_path / "seeded" / results.GAMES).read_bytes() == (one / results.GAMES).read_bytes()
    monkeypatch.chdir(tmp_path / "one" / "contest")
    resumed = _invoke("run", "-q", "x.yaml", "--out", one, "--resume", "--workers", "1")
    assert resumed.exit_code == 0, resumed.output
    moved = _write(tmp_path / "one" / "contest", SMALL.replace(
        "  - random\n", "  - bot: ../../two/contest/bots/my_bot.py\n", 1), "moved.yaml")
    changed = _invoke("run", "-q", moved, "--out", one, "--resume", "--workers", "1")
    assert changed.exit_code == 2
    assert ('entrants.0.bot: "../../contest/bots/my_bot.py" -> '
            '"../../../two/contest/bots/my_bot.py"') in changed.output, changed.output


def test_a_run_without_workers_plays_on_the_cpus_this_process_may_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One worker per CPU the process may use (a container's cpuset, `taskset`), not per core
    of the machine: on one CPU, a second worker only takes turns with the first."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    config, out = _write(tmp_path, SMALL), tmp_path / "out"
    result = _invoke("run", config, "--out", out)
    assert result.exit_code == 0, result.stderr
    assert f"arena: small: 6 games; playing 6 on 1 worker into {out}\n" in result.stderr
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    from arena.executor.local import cores, pool_size

    assert cores() == pool_size(None) == 3
