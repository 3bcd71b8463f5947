"""Games in flight (lanes) are walled from each other: two lanes of one worker play twin
games of one hostile entrant at once, each lane with its own bot process, and the bot in
one lane tries every channel a machine offers (a /tmp or /dev/shm file, a named pipe, an
abstract unix socket, a System V segment, /proc and signals) to learn the other game's
dice. Without the sandbox it learns them (so the test can fail); in it, nothing."""

from __future__ import annotations

import ctypes
import json
import secrets
from dataclasses import replace
from pathlib import Path

from cli_support import write_config
from needs import require

from arena.executor.local import Executor
from arena.hosts import walls
from arena.tournament.formats.registry import plan_for
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import tournament_setup
from arena.tournament.run.worker import _Worker, game_job

SPY = Path(__file__).with_name("lane_spy.py")
LANES = 2
CHANNELS = {"tmp", "shm", "fifo", "socket", "sysv", "proc"}


def _remove_rendezvous(tag: str) -> None:
    """What the spies leave on the machine when nothing walls them in."""
    for folder in ("/tmp", "/dev/shm"):
        for path in Path(folder).glob(f"arena-spy-{tag}*"):
            path.unlink(missing_ok=True)
    libc = ctypes.CDLL(None, use_errno=True)
    shmid = libc.shmget(0x5A000000 | int(tag, 16) & 0xFFFFFF, 0, 0)
    if shmid >= 0:
        libc.shmctl(shmid, 0, None)  # IPC_RMID


def _messages(isolation: str, tmp_path: Path) -> list[str]:
    """The fault messages of twin spy-against-random games played by one worker process
    in two lanes at once."""
    tag = secrets.token_hex(3)
    spy = tmp_path / "spy.py"
    spy.write_text(SPY.read_text().replace('TAG = "TAG"', f'TAG = "{tag}"'))
    config = write_config(tmp_path, f"""
        name: lanes-attack
        rules: dice
        isolation: {isolation}
        entrants:
          - {{bot: '{spy}', alias: spy}}
          - {{bot: random, mode: process}}
        format: {{type: round-robin, seats: 2, games: 4}}
        limits: {{decision: 2.0}}
        seed: 3
        """, name=f"{isolation}.yaml")
    cfg = load_tournament(config)
    setup = tournament_setup(cfg)
    executor = Executor(game_job(setup, LANES), 1, apart=True)  # one worker process
    try:
        played = list(executor.map(plan_for(cfg).main))
    finally:
        executor.close()
        _remove_rendezvous(tag)
    playing = _Worker(replace(setup, lanes=LANES))  # as the worker process built it
    try:
        assert playing.lanes == LANES, "both games in flight at once, each its own processes"
    finally:
        playing.shutdown()
    games = [json.loads(p.line) for p in played]
    assert len(games) == 8
    return [f["message"] for g in games for f in g["faults"]]


def _reports(messages: list[str]) -> list[dict[str, str]]:
    """What each channel gave the spy, from its LEARNED and PROBED faults."""
    found = []
    for message in messages:
        for word in ("LEARNED ", "PROBED "):
            if word in message:
                found.append(json.JSONDecoder().raw_decode(message.split(word, 1)[1])[0])
    return found


def _learned(reports: list[dict[str, str]]) -> set[str]:
    return {c for r in reports for c, said in r.items() if said.startswith("learned")}


def test_without_the_sandbox_a_bot_in_one_lane_learns_the_other_lanes_dice(
        tmp_path: Path) -> None:
    reports = _reports(_messages("none", tmp_path))
    # the socket is served by a live process: the other lane's, playing its game now
    assert {"tmp", "shm", "fifo", "socket", "sysv"} <= _learned(reports), reports


def test_in_the_sandbox_a_bot_in_one_lane_learns_nothing_of_the_other_lane(
        tmp_path: Path) -> None:
    require(walls.strongest() == "strict",
            "the strict sandbox needs bubblewrap, libseccomp and Landlock")
    messages = _messages("strict", tmp_path)
    reports = _reports(messages)
    assert len(reports) >= 2, messages  # both lanes' spies ran every probe
    assert all(set(r) == CHANNELS for r in reports)
    assert _learned(reports) == set(), reports
    assert not any("LEARNED" in m for m in messages)
