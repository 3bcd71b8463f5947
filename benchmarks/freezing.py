"""Benchmark: what freezing a bot between its turns costs a decision (`arena.hosts.freezer`).
Run `python benchmarks/freezing.py [--isolation L] [--games N] [--rounds N]`.

Two process bots (`random`) play 2-seat dice games through arena, at the isolation level
asked (`strict` by default; at `none` a bot is trusted and never frozen, so there the two
figures measure the same referee, and what freezing cost there before is this file run on
the commit before `freezer.Unfrozen`), in rounds: each round plays `--games` games with freezing on,
then as many with it off (`Freezer.freeze` replaced by a no-op in this process: the referee
before freezing), so both see the same load. The figure is decisions per second of playing
(the bots' processes started once, before the clock), the median over the rounds for each,
and the cost of freezing per decision (the difference of the medians' seconds per decision),
with the machine's load average beside. Then the freeze itself: an idle bot (blocked on its
input, as between its turns) frozen, waited for and thawed 500 times (the median of one
cycle), which is what freezing costs where the bot it froze gets a CPU at once. Measures
only; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from arena import play_game
from arena.bot import Limits
from arena.hosts import freezer
from arena.hosts.pipe import ProcessHost, ProcessLimits
from arena.referee import Player

REAL_FREEZE = freezer.Freezer.freeze


def no_freeze(self: freezer.Freezer) -> None:
    """The referee before freezing: a bot runs between its turns."""


def rate(hosts: list[ProcessHost], games: int, seed: int) -> float:
    """Decisions per second of `games` games between the two hosts."""
    decisions = 0
    began = time.perf_counter()
    for game in range(games):
        record = play_game("dice", [Player(f"p{i}", h) for i, h in enumerate(hosts)],
                           seed=seed + game, limits=Limits(2.0, wall_factor=3.0))
        decisions += record.decisions
    return decisions / (time.perf_counter() - began)


def cycle(host: ProcessHost, times: int = 500) -> float:
    """The median seconds of one freeze, its wait and one thaw of the host's idle bot."""
    assert host.process is not None
    bot = host.process.freezer
    took = []
    for _ in range(times):
        began = time.perf_counter()
        bot.freeze()
        freezer.settle()
        bot.thaw()
        took.append(time.perf_counter() - began)
        time.sleep(0.001)
    return statistics.median(took)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--isolation", default="strict")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    limits = ProcessLimits(start_timeout=60.0, isolation=args.isolation)
    hosts = [ProcessHost("random", limits), ProcessHost("random", limits)]
    rates: dict[str, list[float]] = {"frozen": [], "not frozen": []}
    try:
        rate(hosts, 2, 0)  # start the processes and warm them
        for r in range(args.rounds):
            for name, freeze in (("frozen", REAL_FREEZE), ("not frozen", no_freeze)):
                freezer.Freezer.freeze = freeze  # type: ignore[method-assign]
                rates[name].append(rate(hosts, args.games, 1000 * r))
        freezer.Freezer.freeze = REAL_FREEZE  # type: ignore[method-assign]
        idle = cycle(hosts[0])
        kind = type(hosts[0].process.freezer).__name__  # type: ignore[union-attr]
    finally:
        freezer.Freezer.freeze = REAL_FREEZE  # type: ignore[method-assign]
        for host in hosts:
            host.shutdown()
    medians = {name: statistics.median(values) for name, values in rates.items()}
    for name, values in rates.items():
        print(f"{name:>10}: {medians[name]:7.0f} decisions/s (median of "
              f"{', '.join(f'{v:.0f}' for v in values)})")
    cost = 1 / medians["frozen"] - 1 / medians["not frozen"]
    print(f"freezing costs {cost * 1e6:.0f} µs a decision at {args.isolation} "
          f"(load {os.getloadavg()[0]:.1f})")
    print(f"an idle bot frozen, waited for and thawed: {idle * 1e6:.0f} µs ({kind})")


if __name__ == "__main__":
    main()
