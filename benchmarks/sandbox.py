"""Benchmark: what the sandbox costs a bot against today's process mode (isolation `none`),
in the same run: the start of a bot process (spawn, launcher, hello, the first `ready`) and
one decision (the referee's request to the bot's answer, as the referee times it). Run
`python benchmarks/sandbox.py [--starts N] [--games N] [--level strict]`.

Levels are measured in alternation, start by start and game by game, so both see the same
load; each figure is the median over its runs, and the ratio is the sandbox's median over
`none`'s. The bot is `random` in a process, at seat 0 of 3-player dice games against two
inline `random` bots. Then (`--syscalls N`, 0 skips it) what one system call costs a process
at `none` and in the sandbox, whose seccomp filter (`arena.hosts.seccomp`) every call of the
bot runs through: a loop of getppid() calls less an empty loop, in CPU time, the levels in
alternation, the median of 5 rounds. Measures only; asserts nothing (the goal is a decision
within 1.1x).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from typing import Any

from arena import play_game
from arena.bot import BotContext, GameEnd, Limits
from arena.hosts.inline import Host
from arena.hosts.pipe import ProcessHost, ProcessLimits
from arena.hosts.processes import BotProcess
from arena.hosts.walls import level as find_level
from arena.referee import Player
from arena.rules import RULESETS
from arena.rules.actions import Action
from arena.rules.base import Event, Observation


class Timed(Host):
    """A host that times each of its decisions (the wall clock around the inner host's act)."""

    def __init__(self, inner: ProcessHost) -> None:
        self.inner = inner
        self.mode = inner.mode
        self.times: list[float] = []

    def start(self, context: BotContext) -> None:
        self.inner.start(context)

    def act(self, observation: Observation, timeout: float) -> Action:
        began = time.perf_counter()
        action = self.inner.act(observation, timeout)
        self.times.append(time.perf_counter() - began)
        self.billed = self.inner.billed
        return action

    def notify(self, event: Event) -> None:
        self.inner.notify(event)

    def end(self, result: GameEnd) -> None:
        self.inner.end(result)

    def close(self) -> None:
        self.inner.close()


def _context() -> BotContext:
    rules = RULESETS["dice"]
    return BotContext(0, 3, "dice", rules.check_options({}), Limits(5.0), random.Random(1),
                      description=rules.description)


def start_seconds(isolation: str) -> float:
    """Seconds from nothing to a bot ready to play: process, launcher, hello, start."""
    host = ProcessHost("random", ProcessLimits(isolation=isolation))
    began = time.perf_counter()
    try:
        host.start(_context())
        return time.perf_counter() - began
    finally:
        host.shutdown()


def decision_seconds(hosts: dict[str, Timed], games: int) -> dict[str, list[float]]:
    """Median seconds per decision of each game, by level, the levels taking turns."""
    medians: dict[str, list[float]] = {name: [] for name in hosts}
    for game in range(games):
        for name, host in hosts.items():
            host.times.clear()
            play_game("dice", [Player(name, host), "random", "random"], seed=game,
                      limits=Limits(5.0))
            medians[name].append(statistics.median(host.times))
    return medians


SYSCALLS = """
import os, time
calls = {calls}
begun = time.process_time()
for _ in range(calls):
    os.getppid()
spent = time.process_time() - begun
begun = time.process_time()
for _ in range(calls):
    pass
os.write(2, str((spent - (time.process_time() - begun)) / calls).encode())
"""


def syscall_seconds(isolation: str, calls: int) -> float:
    """CPU seconds one getppid() costs a process at this level (its loop less an empty one)."""
    process = BotProcess({"command": [sys.executable, "-c", SYSCALLS.format(calls=calls)]},
                         ProcessLimits(isolation=isolation))
    try:
        process.exit_reason(60)
        process.drain()
        return float(process.stderr_tail())
    finally:
        process.terminate()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--level", default=None, help="the sandbox level (default: strongest)")
    parser.add_argument("--syscalls", type=int, default=300000)
    args = parser.parse_args(argv)
    sandbox = find_level(args.level).name
    levels = ("none", sandbox)
    starts: dict[str, list[float]] = {name: [] for name in levels}
    for _ in range(args.starts):
        for name in levels:
            starts[name].append(start_seconds(name))
    hosts = {name: Timed(ProcessHost("random", ProcessLimits(isolation=name)))
             for name in levels}
    try:
        decisions = decision_seconds(hosts, args.games)
    finally:
        for host in hosts.values():
            host.inner.shutdown()
    figures: dict[str, Any] = {}
    for what, runs in (("start", starts), ("decision", decisions)):
        none, walled = statistics.median(runs["none"]), statistics.median(runs[sandbox])
        figures[what] = {"none": none, sandbox: walled, "ratio": walled / none}
        print(f"{what:>8}: none {none * 1e3:8.3f} ms   {sandbox} {walled * 1e3:8.3f} ms   "
              f"ratio {walled / none:.2f}x   (median of {len(runs['none'])})")
    if args.syscalls:
        calls: dict[str, list[float]] = {name: [] for name in levels}
        for _ in range(5):
            for name in levels:
                calls[name].append(syscall_seconds(name, args.syscalls))
        none, walled = statistics.median(calls["none"]), statistics.median(calls[sandbox])
        figures["syscall"] = {"none": none, sandbox: walled, "ratio": walled / none}
        print(f" syscall: none {none * 1e9:8.0f} ns   {sandbox} {walled * 1e9:8.0f} ns   "
              f"ratio {walled / none:.2f}x   (getppid, median of 5)")
    print(f"level: {find_level(sandbox).describe()}")
    return figures


if __name__ == "__main__":
    main()
