"""Benchmark: what one decision costs a bot in its own process (`process`, `command`) against
the raw round trip of a JSON message between two processes over a pipe, measured in the same
run. Run `python benchmarks/isolation.py [--decisions N]`; it prints one table.

The raw round trip is the floor any out-of-process bot pays: the parent writes one JSON line,
the child parses it and writes one back, the parent parses the answer. It is measured for a
small message and for a message as long as an average observation. A host's decision adds
encoding the observation, rebuilding it in the bot (process mode), the bot's own choice (a
random legal action, a few microseconds) and the referee's checks. Measures only; asserts
nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from arena.bot import BotContext, Limits
from arena.codec import observation_to_json
from arena.hosts import InlineHost
from arena.isolation import CommandHost, PipeHost, ProcessHost, ProcessLimits
from arena.rules import CHANCE, RULESETS, TERMINAL
from arena.rules.base import Observation
from arena.rules.playout import random_action
from bots.random_bot import RandomBot

ROOT = Path(__file__).resolve().parents[1]
ECHO = """
import json, sys
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    message = json.loads(line)
    out.write(json.dumps({"type": "action", "turn": message["turn"],
                          "action": {"type": "challenge"}}).encode() + b"\\n")
    out.flush()
"""


def observations(count: int, seed: int = 1) -> list[Observation]:
    """Observations of the seat to act, from random dice games with three players."""
    rules, rng = RULESETS["dice"], random.Random(seed)
    found: list[Observation] = []
    while len(found) < count:
        state = rules.new_game(3, rules.check_options({}))
        while (seat := rules.to_act(state)) != TERMINAL:
            if seat == CHANCE:
                state = rules.apply(state, rules.chance(state, rng))
                continue
            observation = rules.observe(state, seat)
            found.append(observation)
            state = rules.apply(state, random_action(observation.legal, rng))
    return found[:count]


class Echo:
    """A child process that answers every JSON line with a small JSON line: the raw floor."""

    def __init__(self, padding: int) -> None:
        self.padding = "x" * padding
        self.child = subprocess.Popen([sys.executable, "-I", "-u", "-c", ECHO],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        assert self.child.stdin is not None and self.child.stdout is not None
        self.input, self.output = self.child.stdin.fileno(), self.child.stdout
        self.turn = 0

    def act(self, observation: Observation) -> object:
        """One round trip (the observation itself is not sent)."""
        self.turn += 1
        os.write(self.input, json.dumps(
            {"type": "act", "turn": self.turn, "observation": self.padding}).encode() + b"\n")
        return json.loads(self.output.readline())

    def close(self) -> None:
        """Stop the child."""
        assert self.child.stdin is not None
        self.child.stdin.close()
        self.child.wait()


def inline() -> Callable[[Observation], object]:
    """The random bot's decision in this process."""
    host = InlineHost(RandomBot)
    host.start(BotContext(0, 3, "dice", {}, Limits(10.0), random.Random(1)))
    return lambda o: host.act(o, 10.0)


def started(host: PipeHost) -> Callable[[Observation], object]:
    """A process or command host, started for a game, as a decision function."""
    host.start(BotContext(0, 3, "dice", {}, Limits(10.0), random.Random(1)))
    return lambda o: host.act(o, 10.0)


def measure(contenders: dict[str, Callable[[Observation], object]],
            seen: list[Observation]) -> dict[str, list[float]]:
    """Seconds per decision of each contender, taking turns decision by decision so that all
    run under the same load."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for index, observation in enumerate(seen):
        for name, act in contenders.items():
            begun = time.perf_counter()
            act(observation)
            if index >= 50:  # the first decisions warm up caches
                times[name].append(time.perf_counter() - begun)
    return times


def summary(name: str, times: list[float], floor: float) -> str:
    """One row of the table: median, 90th percentile, and the median over the floor."""
    ordered = sorted(times)
    median = statistics.median(ordered)
    p90 = ordered[int(len(ordered) * 0.9)]
    return f"{name:<34} {median * 1e6:9.1f} {p90 * 1e6:9.1f} {median / floor:8.2f}x"


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=2000)
    count = parser.parse_args().decisions
    seen = observations(count + 50)
    size = int(statistics.mean(len(json.dumps(observation_to_json(o))) for o in seen))
    limits = ProcessLimits()
    small, sized = Echo(0), Echo(size)
    hosts: dict[str, PipeHost] = {
        "process: random bot": ProcessHost("random", limits),
        "command: example_bot.py": CommandHost(
            [sys.executable, str(ROOT / "bots/examples/example_bot.py")], limits),
    }
    if shutil.which("node"):
        hosts["command: example_bot.js (node)"] = CommandHost(
            ["node", str(ROOT / "bots/examples/example_bot.js")], limits)
    try:
        contenders = {"raw round trip, small message": small.act,
                      f"raw round trip, {size}-byte message": sized.act,
                      "inline (no boundary, for scale)": inline()}
        contenders.update({name: started(host) for name, host in hosts.items()})
        times = measure(contenders, seen)
    finally:
        small.close()
        sized.close()
        for host in hosts.values():
            host.shutdown()
    floor = statistics.median(times["raw round trip, small message"])
    print(f"{count} decisions each, interleaved; microseconds per decision; "
          "ratio = median / median of the small raw round trip")
    print(f"{'':<34} {'median':>9} {'p90':>9} {'ratio':>9}")
    for name, values in times.items():
        print(summary(name, values, floor))


if __name__ == "__main__":
    main()
