"""Benchmark: the wall time of README's test command, `python -m pytest`, in one process
(`-n 0`) and with pytest-xdist's workers (pyproject's addopts), so that the suite's speed is
measured here and never asserted by a test (issue 34, item 7).
Run `python benchmarks/suite.py [--rounds N] [--workers 0,auto] [-- PYTEST_ARGS...]`.

The settings are interleaved round by round (0, auto, 0, auto, ...) so that a change in the
machine's load weighs on each alike. Prints each run's wall time, exit status, pass/fail line
and the load average before and after it; then each setting's median. Measures only;
asserts nothing. Set CI=true and ARENA_TEST_POSTGRES as .ci/run does to time what CI runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_once(workers: str, extra: list[str]) -> tuple[float, int, str]:
    """One run of the suite: its wall time, exit status and last line."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", workers, *extra], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    last = (done.stdout.strip().splitlines() or [""])[-1]
    return wall, done.returncode, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", default="0,auto",
                        help="pytest-xdist -n values, comma-separated (0: one process)")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments, after --")
    args = parser.parse_args()
    walls: dict[str, list[float]] = {w: [] for w in args.workers.split(",")}
    for round_ in range(args.rounds):
        for workers, times in walls.items():
            before = os.getloadavg()[0]
            wall, status, last = run_once(workers, args.pytest_args)
            after = os.getloadavg()[0]
            times.append(wall)
            print(f"round {round_ + 1} -n {workers}: {wall:.0f} s, exit {status}, "
                  f"load {before:.1f} -> {after:.1f}: {last}", flush=True)
    for workers, times in walls.items():
        print(f"-n {workers}: median {statistics.median(times):.0f} s of {len(times)}")


if __name__ == "__main__":
    main()
