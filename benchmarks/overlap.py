"""Benchmark: games per second of a tournament of bots in their own processes, one game at a
time per worker (lanes 1: today's way) against several games in flight per worker (lanes 2,
3, 4: while one game waits for a bot, the worker advances another), in the same run.

Each run is a real `arena run` subprocess of a 2-player `dice` round robin between `random`
and `honest`, both in `process` mode at one isolation level (`none`, `standard`, `strict`:
the sandbox), on 2 workers, replays off, its lanes set by ARENA_LANES. games.jsonl is
sampled every 20 ms; the rate is games per second of playing, from the first game written
to the last (the bots' start is left out). The contenders take turns in every round (their
order rotated from round to round), so all see the same load; each figure is a median over
the rounds, and its ratio is against lanes 1 at the same level, in the same rounds. The CPU
per game (of the processes the run reaped: a hint of what overlapping costs, not a measure;
a sandboxed bot's own time may be left out) does not depend on the load as rates do.

    python benchmarks/overlap.py                        # 3 rounds, 1,200 games, every level
    python benchmarks/overlap.py --rounds 5 --levels strict --lanes 1,2
    python benchmarks/overlap.py --today /tmp/arena-before   # also arena's source from before
                                                             # lanes (run from that folder)

Measures only; asserts nothing (no test may assert a speed). Same results either way: the
tests pin that lanes change no byte of the results.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
from pathlib import Path

from isolation import playing_rate

TOURNAMENT = """name: overlap-bench
rules: dice
entrants:
  - {{bot: random, mode: process}}
  - {{bot: honest, mode: process}}
isolation: {level}
format: {{type: round-robin, seats: 2, games: {rounds}}}
workers: 2
replays: false
seed: 1
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def tournament(level: str, lanes: int, games: int, today: str | None = None,
               ) -> tuple[float, float]:
    """Games per second of playing and CPU milliseconds per game of one `arena run` (of the
    arena package in the folder `today`, when given, instead of this one)."""
    with tempfile.TemporaryDirectory() as folder:
        config, games_file = Path(folder) / "bench.yaml", Path(folder) / "out" / "games.jsonl"
        config.write_text(TOURNAMENT.format(level=level, rounds=games // 2))
        environment = {**os.environ, "ARENA_LANES": str(lanes)}
        if today is not None:
            environment["PYTHONPATH"] = today
        cpu = _children_cpu()
        rate = playing_rate(config, games_file, games,
                            f"arena run failed (isolation {level}, lanes {lanes})",
                            env=environment, cwd=folder)  # no arena on sys.path first
        cpu = _children_cpu() - cpu
    return rate, 1000 * cpu / games


def main() -> None:
    """Run every contender once per round, then print one table per isolation level."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=1200, help="games per run")
    parser.add_argument("--levels", default="none,standard,strict")
    parser.add_argument("--lanes", default="1,2,3,4", help="lane counts; the first is the base")
    parser.add_argument("--today", help="a folder holding arena's package from before lanes, "
                                        "played as one more contender (the 'today' row)")
    args = parser.parse_args()
    levels = args.levels.split(",")
    lanes: list[int | str] = [int(n) for n in args.lanes.split(",")]
    if args.today:
        lanes.append("today")
    contenders = [(level, n) for level in levels for n in lanes]
    rates: dict[tuple[str, int | str], list[float]] = {c: [] for c in contenders}
    cpus: dict[tuple[str, int | str], list[float]] = {c: [] for c in contenders}
    for round_ in range(args.rounds):
        turn = round_ % len(contenders)
        for level, n in contenders[turn:] + contenders[:turn]:
            old = n == "today"
            rate, cpu = tournament(level, 1 if old else int(n), args.games,
                                   args.today if old else None)
            rates[(level, n)].append(rate)
            cpus[(level, n)].append(cpu)
            print(f"round {round_ + 1}: isolation {level}, lanes {n}: "
                  f"{rate:.0f} games/s, {cpu:.1f} ms CPU/game", file=sys.stderr, flush=True)
    print(f"\n2-player dice, random against honest, both in process mode, 2 workers, "
          f"{args.games} games a run; medians of {args.rounds} interleaved rounds")
    for level in levels:
        base = statistics.median(rates[(level, lanes[0])])
        print(f"\nisolation {level}\n  lanes  games/s  ratio   CPU ms/game  (runs: games/s)")
        for n in lanes:
            rate, cpu = statistics.median(rates[(level, n)]), statistics.median(cpus[(level, n)])
            runs = " ".join(f"{r:.0f}" for r in rates[(level, n)])
            print(f"  {n:>5}  {rate:7.0f}  {rate / base:5.2f}x  {cpu:11.1f}  ({runs})")


if __name__ == "__main__":
    main()
