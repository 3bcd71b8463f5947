"""What a ladder season costs as it grows: the CPU of 160 more games at 500 to 100,000 games
played, and the Elo fit at 100 to 1,000 players (issue 34, item 3).

A season of 20 built-in variants (dice, one point a game, inline bots, no replays) is
started with a real `run_ladder` (its versions logged), then grown to each size with
synthesised games (random pairings of its players, placements drawn from their strengths)
and a batch line every 16 games, as the runner writes them (the games are synthetic: playing
100,000 takes hours; the lines have the runner's keys, so the report reads them), then one run
of no games, as the turn before would end (the season's kept totals, ladder-state.json, are
written). At each size it times, on a copy of that folder each time (the games play inline
on one worker):

* a turn as a fresh command: `arena run season.yaml --games 160 -q` in a new process (its
  CPU, children's rusage): the start (the kept totals and the logs' marks read), ten batches
  of 16, the end (ladder.json, standings, ratings, crosstable, the kept totals) and the
  report `arena run` builds after it (arena/report/, issue 34's item 5);
* the same turn without the report: `run_ladder(..., 160)` in a new process, as the site's
  season process turns;
* the marginal CPU of 160 more games in one run: a run of 320 less a run of 160, in this
  process (the start and the end cancel): what a batch costs as the season runs.

The goal (issue 34, item 3): a turn flat, at most 1.5x from 500 to 100,000 games played; the
ratio of the 100,000 figure to the 500 one is printed under each column.

Then the fit: arena.ratings.warm's from cold and from the previous ratings, and the dense
batch fit arena.ratings.elo (`elo_fit`, the one every other format's ratings.json uses) at
100 and 200 players, on 20,000 random games.

Run: `python benchmarks/ladder_season.py [--sizes 500,4000,20000,100000] [--repeats 3]
[--players 100,200,1000]`; the figures before a change: the same with `--players ''` and
PYTHONPATH pointing at a checkout of the commit before it (the new processes inherit it).
The machine's load is printed beside each figure. Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from arena.tournament.formats.ladder.season import run_ladder
from arena.tournament.load import load_tournament

VARIANTS = 20
CONFIG = """\
name: bench-season
rules: dice
options: {max_points: 1}
entrants:
ENTRANTS
format: {type: ladder, seats: 2, min_games: 4}
seed: 7
replays: false
"""
BATCH = 16


def load() -> float:
    """The machine's load average over the last minute."""
    return os.getloadavg()[0]


def config(folder: Path) -> Path:
    """The season's config: honest, random, and bluffers of several doubts."""
    lines = ["  - honest", "  - random"]
    for n in range(VARIANTS - 2):
        lines += ["  - bot: bluffer", f"    alias: bluffer-{n}",
                  f"    options: {{doubt: {n / (VARIANTS - 2):.3f}}}"]
    path = folder / "season.yaml"
    path.write_text(CONFIG.replace("ENTRANTS", "\n".join(lines)), encoding="utf-8")
    return path


def grow(folder: Path, games: int, seed: int = 1) -> None:
    """games.jsonl and ladder-batches.jsonl grown to `games` games of the season's players."""
    log = [json.loads(line) for line in (folder / "ladder-log.jsonl").read_text().splitlines()]
    players = sorted({e["player"] for e in log if e["status"] == "active"})
    rng = random.Random(seed)
    strength = {p: rng.gauss(0, 1) for p in players}
    done = (folder / "games.jsonl").read_bytes().count(b"\n")
    with open(folder / "games.jsonl", "a", encoding="utf-8") as out, \
            open(folder / "ladder-batches.jsonl", "a", encoding="utf-8") as batches:
        for n in range(done, games):
            if n % BATCH == 0:
                batches.write(json.dumps({"batch": n // BATCH + 1, "after": n, "first": 1,
                                          "games": BATCH, "tables": []}) + "\n")
            a, b = rng.sample(players, 2)
            won = strength[a] + rng.gauss(0, 1) > strength[b] + rng.gauss(0, 1)
            out.write(json.dumps({"id": f"ld-{n + 1:08d}", "stage": "ladder",
                                  "table": n // 2 + 1, "seed": rng.getrandbits(63),
                                  "entrants": [a, b], "placements": [1, 2] if won else [2, 1],
                                  "scores": [0, 1] if won else [1, 0], "faults": [],
                                  "decisions": rng.randint(2, 12), "replay": None},
                                 separators=(",", ":")) + "\n")


def cpu(action: Callable[[], object]) -> float:
    """CPU seconds of this process for one call."""
    start = time.process_time()
    action()
    return time.process_time() - start


def season_at(root: Path, size: int) -> tuple[Path, Path]:
    """A season folder of `size` games (and its config)."""
    cfg_path = config(root)
    folder = root / f"at-{size}"
    run_ladder(load_tournament(cfg_path), folder, 32)
    grow(folder, size)
    run_ladder(load_tournament(cfg_path), folder, 0)  # the turn before's end
    return cfg_path, folder


def child_cpu(args: list[str]) -> float:
    """CPU seconds of one new process (user and system), run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def turn_cpu(cfg_path: Path, folder: Path, scratch: Path, command: bool) -> float:
    """CPU of a turn of 160 games in a new process, on a copy of the folder: `arena run`
    (the report built after it), else run_ladder alone."""
    copy = scratch / "turn"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(folder, copy)
    if command:
        return child_cpu([sys.executable, "-m", "arena", "run", str(cfg_path), "--out",
                          str(copy), "--games", "160", "-q"])
    code = ("from arena.tournament.formats.ladder.season import run_ladder\n"
            "from arena.tournament.load import load_tournament\n"
            f"run_ladder(load_tournament({str(cfg_path)!r}), {str(copy)!r}, 160)")
    return child_cpu([sys.executable, "-c", code])


def run_cpu(cfg_path: Path, folder: Path, games: int, scratch: Path) -> float:
    """CPU of `run_ladder(games)` on a copy of the folder."""
    copy = scratch / f"copy-{games}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(folder, copy)
    cfg = load_tournament(cfg_path)
    return cpu(lambda: run_ladder(cfg, copy, games))


def seasons(sizes: list[int], repeats: int) -> None:
    print("| games played | turn of 160 as `arena run`, CPU s | the turn without the report "
          "(run_ladder, new process) | 160 more in a run, CPU s | load |")
    print("|---:|---:|---:|---:|---:|")
    rows: dict[int, list[float]] = {}
    for size in sizes:
        with tempfile.TemporaryDirectory() as where:
            root = Path(where)
            cfg_path, folder = season_at(root, size)
            command, alone, marginal, loads = [], [], [], []
            for _ in range(repeats):
                loads.append(load())
                command.append(turn_cpu(cfg_path, folder, root, True))
                alone.append(turn_cpu(cfg_path, folder, root, False))
                once = run_cpu(cfg_path, folder, 160, root)
                marginal.append(run_cpu(cfg_path, folder, 320, root) - once)
            rows[size] = [statistics.median(f) for f in (command, alone, marginal)]
            print(f"| {size:,} | " + " | ".join(f"{v:.2f}" for v in rows[size])
                  + f" | {statistics.median(loads):.1f} |", flush=True)
    if len(rows) > 1:
        first, last = rows[min(rows)], rows[max(rows)]
        print(f"| ratio {max(rows):,}/{min(rows):,} | " + " | ".join(
            f"{b / a:.2f}x" for a, b in zip(first, last, strict=True)) + " | |")


def fits(players: list[int], games: int = 20_000) -> None:
    """The fits' CPU (imported here: the seasons' part also runs on main's code, `before`)."""
    from arena.ratings.elo import elo_fit
    from arena.ratings.summary import Summary
    from arena.ratings.warm import warm_fit

    print("\n| players | warm fit, cold start, CPU s | from the last ratings | "
          "batch fit (elo_fit) | load |")
    print("|---:|---:|---:|---:|---:|")
    for size in players:
        rng = random.Random(size)
        names = [f"p{n:04d}" for n in range(size)]
        strength = [rng.gauss(0, 1) for _ in names]
        summary = Summary(names, rate=False)
        played = dict.fromkeys(names, 0)
        for n in range(games):
            a, b = rng.sample(range(size), 2)
            won = strength[a] + rng.gauss(0, 1) > strength[b] + rng.gauss(0, 1)
            summary.add({"id": f"ld-{n:08d}", "entrants": [names[a], names[b]],
                         "placements": [1, 2] if won else [2, 1], "faults": []})
            played[names[a]] += 1
            played[names[b]] += 1
        pairs, shown = summary._pairs, load()
        fit = warm_fit(pairs, played, names)
        cold = cpu(partial(warm_fit, pairs, played, names))
        warm = cpu(partial(warm_fit, pairs, played, names, fit.strengths))
        dense = (f"{cpu(partial(elo_fit, pairs, played, names, 1.0)):.2f}" if size <= 200
                 else "not run (n³ Gauss-Jordan)")
        print(f"| {size:,} | {cold:.2f} | {warm:.2f} | {dense} | {shown:.1f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,4000,20000,100000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--players", default="100,200,1000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if sizes:
        seasons(sizes, args.repeats)
    players = [int(s) for s in args.players.split(",") if s]
    if players:
        fits(players)


if __name__ == "__main__":
    main()
