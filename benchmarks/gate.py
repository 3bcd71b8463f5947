"""Benchmark: what the start gate (`arena.hosts.gate`) costs the referee when a sandboxed bot
keeps making the calls it refuses once the bot plays. Run `python benchmarks/gate.py [--runs 3]
[--isolation strict]`.

A bot that, at each of its decisions, makes pipes for 0.3 s (each answered EPERM by the
referee's supervisor thread) plays a dice game against `random`; the figure is how many calls
were refused a second and the referee process's CPU time per refused call (all its threads,
the game's own small share included), the median of `--runs` games, with the load average
beside it. Measures only; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from arena import play_game
from arena.bot import Limits
from arena.hosts.pipe import ProcessHost, ProcessLimits
from arena.referee import Player

SPAMMER = '''
import os, sys, time
import arena


class Spammer(arena.Bot):
    name = "gate-spammer"

    def act(self, observation):
        end, refused = time.monotonic() + 0.3, 0
        while time.monotonic() < end:
            try:
                os.close(os.pipe()[0])
            except PermissionError:
                refused += 1
        sys.stderr.write(f"REFUSED {refused}\\n")
        sys.stderr.flush()
        return observation.legal_actions()[0]
'''


def run(path: str, isolation: str, seed: int) -> tuple[float, float]:
    """One game: (refused calls a second, referee CPU microseconds per refused call)."""
    host = ProcessHost(path, ProcessLimits(start_timeout=60.0, isolation=isolation))
    try:
        host.introduce()
        cpu = time.process_time()
        play_game("dice", [Player("spammer", host), "random"], seed=seed, limits=Limits(2.0))
        cpu = time.process_time() - cpu
        counts = [int(t.split()[1]) for t in host.stderr_tail().splitlines()
                  if t.startswith("REFUSED ")]
    finally:
        host.shutdown()
    refused = sum(counts)
    return refused / (0.3 * len(counts)), cpu / refused * 1e6 if refused else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--isolation", default="strict")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "spammer.py"
        path.write_text(SPAMMER)
        loads, found = [], []
        for number in range(args.runs):
            loads.append(os.getloadavg()[0])
            found.append(run(str(path), args.isolation, seed=number + 1))
    rate = statistics.median(r for r, _ in found)
    cost = statistics.median(c for _, c in found)
    print(f"isolation {args.isolation}, {args.runs} games, {os.cpu_count()} CPUs: "
          f"{rate:,.0f} refused calls/s, {cost:.0f} us of referee CPU each "
          f"(runs: {', '.join(f'{r:,.0f}/s {c:.0f} us' for r, c in found)}), "
          f"load {statistics.median(loads):.1f}")


if __name__ == "__main__":
    main()
