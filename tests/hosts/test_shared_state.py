"""Two sandboxed bots at one table share one kernel: what of its state could carry a hand
from one to the other within a decision is refused (issue 38). The measured table of every
channel is in docs/security.md; its attacks are benchmarks/channels.py, run here once, small."""

from __future__ import annotations

import errno
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from isolation_support import LIMITS, play_zoo, reports, require_sandbox, zoo

from arena import play_game
from arena.bot import Limits
from arena.hosts import walls
from arena.hosts.pipe import ProcessHost
from arena.referee import Player

ROOT = Path(__file__).resolve().parents[2]


pytestmark = pytest.mark.load  # counters timed on core 0: no hog beside them


@pytest.fixture(autouse=True)
def sandbox_here() -> None:
    """Every test here needs a level with bubblewrap and seccomp."""
    require_sandbox()


def test_two_bots_pass_nothing_through_locks_watches_or_the_machines_counters() -> None:
    hold, look = ProcessHost(zoo("sharer.py"), LIMITS), ProcessHost(zoo("sharer.py"), LIMITS)
    try:
        record = play_game("dice", [Player("hold", hold, options={"role": "hold"}),
                                    Player("look", look, options={"role": "look"})],
                           seed=3, limits=Limits(5.0))
    finally:
        hold.shutdown()
        look.shutdown()
    assert record.faults == ()
    held, seen = reports(hold, "HELD"), reports(look, "SHARED")
    assert held and len(seen) >= 3
    assert held[0]["flock"] == held[0]["posix"] == "error: No locks available"
    assert all(h["pidfs"].startswith("error") and h["cookie"].startswith("error") for h in held)
    for report in seen:  # before: the locks found, every watch fired, each counter read
        assert report["flock_blocked"] is not True and report["posix_found"] is False, report
        assert not (report["inotify"] or report["fanotify"] or report["dnotify"]), report
        for counter in ("pidfs", "cookie", "peer_pidfd", "sock_diag"):
            assert str(report[counter]).startswith("error"), report


def test_the_channel_benchmark_runs_one_channel_and_prints_its_line() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks/channels.py"), "--channels",
                           "flock", "--games", "1", "--runs", "1", "--isolation",
                           walls.strongest()], capture_output=True, text=True, timeout=300,
                          check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    [line] = [t for t in done.stdout.splitlines() if t.startswith("flock ")]
    assert "bits/decision" in line and "load" in line


def _counter_game(isolation: str, sender_role: str = "send",
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Three dice games between the counter's sender and hearer; what each reported."""
    limits = replace(LIMITS, isolation=isolation)
    sender, hearer = ProcessHost(zoo("counter.py"), limits), ProcessHost(zoo("counter.py"), limits)
    try:
        for seed in (5, 6, 7):
            record = play_game("dice", [Player("send", sender, options={"role": sender_role}),
                                        Player("hear", hearer, options={"role": "hear"})],
                               seed=seed, limits=Limits(5.0))
            assert record.faults == ()
    finally:
        sender.shutdown()
        hearer.shutdown()
    return reports(sender, "COUNTER"), reports(hearer, "COUNTER")


def _heard(sent: list[dict[str, Any]], heard: list[dict[str, Any]]) -> int:
    """Readings that found the message sent last before them (since the previous reading)."""
    found, last = 0, 0.0
    for reading in heard:
        fresh = [s for s in sent if last < s["time"] < reading["time"] and "sent" in s]
        last = reading["time"]
        found += bool(fresh) and fresh[-1]["sent"] == reading.get("heard")
    return found


@pytest.mark.parametrize("isolation", ["strict", "standard"])
def test_no_hand_passes_through_the_inode_counter_of_pipes_made_mid_game(isolation: str) -> None:
    if isolation == "strict" and walls.strongest() != "strict":
        pytest.skip("strict needs every wall here")
    sent, heard = _counter_game(isolation)
    assert len(sent) >= 5 and len(heard) >= 5
    # before: the hearer read the sender's three dice at most of its decisions (chance 1/256)
    assert _heard(sent, heard) <= 1, (sent, heard)
    for report in [*sent, *heard]:  # each pipe made once the game was sent is refused
        assert report.get("error") == errno.EPERM, report


def test_helpers_started_at_import_serve_a_bot_mid_game_and_a_subprocess_then_is_refused() -> None:
    host = ProcessHost(zoo("starter.py"), LIMITS)
    try:  # its helper program and pool outlive each game's sweep: it could not start them again
        for seed in (4, 5):
            record = play_game("dice", [Player("zoo", host), "random"], seed=seed,
                               limits=Limits(5.0))
            assert record.faults == ()
    finally:
        host.shutdown()
    assert "STARTER ok" in host.stderr_tail()
    late = ProcessHost(zoo("starter.py"), LIMITS)
    [fault] = play_zoo(late, seed=4, bot_options={"mode": "mid-game"}).faults
    assert fault.kind == "crash" and "PermissionError" in fault.message, fault
    assert "arena refused pipe2" in fault.message, fault  # the call subprocess makes first
    assert "may not be made after the bot was sent its first game" in fault.message, fault


def test_a_helper_forked_before_the_first_game_is_refused_with_its_bot() -> None:
    sent, heard = _counter_game(walls.strongest(), sender_role="helper")
    assert len(sent) >= 5 and len(heard) >= 5  # the helper's reports, then the hearer's
    assert _heard(sent, heard) <= 1, (sent, heard)
    assert all(report.get("error") == errno.EPERM for report in [*sent, *heard]), sent
