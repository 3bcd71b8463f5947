"""Lanes: a worker plays several games at once when every bot runs in its own process, with
the same bytes of results as one game at a time, and survives faults, a kill -9 and Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from cli_support import write_config as _write
from results_support import same_results
from run_processes import the_workers, waiting_in_poll

from arena.tournament.errors import TournamentError
from arena.tournament.load import load_tournament
from arena.tournament.run import results, worker
from arena.tournament.run.runner import run_tournament, tournament_setup
from arena.tournament.run.worker import GameSetup, _Worker, game_job

FAULTY = '''
import os

from arena_bots.random_bot import RandomBot


class Faulty(RandomBot):
    """Random, but in about one game in three (its own seeded draw) it leaves its process
    or raises (a timeout's message tells its process's turn count and times: not the same
    bytes from one run to the next, with lanes or without)."""

    name = "faulty"

    def start(self, context):
        super().start(context)
        self.fate = self.rng.choice(["exit", "raise"] + ["play"] * 4)

    def act(self, observation):
        if self.fate == "exit":
            os._exit(3)
        if self.fate == "raise":
            raise ValueError("faulty gives up")
        return super().act(observation)
'''

CONFIG = """
name: lanes
rules: dice
options: {{max_points: 2}}
entrants:
  - {{bot: random, mode: process}}
  - {{bot: honest, mode: process}}
  - {{bot: '{faulty}', alias: faulty}}
format: {{type: round-robin, seats: 2, games: {games}}}
seed: 4
"""


def _config(tmp_path: Path, games: int) -> Path:
    faulty = tmp_path / "faulty.py"
    faulty.write_text(FAULTY)
    return _write(tmp_path, textwrap.dedent(CONFIG.format(faulty=faulty, games=games)).lstrip())


def test_lanes_write_the_same_bytes_as_one_game_at_a_time_faults_and_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One game at a time, then two workers of 3 lanes. One game at a time is played in this
    process (one worker plays here, a game after another, whatever ARENA_LANES says; that
    one worker writes what two do, tests/tournament/test_tournament.py pins), so the two
    workers of 3 lanes, faults and all, are compared with a run of no worker process."""
    cfg = load_tournament(_config(tmp_path, games=4))  # 24 games: faulty exits 2, raises 1
    monkeypatch.setenv("ARENA_LANES", "3")
    run_tournament(cfg, tmp_path / "alone", workers=1)
    run_tournament(cfg, tmp_path / "lanes", workers=2)
    same_results(tmp_path / "alone", tmp_path / "lanes")
    games = list(results.iter_games(tmp_path / "alone" / results.GAMES))
    messages = {f["message"] for g in games for f in g["faults"]}
    assert {"exited with code 3", "ValueError: faulty gives up"} <= messages, messages
    fine = [g for g in games if "faulty" not in g["entrants"]]
    assert fine and not any(g["faults"] for g in fine), "only the faulty bot is faulted"


def _setup(tmp_path: Path, lanes: int, *entrants: str) -> GameSetup:
    body = "".join(f"\n  - {e}" for e in entrants)
    cfg = load_tournament(_write(tmp_path, f"name: t\nrules: dice\nentrants:{body}\n"
                                           "format: {type: round-robin, seats: 2}\nseed: 1\n"))
    setup: GameSetup = game_job(tournament_setup(cfg), lanes).argument
    return setup


@pytest.mark.parametrize(("fitting", "lanes"), [(32, 3), (12, 2), (11, 1), (1, 1)])
def test_the_lanes_share_the_open_file_budget_each_keeping_every_entrants_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fitting: int, lanes: int
) -> None:
    monkeypatch.setattr(worker, "hosts_that_fit", lambda wanted: min(wanted, fitting))
    setup = _setup(tmp_path, 3, "{bot: random, mode: process}", "{bot: honest, mode: process}")
    playing = _Worker(setup)
    try:
        assert playing.lanes == lanes
        seats = playing.ruleset.max_players
        assert playing.cap >= seats
        assert playing.lanes == 1 or playing.lanes * playing.cap <= fitting
    finally:
        playing.shutdown()


def test_a_bot_inline_keeps_its_worker_to_one_game_at_a_time(tmp_path: Path) -> None:
    setup = _setup(tmp_path, 3, "{bot: random, mode: process}", "honest")
    playing = _Worker(setup)
    try:
        assert playing.lanes == 1
    finally:
        playing.shutdown()


@pytest.mark.parametrize("text", ["0", "two", "-1"])
def test_lanes_asked_for_in_words_or_below_one_are_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.setenv("ARENA_LANES", text)
    cfg = load_tournament(_config(tmp_path, games=1))
    with pytest.raises(TournamentError, match=f"ARENA_LANES must be a whole number of lanes "
                                              f"from 1, not '{text}'"):
        run_tournament(cfg, tmp_path / "out", workers=2)


# --- a run in its own process: kill -9 of a worker, Ctrl-C ---------------------------------

PLAIN = """
name: plain
rules: dice
entrants:
  - {bot: random, mode: process}
  - {bot: honest, mode: process}
  - {bot: random, alias: other, mode: process}
format: {type: round-robin, seats: 2, games: 6}
seed: 2
"""
"""36 games: once 10 are written, 26 are left, so the kill and the Ctrl-C land with both
workers holding games (2 workers of 2 lanes hold 4 at most; the 72 played before, 20 written
first, added games to wait for, nothing to check: the two tests took 51 s of CPU, now 45).
Games to 5 points: played to 2 (quicker), one fresh-clone run's kill found the stopped worker
holding no game, and was not told."""
WRITTEN = 10
"""The lines written before the kill or the Ctrl-C."""


LANES = "2"
"""Lanes of each worker of the runs cut here: two are games in flight beside each other, what
a kill or a Ctrl-C must handle, as three are (each lane keeps its own bot processes: a run
of 2 workers of 3 lanes took 6.2 s of CPU, of 2 lanes 5.2)."""


def _run(config: Path, out: Path, *more: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "arena", "run", str(config), "--out", str(out),
               "--workers", "2", "-q", *more]  # fmt: skip
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "ARENA_LANES": LANES})


def _wait_for_games(process: subprocess.Popen[bytes], games: Path, count: int) -> None:
    while not games.exists() or games.read_bytes().count(b"\n") < count:
        assert process.poll() is None, process.communicate()
        time.sleep(0.005)


@pytest.fixture(scope="module")
def calm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plain tournament played to its end, its config beside it: played once for the
    module, as the tests below only read it (each writes its own folder beside it). Played
    here, one game at a time (the same bytes as lanes on workers: the test above pins that),
    so the runs compared with it are the only ones with a fork server and workers to start
    (`arena run` with 2 workers of 3 lanes took 8 s of CPU, this 3)."""
    folder = tmp_path_factory.mktemp("plain")
    config = _write(folder, textwrap.dedent(PLAIN).lstrip())
    run_tournament(load_tournament(config), folder / "calm", workers=1)
    return folder / "calm"


def _stopped_holding_games(process: subprocess.Popen[bytes], games: Path) -> set[int]:
    """The run's two workers, stopped (SIGSTOP) once one of them surely holds games: the
    main process then takes in what they had sent and writes it, tops them up, and waits in
    poll(2) for their next message, which it does only while a worker holds a game (with none
    held, it sends more first). Looked at until it has waited there, the log unchanged, on
    three looks 20 ms apart (a busy main process runs, or waits on its disk, in between).
    One worker stopped for a while (the test before) found it holding nothing on a loaded
    machine: its games were done and the main process waited for the other's, to write them
    in order, before it sent more."""
    workers = the_workers(process.pid, 2)
    for pid in workers:
        os.kill(pid, signal.SIGSTOP)
    deadline, still, size = time.monotonic() + 60, 0, -1
    while still < 3:
        assert time.monotonic() < deadline, "the run's main process never waited for its workers"
        assert process.poll() is None, process.communicate()
        now = games.stat().st_size
        still = still + 1 if waiting_in_poll(process.pid) and now == size else 0
        size = now
        time.sleep(0.02)
    return workers


def test_workers_killed_with_games_in_flight_play_each_again_once(calm: Path) -> None:
    out = calm.parent / "killed"
    process = _run(calm.parent / "t.yaml", out)
    _wait_for_games(process, out / results.GAMES, WRITTEN)
    for pid in _stopped_holding_games(process, out / results.GAMES):
        os.kill(pid, signal.SIGKILL)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    assert b"a worker died (killed by SIGKILL) in game rr-" in stderr
    same_results(calm, out)


def test_ctrl_c_with_games_in_flight_keeps_the_finished_ones_and_resume_completes(
    calm: Path,
) -> None:
    out = calm.parent / "stopped"
    process = _run(calm.parent / "t.yaml", out)
    _wait_for_games(process, out / results.GAMES, WRITTEN)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode != 0
    saved = (out / results.GAMES).read_bytes()
    assert f"games are saved in {out}".encode() in stderr, stderr
    assert saved == (calm / results.GAMES).read_bytes()[: len(saved)]
    resumed = _run(calm.parent / "t.yaml", out, "--resume")
    _, stderr = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, stderr
    same_results(calm, out)
