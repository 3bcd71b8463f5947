"""Benchmark of `arena report` on a big tournament: time to build and size of report.html.

Run: python benchmarks/report.py [--games 20000] [--folder results/bench-report] [--repeat 3]
                                [--first-repeat 3]

The first run plays the tournament (dice, 8 random bots, 4 seats a table, balanced random
tables; a few minutes on 2 cores) into the folder and keeps it; later runs reuse it. Then it
times, each `--repeat` times (median shown):

    floor      read and gunzip every replay, nothing else (what any report must pay)
    first      build_report as `arena report` runs it (one worker a core) with no packs and
               no state of a last build (`--first-repeat` times: the claim chances of every
               game are computed, minutes at 100k games)
    rebuild    the same with everything packed already (nothing new)
    +1%        the same after 1% more games: built untimed with the log's first
               (100 - repeat)%, then timed with one percent more each time up to the whole
               log (what a live report's refresh or a rebuild after a resumed run pays)

The old code has no state of a last build: run this file with PYTHONPATH set to another
checkout's tree to measure it (the folder's packs are shared; its state files are removed).

and prints the size of report.html and of the viewer's data packs. Wall-clock and CPU
seconds are both shown: on a machine busy with something else the wall clock says little,
and the load average is printed for that reason. A benchmark, never a timed test: nothing
here asserts a speed.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from arena.report.html import REPORT, build_report
from arena.tournament.load import load_tournament
from arena.tournament.run import results
from arena.tournament.run.runner import run_tournament

CONFIG = """\
name: bench-report
rules: dice
entrants:
  - random
  - {{bot: random, alias: ana}}
  - {{bot: random, alias: bruno}}
  - {{bot: random, alias: carla}}
  - {{bot: random, alias: diego}}
  - {{bot: random, alias: elena}}
  - {{bot: random, alias: felix}}
  - {{bot: random, alias: gema}}
format: {{type: round-robin, seats: 4, games: {games}, cap: {cap}}}
seed: 1
"""


def _tournament(folder: Path, games: int) -> None:
    """Play the benchmark tournament into `folder` unless it is already there."""
    if (folder / "standings.csv").exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    config = folder.parent / f"{folder.name}.yaml"
    # 70 tables of 4 from 8 entrants, rotated: `games` per table, capped at the total asked
    config.write_text(CONFIG.format(games=max(1, games // 70 + 1), cap=games))
    print(f"playing {games:,} games into {folder} (once) ...", flush=True)
    started = time.perf_counter()
    run_tournament(load_tournament(config), folder)
    print(f"  played in {time.perf_counter() - started:.0f} s", flush=True)


def _floor(folder: Path) -> None:
    for line in results.iter_games(folder / results.GAMES):
        zlib.decompress((folder / line["replay"]).read_bytes(), 31)


def _fresh(folder: Path) -> None:
    """No packs, no chances and no state of a last build: a first build."""
    for pack in (folder / results.REPLAYS).glob("pack-*.js"):
        pack.unlink()
    shutil.rmtree(folder / results.REPLAYS / "chances", ignore_errors=True)


def _one_percent_more(folder: Path, log: bytes, repeat: int) -> Callable[[], object]:
    """Before each timed build, 1% more of the log: the first time, a build of its first
    (100 - repeat)% (untimed) and then one percent more; the last leaves the whole log."""
    lines = log.splitlines(keepends=True)
    percents = iter(range(100 - repeat, 101))

    def cut(percent: int) -> None:
        (folder / results.GAMES).write_bytes(b"".join(lines[: len(lines) * percent // 100]))

    def step() -> None:
        percent = next(percents)
        if percent == 100 - repeat:
            cut(percent)
            build_report(folder)
            percent = next(percents)
        cut(percent)

    return step


def _cpu() -> float:
    """CPU seconds used so far by this process and its finished children (the pool)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _median(step: Callable[[], object], repeat: int,
            before: Callable[[], object] | None = None) -> tuple[float, float]:  # fmt: skip
    """Median wall-clock and CPU seconds of `repeat` runs (`before` runs untimed first)."""
    walls, cpus = [], []
    for _ in range(repeat):
        if before is not None:
            before()
        started, cpu = time.perf_counter(), _cpu()
        step()
        walls.append(time.perf_counter() - started)
        cpus.append(_cpu() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    """Play (once) and time the report of a big tournament."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--folder", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--first-repeat", type=int, default=3)
    parser.add_argument("--cases", default="floor,first,rebuild,+1%",
                        help="which to time, of floor, first, rebuild, +1%% (comma-separated)")
    args = parser.parse_args()
    folder = args.folder or Path("results") / f"bench-report-{args.games}"
    _tournament(folder, args.games)
    games = sum(1 for _ in results.iter_games(folder / results.GAMES))
    replays = sum(p.stat().st_size for p in (folder / results.REPLAYS).glob("*.json.gz"))
    print(f"{games:,} games, replays {replays / 1e6:.1f} MB gzip; cores {os.cpu_count()}, "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    log = (folder / results.GAMES).read_bytes()
    cases: list[tuple[str, str, Callable[[], object], Callable[[], object] | None, int]] = [
        ("floor", "floor (read + gunzip)", lambda: _floor(folder), None, args.repeat),
        ("first", "first build", lambda: build_report(folder), lambda: _fresh(folder),
         args.first_repeat),
        ("rebuild", "rebuild, nothing new", lambda: build_report(folder), None, args.repeat),
        ("+1%", "rebuild, 1% more games", lambda: build_report(folder),
         _one_percent_more(folder, log, args.repeat), args.repeat),
    ]  # fmt: skip
    wanted = args.cases.split(",")
    print(f"  {'':<28} {'wall':>7} {'cpu':>7}   (pool workers' cpu not counted)")
    for key, name, step, before, repeat in cases:
        if not repeat or key not in wanted:
            continue
        wall, cpu = _median(step, repeat, before)
        print(f"  {name:<28} {wall:6.2f}s {cpu:6.2f}s   load average "
              f"{os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
    size = (folder / REPORT).stat().st_size
    scripts = sum(p.stat().st_size for p in (folder / results.REPLAYS).glob("pack-*.js"))
    print(f"report.html {size / 1e6:.2f} MB; viewer data files {scripts / 1e6:.1f} MB "
          f"({scripts / max(1, games) / 1e3:.1f} KB a game)")  # fmt: skip


if __name__ == "__main__":
    main()
