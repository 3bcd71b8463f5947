"""Benchmark of the check a run makes before it writes the standings (tournament/run/audit.py):
every line of games.jsonl against what the run played and against its replay.

Run: python benchmarks/audit.py [--games 1000] [--folder results/bench-audit] [--repeat 3]

The first run plays the tournament (dice, 5 bots, 2 seats a table) into the folder and keeps
it; later runs reuse it. Then it times, each `--repeat` times (median shown), the check of
the log alone (what a run with `replays: false` pays), the whole check on one process and
on one per core, and the run itself for comparison. Wall-clock and CPU seconds are both
shown, with the load average: on a busy machine the wall clock says little. A benchmark,
never a timed test: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from arena.tournament.load import load_tournament
from arena.tournament.run import results
from arena.tournament.run.audit import audit_log
from arena.tournament.run.runner import run_tournament

CONFIG = """\
name: bench-audit
rules: dice
entrants: [random, honest, statistician, bluffer, {{bot: random, alias: random-2}}]
format: {{type: round-robin, seats: 2, games: {repeats}}}
seed: 1
"""


def _timed(action: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds of `repeat` runs (CPU of this process only)."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--folder", type=Path, default=Path("results/bench-audit"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder: Path = args.folder
    config = folder.parent / "bench-audit.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(CONFIG.format(repeats=max(1, args.games // 20)))
    cfg = load_tournament(config)
    if not (folder / results.GAMES).exists():
        played = _timed(lambda: run_tournament(cfg, folder, workers=None), 1)
        print(f"run       {played[0]:6.2f} s wall (the tournament itself, once)")
    games = {g["id"]: tuple(g["placements"]) for g in results.iter_games(folder / results.GAMES)}
    print(f"{len(games)} games in {folder}; load average {os.getloadavg()[0]:.2f}")
    cases: list[tuple[str, Callable[[], object]]] = [
        ("log only", lambda: audit_log(folder, games, 1, replays=False)),
        ("check/1", lambda: audit_log(folder, games, 1)),
        (f"check/{os.cpu_count()}", lambda: audit_log(folder, games, None)),
    ]
    for name, action in cases:
        wall, cpu = _timed(action, args.repeat)
        print(f"{name:9} {wall:6.2f} s wall  {cpu:6.2f} s CPU here  "
              f"{1000 * wall / len(games):6.2f} ms a game")


if __name__ == "__main__":
    main()
