"""Benchmark: what freezing a bot between its turns costs a decision (`arena.hosts.freezer`).
Run `python benchmarks/freezing.py [--isolation L] [--games N] [--rounds N]`.

Two process bots (`random`) play 2-seat dice games through arena, at the isolation level
asked (`strict` by default; at `none` a bot is trusted and never frozen, so there the
figures measure the same referee, and what freezing cost there before is this file run on
the commit before `freezer.Unfrozen`), in rounds: each round plays `--games` games with
freezing on, then as many with freezing on but every task at the kernel's default scheduler
slice (the referee before `freezer.quicken`), then as many with it off (`Freezer.freeze`
replaced by a no-op in this process: the referee before freezing), so all three see the
same load. The figure is decisions per second of playing (the bots' processes started once,
before the clock), the median over the rounds for each, and the cost of freezing per
decision (the difference of the medians' seconds per decision), with where a frozen
decision spends it (the write that freezes, the wait for the freeze, the flush of shared
lines, the write that thaws: µs per decision, both seats' together) and the machine's load
average beside. Then the freeze itself: an idle bot (blocked on its input, as between its
turns) frozen, waited for and thawed 500 times (the median of one cycle), which is what
freezing costs where the bot it froze gets a CPU at once. Measures only; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from collections.abc import Callable

from arena import play_game
from arena.bot import Limits
from arena.hosts import freezer
from arena.hosts.pipe import ProcessHost, ProcessLimits
from arena.referee import Player

REAL_FREEZE = freezer.Freezer.freeze
MODES = ("frozen", "default slice", "not frozen")
PHASES = {"freeze write": (freezer.CgroupFreezer, "_stop"), "wait": (freezer, "settle"),
          "flush": (freezer, "flush_shared_lines"), "thaw write": (freezer.CgroupFreezer,
                                                                  "_resume")}
"""A decision's freeze and thaw, in the order they run, and where each is."""


def no_freeze(self: freezer.Freezer) -> None:
    """The referee before freezing: a bot runs between its turns."""


def rate(hosts: list[ProcessHost], games: int, seed: int) -> tuple[int, float]:
    """(decisions, seconds) of `games` games between the two hosts."""
    decisions = 0
    began = time.perf_counter()
    for game in range(games):
        record = play_game("dice", [Player(f"p{i}", h) for i, h in enumerate(hosts)],
                           seed=seed + game, limits=Limits(2.0, wall_factor=3.0))
        decisions += record.decisions
    return decisions, time.perf_counter() - began


def slices(hosts: list[ProcessHost], slice_ns: int) -> None:
    """Every bot task's and this thread's scheduler slice (0: the kernel's default)."""
    freezer.SLICE = slice_ns
    freezer.quicken(threading.get_native_id())
    for host in hosts:
        bot = host.process.freezer if host.process else None
        if isinstance(bot, freezer.CgroupFreezer):
            for tid in bot.tasks.read_text().split():
                freezer.quicken(int(tid))


def timed(spent: dict[str, float]) -> Callable[[], None]:
    """Time each phase of freezing into `spent`; return what undoes it."""
    undo = []
    for name, (owner, attr) in PHASES.items():
        real = getattr(owner, attr)

        def phase(*args: object, _real: Callable[..., None] = real, _name: str = name) -> None:
            began = time.perf_counter()
            _real(*args)
            spent[_name] += time.perf_counter() - began

        setattr(owner, attr, phase)
        undo.append((owner, attr, real))

    def restore() -> None:
        for owner, attr, real in undo:
            setattr(owner, attr, real)
    return restore


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
    rates: dict[str, list[float]] = {name: [] for name in MODES}
    spent = {name: dict.fromkeys(PHASES, 0.0) for name in MODES}
    decided = dict.fromkeys(MODES, 0)
    short = freezer.SLICE
    try:
        rate(hosts, 2, 0)  # start the processes and warm them
        for r in range(args.rounds):
            for name in MODES:
                freezer.Freezer.freeze = (  # type: ignore[method-assign]
                    no_freeze if name == "not frozen" else REAL_FREEZE)
                slices(hosts, 0 if name == "default slice" else short)
                undo = timed(spent[name])
                try:
                    decisions, seconds = rate(hosts, args.games, 1000 * r)
                finally:
                    undo()
                rates[name].append(decisions / seconds)
                decided[name] += decisions
        freezer.Freezer.freeze = REAL_FREEZE  # type: ignore[method-assign]
        idle = cycle(hosts[0])
        kind = type(hosts[0].process.freezer).__name__  # type: ignore[union-attr]
    finally:
        freezer.Freezer.freeze = REAL_FREEZE  # type: ignore[method-assign]
        for host in hosts:
            host.shutdown()
    medians = {name: statistics.median(values) for name, values in rates.items()}
    for name, values in rates.items():
        print(f"{name:>13}: {medians[name]:7.0f} decisions/s (median of "
              f"{', '.join(f'{v:.0f}' for v in values)})")
    for name in MODES[:2]:
        cost = 1 / medians[name] - 1 / medians["not frozen"]
        where = ", ".join(f"{phase} {seconds / decided[name] * 1e6:.0f}"
                          for phase, seconds in spent[name].items())
        print(f"{name:>13}: freezing costs {cost * 1e6:.0f} µs a decision at {args.isolation} "
              f"({where} µs a decision)")
    print(f"load {os.getloadavg()[0]:.1f}")
    print(f"an idle bot frozen, waited for and thawed: {idle * 1e6:.0f} µs ({kind})")


if __name__ == "__main__":
    main()
