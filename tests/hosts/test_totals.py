"""Totals per bot, through its own cgroup: a bot and every helper it starts share one memory
limit, one task limit and one CPU share, and the CPU its helpers burn while others play is
billed to it, so a hog cannot starve its opponents into timeouts. Each attack is played
against innocent bots, which must finish their games unharmed."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace

import pytest
from isolation_support import LIMITS, play_zoo, wire, zoo
from needs import require

from arena import play_game
from arena.bot import Limits
from arena.hosts import cgroups
from arena.hosts.cgroups import controllers
from arena.hosts.inline import RefereeFailure
from arena.hosts.pipe import CommandHost, ProcessHost
from arena.referee import GameRecord, Player

pytestmark = pytest.mark.load  # hogs and their helpers: one load test at a time


def needs_cgroups() -> None:
    """These walls are the kernel's cgroups: CI's machine delegates them."""
    require(controllers().version is not None,
            "cgroups (v2 with cpu, memory, pids delegated, or the v1 controllers)")


def play(attacker: ProcessHost, innocents: list[ProcessHost], decision: float, work: float,
         points: int | None = None, **bot_options: object) -> GameRecord:
    """One dice game (to `points` lost, or the rules' default), the attacker in seat 0 and
    innocent burners that use `work` of CPU time on each decision; every host is shut down
    afterwards."""
    hosts = [attacker, *innocents]
    players = [Player("attacker", attacker, options=dict(bot_options)),
               *(Player(f"innocent{i}", h, options={"work": work})
                 for i, h in enumerate(innocents, 1))]
    try:
        return play_game("dice", players, seed=3, limits=Limits(decision, wall_factor=2.0),
                         options=None if points is None else {"max_points": points})
    finally:
        for host in hosts:
            host.shutdown()


def assert_only_the_attacker_faulted(record: GameRecord, kind: str, words: str) -> None:
    """Seat 0 faulted once, in this way; the innocents finished the game without a fault. A
    timeout's words are checked when it was for CPU time: on a loaded machine the wall limit
    may come first, and which limit stops the attacker is the load's doing, not a promise."""
    assert [(f.seat, f.kind) for f in record.faults] == [(0, kind)], record.faults
    message = record.faults[0].message
    if kind != "timeout" or "CPU time" in message:
        assert words in message, message
    assert record.result.placements[0] == len(record.players)


@pytest.mark.parametrize("delay", [0.0, 0.3], ids=["spinning-at-once", "spinning-off-turn"])
def test_a_hogs_helpers_are_billed_to_it_and_its_opponents_are_not_starved(
        delay: float) -> None:
    """Helpers that spin at once, or from 0.3 s on while the others play: the hog is frozen
    between its turns, so they spin on its own turns and are billed there (where the machine
    had no freezer for its group, they would be billed as used between its turns)."""
    needs_cgroups()
    burners = [ProcessHost(zoo("burner.py"), LIMITS) for _ in range(2)]
    record = play(ProcessHost(zoo("hog.py"), LIMITS), burners, 0.25, 0.125, points=2,
                  helpers=40, delay=delay)  # innocents that use half their limit: the time
    # policy's promise; to 2 points: after a hog out at its first turn the innocents still
    # decide 10 times (59 at the default), and 40 helpers left alive would starve each
    frozen = controllers().freezer is not None
    if frozen and delay:  # frozen off-turn, its helpers spin only in its own short turns:
        assert {f.seat for f in record.faults} <= {0}, record.faults  # whether that ever
        return  # passes its limit is the load's doing; that no innocent is harmed is the promise
    words = "the bot and its helpers together" if frozen or not delay else "between its turns"
    assert_only_the_attacker_faulted(record, "timeout", words)


def test_memory_held_by_many_children_is_capped_in_total() -> None:
    needs_cgroups()
    limits = replace(LIMITS, memory=256 << 20)  # per process and for the bot in all
    hoarder = ProcessHost(zoo("hoarder.py"), limits)
    record = play(hoarder, [ProcessHost(zoo("burner.py"), LIMITS)], 2.0, 0.05,
                  children=9, each=100)
    assert_only_the_attacker_faulted(record, "crash", "memory limit")  # a helper or the bot
    assert "256 MiB for the bot and its helpers" in record.faults[0].message
    held = [int(w) for line in hoarder.stderr_tail().splitlines() if line.startswith("HELD")
            for w in line.split()[1:2]]
    assert all(h < 256 for h in held), held


def test_forks_are_capped_in_total_even_as_root() -> None:
    needs_cgroups()
    swarm = ProcessHost(zoo("swarm.py"), replace(LIMITS, processes=64))
    record = play(swarm, [ProcessHost(zoo("burner.py"), LIMITS)], 2.0, 0.05,
                  forks=300)
    assert_only_the_attacker_faulted(record, "crash", "task limit (64 processes and threads")
    forked = [int(line.split()[1]) for line in swarm.stderr_tail().splitlines()
              if line.startswith("FORKED")]  # none if it was stopped while still forking
    assert all(n < 64 for n in forked), forked


def dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_groups_left_by_a_referee_that_died_are_removed_by_the_next_one() -> None:
    needs_cgroups()
    delegated = controllers()
    parents = {delegated.folder(name) for name in delegated.names}
    stale = [parent / f"arena-{dead_pid()}-1" for parent in parents if parent is not None]
    alive = [parent / f"arena-{os.getpid()}-999999" for parent in parents if parent is not None]
    for folder in stale + alive:
        folder.mkdir()
    try:
        code = "from arena.hosts.cgroups import remove_stale_groups as r; r()"
        subprocess.run([sys.executable, "-c", code], check=True)
        # (which referee removed them is not the promise: another test's may start meanwhile)
        assert [f for f in stale if f.exists()] == [] and all(f.exists() for f in alive)
    finally:
        for folder in stale + alive:
            if folder.exists():
                folder.rmdir()


def test_without_cgroups_the_rlimits_and_the_process_tree_still_bill_a_wrappers_child(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_NO_CGROUPS", "1")
    controllers.cache_clear()
    try:
        assert controllers().version is None
        command = ["sh", "-c", " ".join(wire("spin")) + "; true"]
        record = play_zoo(CommandHost(command, LIMITS), wall_factor=20.0)
    finally:
        controllers.cache_clear()
    assert [(f.seat, f.kind) for f in record.faults] == [(0, "timeout")]
    assert "CPU time" in record.faults[0].message


def test_a_bot_process_that_cannot_join_its_cgroup_is_the_referees_failure_not_a_crash(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel refusing the join (here: a trampoline that gives up before joining, as
    one does when cgroup.procs cannot be written) must not become the bot's crash."""
    needs_cgroups()
    monkeypatch.setattr(cgroups, "TRAMPOLINE", 'echo "arena: cannot join" >&2; exit 125')
    host = ProcessHost(zoo("burner.py"), LIMITS)
    with pytest.raises(RefereeFailure, match="could not join its cgroup"):
        play_zoo(host)
