"""Benchmark: stopping a worker's kept bot processes, each asked to stop and then reaped one
by one (the code before) against all asked first and then reaped (`KeptHosts.close`), so
they exit side by side. The two take turns round by round, each on N freshly started
sandboxed (`strict`) built-in bots that have started one game. Measures only; asserts nothing.
Run: python benchmarks/kept_stop.py [--bots 30] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from arena.bot import BotContext, Limits
from arena.hosts.pipe import ProcessHost, ProcessLimits


def started(count: int) -> list[ProcessHost]:
    """`count` sandboxed bot processes, each past one game's start."""
    hosts = [ProcessHost("random", ProcessLimits(start_timeout=60, isolation="strict"))
             for _ in range(count)]
    for host in hosts:
        host.start(BotContext(0, 2, "dice", {}, Limits(), random.Random(1)))
        host.close()
    return hosts


def stop(hosts: list[ProcessHost], asked_first: bool) -> float:
    """Seconds to stop them all, asking each first or not."""
    begun = time.perf_counter()
    if asked_first:
        for host in hosts:
            host.ask_to_stop()
    for host in hosts:
        host.shutdown()
    return time.perf_counter() - begun


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"one by one": [], "asked first": []}
    for number in range(args.rounds):
        order = list(times) if number % 2 == 0 else list(reversed(times))
        for name in order:
            times[name].append(stop(started(args.bots), name == "asked first"))
    load = os.getloadavg()[0]
    for name, seconds in times.items():
        print(f"{name:>12}: {statistics.median(seconds):.2f} s for {args.bots} bots "
              f"(median of {args.rounds}; load {load:.1f})")


if __name__ == "__main__":
    main()
