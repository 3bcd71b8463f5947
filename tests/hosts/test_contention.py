"""CPU contention between table-mates (docs/security.md, "CPU contention"): a bot whose
thread, or a grandchild in a session of its own, spins through slots of the shared clock
while its table-mate decides would pass it bits through the CPU they share. A bot is frozen
(every process and thread of it) whenever it is not being asked for something, so the
receiver, timing its own share of the CPU, hears chance; and the frozen bot starts, plays,
hears the end and shuts down as before."""

from __future__ import annotations

import ctypes
import math
import os
import platform
import random
import struct
import threading
import time
from dataclasses import replace

import pytest
from isolation_support import require_sandbox, zoo
from needs import require

from arena import play_game
from arena.bot import BotContext, Limits
from arena.hosts import cgroups, freezer, processes
from arena.hosts.pipe import ProcessHost, ProcessLimits
from arena.referee import Player
from arena.rules import RULESETS

pytestmark = pytest.mark.load  # a timing channel on core 0: no hog beside it
STRICT = ProcessLimits(start_timeout=60.0, isolation="strict")
HEARD = 8
"""Slots the receiver times at each of its 18 decisions in the two games (20 ms each): 144 in
all, 1.5 times the 96 the test needs; a channel agreeing in 8 slots of 10 (as before the
freeze) would stand 43 slots off chance, 4 of its standard deviations beyond the 24 that
chance is allowed (4 of chance's)."""


def agreement(host: ProcessHost) -> tuple[int, int]:
    """(slots whose reading agreed with the sender's pattern, slots read) in all."""
    agree = total = 0
    for line in host.stderr_tail().splitlines():
        words = line.split()
        if len(words) == 3 and words[0] == "AGREE":
            agree, total = agree + int(words[1]), total + int(words[2])
    return agree, total


def v1_freezer() -> str | None:
    """The folder of v1's freezer hierarchy this process may make groups in, or None."""
    own = cgroups._own_groups().get("freezer")
    for root, point, kind, options in cgroups._mounts():
        if kind == "cgroup" and "freezer" in options and own is not None:
            folder = cgroups._under(root, point, own)
            return str(folder) if cgroups._usable(folder) else None
    return None


def use_freezer(kind: str, monkeypatch: pytest.MonkeyPatch) -> ProcessLimits:
    """The limits that freeze the bots this way: the machine's cgroup freezer, v1's, or
    SIGSTOP to the tree (no cgroup, at standard, which needs none)."""
    if kind == "signals":
        monkeypatch.setattr(processes, "group_for", lambda limits: None)
        return replace(STRICT, isolation="standard")
    require(cgroups.controllers().version is not None, "cgroups (v2 delegated, or v1)")
    if kind == "v1":
        folder = v1_freezer()
        if folder is None:
            pytest.skip("no v1 freezer hierarchy here")
        delegated = replace(cgroups.controllers(), freezer=(1, folder))
        monkeypatch.setattr(processes, "group_for",
                            lambda limits: cgroups.BotGroup(limits, delegated))
    return STRICT


@pytest.mark.parametrize(("how", "kind"), [
    ("thread", "cgroup"), ("session", "cgroup"), ("session", "v1"), ("session", "signals")])
def test_a_bot_spinning_off_turn_tells_its_table_mate_nothing(
        how: str, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    require_sandbox()
    limits = use_freezer(kind, monkeypatch)
    sender, receiver = ProcessHost(zoo("contender.py"), limits), ProcessHost(
        zoo("contender.py"), limits)
    try:
        for seed in range(2):  # a game, and one with the spinner the first game started
            record = play_game("dice", [
                Player("sender", sender, options={"role": "send", "how": how}),
                Player("receiver", receiver, options={"role": "hear", "slots": HEARD})],
                seed=seed, limits=Limits(3.0, wall_factor=3.0))
            assert record.faults == (), record.faults
    finally:
        sender.shutdown()
        receiver.shutdown()
    agree, total = agreement(receiver)
    assert total >= 96, total
    # chance is total / 2; a channel would agree in most slots (8 in 10 and more before)
    assert abs(agree - total / 2) < 4 * math.sqrt(total) / 2, (agree, total)


def ticked(host: ProcessHost, within: float) -> bool:
    """Whether the ticker's thread wrote its tick within `within` seconds of now."""
    until = time.monotonic() + within
    while "TICK" not in host.stderr_tail():
        if time.monotonic() > until:
            return False
        time.sleep(0.02)
    return True


def started_ticker(isolation: str) -> ProcessHost:
    """A ticker started for a game and waiting for its first turn (its thread left running)."""
    rules = RULESETS["dice"]
    host = ProcessHost(zoo("ticker.py"), replace(STRICT, isolation=isolation))
    host.start(BotContext(0, 2, "dice", rules.check_options({}), Limits(3.0), random.Random(1),
                          description=rules.description))
    return host


def test_a_sandboxed_bot_does_nothing_between_its_turns(level: str) -> None:
    """Frozen once it answered: its thread's tick comes only when it is asked again."""
    require_sandbox()
    host = started_ticker(level)
    try:
        assert not ticked(host, 1.0), host.stderr_tail()
        assert host.process is not None
        host.process.freezer.thaw()  # as a message to it would
        assert ticked(host, 30.0), host.stderr_tail()
    finally:
        host.shutdown()


def test_a_bot_at_isolation_none_is_not_frozen_between_its_turns() -> None:
    """At none no channel between bots is closed (docs/security.md), so freezing would be
    pure cost: a trusted bot's background work goes on while others play."""
    host = started_ticker("none")
    try:
        assert ticked(host, 30.0), host.stderr_tail()
    finally:
        host.shutdown()


def scheduler_slice(tid: int) -> int | None:
    """The task's scheduler slice in ns (sched_getattr's runtime), or None where unknown."""
    if platform.machine() != "x86_64":
        return None
    attr = ctypes.create_string_buffer(56)
    if ctypes.CDLL(None, use_errno=True).syscall(315, tid, attr, 56, 0) != 0:
        return None
    return int(struct.unpack_from("Q", attr.raw, 24)[0])


def bot_tasks(bot: freezer.Freezer) -> list[int]:
    """Every thread of a frozen bot: its cgroup's, or those of the processes it stopped."""
    if isinstance(bot, freezer.CgroupFreezer):
        return [int(tid) for tid in bot.tasks.read_text().split()]
    assert isinstance(bot, freezer.SignalFreezer), bot
    return [int(tid) for pid in bot.stopped for tid in os.listdir(f"/proc/{pid}/task")]


@pytest.mark.parametrize("kind", ["cgroup", "signals"])
def test_a_frozen_bot_is_woken_to_stop_at_once(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A freeze reaches a bot's sleeping task only once the task runs: every task of a
    frozen bot, a thread it starts after its first freeze too, asks for the short scheduler
    slice, so it stops without waiting out other tasks' slices (benchmarks/freezing.py)."""
    require_sandbox()
    me = threading.get_native_id()
    freezer.quicken(me)  # as the referee's waiting thread is
    if scheduler_slice(me) != freezer.SLICE:
        pytest.skip("no custom scheduler slice here (Linux 6.12+ on x86-64)")
    with monkeypatch.context() as default:
        default.setattr(freezer, "SLICE", 0)
        freezer.quicken(me)  # the kernel's default again: the bot inherits nothing from here
    assert scheduler_slice(me) != freezer.SLICE
    host = started_ticker(use_freezer(kind, monkeypatch).isolation)  # it ticks in a thread
    try:
        assert host.process is not None
        tasks = bot_tasks(host.process.freezer)
        assert len(tasks) >= 2, tasks
        assert {scheduler_slice(tid) for tid in tasks} == {freezer.SLICE}, tasks
    finally:
        host.shutdown()
