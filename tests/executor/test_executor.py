"""The executor never hangs on a dead worker: real `kill -9` and `os._exit` inside a run."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from killer_bot import KILLER
from run_processes import a_worker

from arena.cli.main import cli
from arena.tournament.run import results

QUITTER = '''
import os

from arena_bots.random_bot import RandomBot

EXIT = {exit}


class Quitter(RandomBot):
    """In about one game in four (its own seeded draw), leaves the process at once."""

    name = "quitter"

    def start(self, context):
        super().start(context)
        self.doomed = self.rng.random() < 0.3

    def act(self, observation):
        if EXIT and self.doomed:
            os._exit(3)
        return super().act(observation)
'''

CONFIG = """
name: t
rules: dice
entrants:
  - bot: {bot}
    mode: inline
  - random
  - bot: random
    alias: other
format:
  type: round-robin
  seats: 2
  games: {games}
seed: 5
"""


def _run(folder: Path, bot: str, source: str, games: int, *, killed: bool = False) -> Result:
    """`arena run` on 2 workers of the bot file against two random bots; with `killed`, the
    killer's mark is there before the run (it has killed already: it only plays)."""
    folder.mkdir()
    if killed:
        (folder / "killed").write_text("")
    (folder / bot).write_text(f"FOLDER = {str(folder)!r}\n{source}")
    config = folder / "t.yaml"
    config.write_text(textwrap.dedent(CONFIG.format(bot=bot, games=games)).lstrip())
    args = ["run", str(config), "--out", str(folder / "out"), "--workers", "2", "-q"]
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def _lines(folder: Path) -> list[dict]:
    text = (folder / "out" / results.GAMES).read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_a_worker_killed_mid_run_costs_nothing_the_results_are_the_same_bytes(
    tmp_path: Path,
) -> None:
    calm = _run(tmp_path / "calm", "killer.py", KILLER, games=20, killed=True)
    assert (calm.exit_code, calm.stderr.count("a worker died")) == (0, 0), calm.stderr
    killed = _run(tmp_path / "killed", "killer.py", KILLER, games=20)
    assert killed.exit_code == 0, killed.stderr
    assert (tmp_path / "killed" / "killed").exists(), "the worker was never killed"
    assert killed.stderr.count("a worker died (killed by SIGKILL) in game rr-") == 1
    assert "its games are played again on a new worker" in killed.stderr
    for name in (results.GAMES, *results.DERIVED):
        left = (tmp_path / "killed" / "out" / name).read_bytes()
        assert left == (tmp_path / "calm" / "out" / name).read_bytes(), name
    assert killed.stdout == calm.stdout


def test_an_inline_bot_that_calls_os_exit_is_recorded_as_its_crash_other_games_unaffected(
    tmp_path: Path,
) -> None:
    control = _run(tmp_path / "control", "quitter.py", QUITTER.format(exit=False), games=4)
    assert control.exit_code == 0, control.stderr
    quitting = _run(tmp_path / "quit", "quitter.py", QUITTER.format(exit=True), games=4)
    assert quitting.exit_code == 0, quitting.stderr
    crashed = 0
    for mine, calm in zip(_lines(tmp_path / "quit"), _lines(tmp_path / "control"), strict=True):
        if not mine["faults"]:
            assert mine == calm
            continue
        crashed += 1
        seat = mine["entrants"].index("quitter")
        [fault] = mine["faults"]
        assert (fault["seat"], fault["kind"]) == (seat, "crash")
        assert "worker process died (exit status 3)" in fault["message"]
        assert mine["placements"][seat] == 2
    assert 0 < crashed < 8, "the quitter should crash in some of its 8 games, not all"
    assert quitting.stderr.count("a worker died (exit status 3) in game") == 2 * crashed


DOOMED_WORKER = '''
import multiprocessing
import os
import signal

from arena_bots.random_bot import RandomBot

if multiprocessing.parent_process() is not None:  # loading in a worker: not in a bot's call
    os.kill(os.getpid(), signal.SIGKILL)


class Doomed(RandomBot):
    """Plays in the process that checks the config; kills every worker that loads it."""

    name = "doomed"
'''


def test_workers_that_die_outside_any_bot_call_stop_the_run_with_a_resume_hint(
    tmp_path: Path,
) -> None:
    result = _run(tmp_path / "doomed", "doomed.py", DOOMED_WORKER, games=2)
    assert result.exit_code == 2
    last = result.stderr.splitlines()[-1]
    assert re.fullmatch(r"arena: error: game rr-\d{6} killed its worker 2 times \(killed by "
                        r"SIGKILL\), not in a bot's call; every finished game is saved: run "
                        r"again with --resume", last), result.stderr


LONG = """
name: long
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
  games: 20
seed: 3
"""


def test_a_kill_9_from_outside_of_a_worker_mid_run_gives_the_same_bytes(tmp_path: Path) -> None:
    config = tmp_path / "long.yaml"
    config.write_text(textwrap.dedent(LONG).lstrip())
    calm = CliRunner().invoke(cli, ["run", str(config), "--out", str(tmp_path / "calm"),
                                    "--workers", "1", "-q"])  # fmt: skip
    assert calm.exit_code == 0, calm.stderr
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "arena", "run", str(config), "--out", str(out),
               "--workers", "2", "-q"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    games = out / results.GAMES
    while not games.exists() or games.read_bytes().count(b"\n") < 20:
        assert process.poll() is None, process.communicate()
        time.sleep(0.005)
    os.kill(a_worker(process.pid), signal.SIGKILL)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert games.read_bytes().count(b"\n") == 120
    told = [line for line in stderr.decode().splitlines() if "a worker died" in line]
    # the kill lands in a game (told, played again) or, rarely, between two (nothing lost)
    assert len(told) <= 1, stderr
    assert all("(killed by SIGKILL) in game rr-" in line for line in told), stderr
    for name in (results.GAMES, *results.DERIVED):
        assert (out / name).read_bytes() == (tmp_path / "calm" / name).read_bytes(), name
    assert stdout.decode() == calm.stdout


def test_compare_survives_an_inline_bot_that_calls_os_exit(tmp_path: Path) -> None:
    bot = tmp_path / "quitter.py"
    bot.write_text(QUITTER.format(exit=True))
    args = ["compare", f"{bot}:Quitter", "random", "--games", "20", "--workers", "2", "--json",
            "--seed", "1"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    summary = json.loads(result.stdout)
    assert (summary["games"], summary["faults"]["baseline"]) == (20, 0), result.stderr
    assert 0 < summary["faults"]["candidate"] < 10  # 6 at this seed: some games, not half


LISTENERS = """
name: listeners
rules: {rules}
entrants: [statistician, honest, bluffer]
format: {{type: round-robin, seats: 3, games: 3}}
seed: 9
"""


@pytest.mark.parametrize("rules", ["dice", "cards"])
def test_bots_that_listen_to_events_play_the_same_games_on_one_and_two_workers(
    tmp_path: Path, rules: str
) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(textwrap.dedent(LISTENERS.format(rules=rules)).lstrip())
    for workers in ("1", "2"):
        args = ["run", str(config), "--out", str(tmp_path / workers), "--workers", workers, "-q"]
        assert CliRunner().invoke(cli, args, catch_exceptions=False).exit_code == 0
    for name in (results.GAMES, *results.DERIVED):
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes(), name


TWO_DEATHS = textwrap.dedent("""
    import os, signal, subprocess, sys, time
    from pathlib import Path

    from arena.executor.local import DEPTH, Executor, ExecutorError, Job, replay_once

    def work(_, spec):
        if spec == "quick":
            return spec
        marker = Path(spec)
        if marker.exists():  # played again: it passes
            return "again"
        marker.touch()
        me = os.getpid()
        server = open(f"/proc/{me}/stat").read().rpartition(")")[2].split()[1]
        other = next(int(pid) for pid in open(f"/proc/{server}/task/{server}/children").read()
                     .split() if int(pid) != me)
        idle(other)  # it played its quick specs and waits for more, holding none
        os.kill(other, signal.SIGSTOP)  # it cannot read what it is sent next
        subprocess.Popen(["sh", "-c", f"sleep 0.5; kill -9 {other}"], start_new_session=True)
        os._exit(1)

    def idle(pid):  # slept, its CPU time still, on five looks 20 ms apart; then 20 ms
        # more, for the main process to read what it sent before it slept
        still, before, until = 0, None, time.monotonic() + 20
        while still < 5 and time.monotonic() < until:
            fields = open(f"/proc/{pid}/stat").read().rpartition(")")[2].split()
            now = (fields[0], fields[11], fields[12])
            still = still + 1 if now == before and fields[0] == "S" else 0
            before = now
            time.sleep(0.02)
        time.sleep(0.02)

    if __name__ == "__main__":
        executor = Executor(Job(work), 2, replay_once)
        try:
            print(list(executor.map(["quick"] * DEPTH + [sys.argv[1]]))[-1])
        except ExecutorError as exc:
            print(exc)
        finally:
            executor.close(abort=True)
""")


def test_a_spec_sent_to_a_worker_that_died_before_reading_it_is_not_a_second_death(
        tmp_path: Path) -> None:
    """Two workers killed at once (a machine's OOM killer, `kill -9` of both): the specs of
    the first to be noticed went to the other before its death was noticed, and were counted
    as dying there too, twice in all, which stops a run ("a worker died twice on the same
    task"), though neither death was theirs to blame. Only a spec the worker began counts.
    Here the spec kills its worker after stopping the other, idle one, which it is sent to
    next, and which is killed before it can read it."""
    script = tmp_path / "main.py"
    script.write_text(TWO_DEATHS)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "played-once")],
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "again", done.stdout + done.stderr
