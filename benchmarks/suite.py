"""Benchmark: the wall time of README's test command, `python -m pytest`, in one process
(`-n 0`) and with pytest-xdist's workers (pyproject's addopts), so that the suite's speed is
measured here and never asserted by a test (issue 34, item 7).
Run `python benchmarks/suite.py [--rounds N] [--workers 0,auto] [-- PYTEST_ARGS...]`.

The settings are interleaved round by round (0, auto, 0, auto, ...) so that a change in the
machine's load weighs on each alike. Prints each run's wall time, exit status, pass/fail line
and the load average before and after it, the CPU seconds the run and the processes it waited
for used, and the share of the machine's CPU time that was busy during it (/proc/stat: on an
idle machine, how much of it the suite kept busy, which is what more workers can fill); then
each setting's median. Measures only; asserts nothing. Set CI=true and ARENA_TEST_POSTGRES as
.ci/run does to time what CI runs.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu_times() -> tuple[int, int]:
    """The machine's (busy, all) CPU time so far, in ticks (/proc/stat's first line; idle
    and I/O wait are not busy)."""
    with open("/proc/stat", encoding="ascii") as stat:
        ticks = [int(word) for word in stat.readline().split()[1:]]
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks)


def children_cpu() -> float:
    """CPU seconds of the processes waited for so far (the suite, its workers and theirs)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run_once(workers: str, extra: list[str]) -> tuple[float, int, str, float, float]:
    """One run of the suite: its wall time, exit status, last line, CPU seconds, and the
    machine's busy share while it ran; the tests that failed or erred are printed at once
    (pytest's own record of them is overwritten by the next round)."""
    cpu, (busy, all_) = children_cpu(), cpu_times()
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", workers, *extra], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    busy_after, all_after = cpu_times()
    lines = done.stdout.strip().splitlines()
    for line in lines:
        if line.startswith(("FAILED ", "ERROR ")):
            print(f"  -n {workers}: {line}", flush=True)
    last = (lines or [""])[-1]
    share = (busy_after - busy) / max(1, all_after - all_)
    return wall, done.returncode, last, children_cpu() - cpu, share


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
            wall, status, last, cpu, busy = run_once(workers, args.pytest_args)
            after = os.getloadavg()[0]
            times.append(wall)
            print(f"round {round_ + 1} -n {workers}: {wall:.0f} s, exit {status}, "
                  f"load {before:.1f} -> {after:.1f}, {cpu:.0f} s of CPU, the machine's "
                  f"CPUs {busy:.0%} busy: {last}", flush=True)
    for workers, times in walls.items():
        print(f"-n {workers}: median {statistics.median(times):.0f} s of {len(times)}")


if __name__ == "__main__":
    main()
