"""Benchmark: bots kept hot (issue 34) -- bot process starts per game, and the wall time,
of a real `arena run` whose field is larger than a worker's kept processes.

Cases (every entrant a bot in its own process, replays off):
  contest   the project's own 200-entrant contest (benchmarks/contest.py's config): a
            gauntlet of 200 `random` process bots against 4 champions, 2 workers;
  commands  70 command bots (`python3 bots/examples/example_bot.py`), round robin at 2
            seats, 2 workers;
  files     200 distinct Python file bots, round robin at 2 seats (capped at `--cap`
            games: balanced tables, the default cap 20,000), 2 workers.

Starts are counted by benchmarks/start_counter.py, loaded into the run's main process and
its fork server (so into every worker), one byte per process a kept host starts. With
`--against PATH` (another checkout, e.g. the main branch) the two codes take turns round
by round, so both see the same load; medians of `--rounds`, the 1-minute load average
beside each run. Goals (issue 34): <= 0.1 starts per game for `files` and `commands`; the
contest >= 4x faster end to end. Measures only; asserts nothing.

    python benchmarks/hot_bots.py contest --rounds 3 --against /work/main
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RUN = """
import sys
import start_counter
from arena.executor import local
local.PRELOAD = (*local.PRELOAD, "start_counter")
from arena.cli.main import cli
cli.main(sys.argv[1:], prog_name="arena")
"""
FILE_BOT = '''
from arena_bots.random_bot import RandomBot


class Entrant{n}(RandomBot):
    """One of many distinct file bots."""

    name = "entrant-{n}"
'''


def config(case: str, folder: Path, cap: int) -> Path:
    """The case's tournament config, written into `folder`."""
    lines = ["name: hot", "rules: dice", "entrants:"]
    if case == "contest":
        for n in range(1, 201):
            lines += ["  - bot: random", f"    alias: p{n:03d}", "    mode: process"]
        fmt = ["format:", "  type: gauntlet", "  champions: [p001, p002, p003, p004]",
               "  games: 1"]
    elif case == "commands":
        bot = ROOT / "bots" / "examples" / "example_bot.py"
        for n in range(1, 71):
            lines += [f"  - command: [python3, '{bot}']", f"    alias: c{n:02d}"]
        fmt = ["format:", "  type: round-robin", "  seats: 2", "  games: 1"]
    else:
        for n in range(1, 201):
            path = folder / f"entrant{n:03d}.py"
            path.write_text(FILE_BOT.format(n=n))
            lines += [f"  - bot: '{path}'", f"    alias: f{n:03d}"]
        fmt = ["format:", "  type: round-robin", "  seats: 2", "  games: 1", f"  cap: {cap}"]
    lines += [*fmt, "seed: 1", "workers: 2", "replays: false"]
    path = folder / f"{case}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(code: Path, path: Path, folder: Path) -> tuple[int, int, float, float, int]:
    """One `arena run` of `code`: games, starts, wall seconds, load average, exit status."""
    starts = folder / "starts"
    starts.write_text("")
    out = folder / "out"
    env = {**os.environ, "ARENA_BENCH_STARTS": str(starts), "PYTHONSAFEPATH": "1",
           "PYTHONPATH": os.pathsep.join([str(HERE), str(code)])}  # `code`'s arena alone
    load = os.getloadavg()[0]
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-c", RUN, "run", str(path), "--out", str(out),
                           "-q", "--force"], env=env, cwd=folder, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=False)
    wall = time.monotonic() - began
    if done.returncode:
        print(f"  exit {done.returncode}: {done.stderr.strip().splitlines()[-1:]}")
    games = (out / "games.jsonl").read_bytes().count(b"\n") if (out / "games.jsonl").exists() \
        else 0
    return games, starts.stat().st_size, wall, (load + os.getloadavg()[0]) / 2, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=["contest", "commands", "files"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cap", type=int, default=20000, help="games of the `files` case")
    parser.add_argument("--against", type=Path, help="another checkout, measured in turn")
    args = parser.parse_args()
    codes = {"this": ROOT, **({"against": args.against.resolve()} if args.against else {})}
    seen: dict[str, list[tuple[int, int, float, float, int]]] = {name: [] for name in codes}
    with tempfile.TemporaryDirectory(prefix="arena-hot-") as tmp:
        path = config(args.case, Path(tmp), args.cap)
        for round_ in range(args.rounds):
            for name, code in (codes.items() if round_ % 2 == 0 else reversed(codes.items())):
                measured = run(code, path, Path(tmp))
                seen[name].append(measured)
                games, starts, wall, load, _ = measured
                print(f"{name:8} round {round_ + 1}: {games} games, {starts} starts "
                      f"({starts / max(games, 1):.3f} a game), {wall:.1f} s, load {load:.1f}",
                      flush=True)
    walls = {name: statistics.median(m[2] for m in runs) for name, runs in seen.items()}
    for name, runs in seen.items():
        games = runs[0][0]
        per_game = statistics.median(m[1] / max(m[0], 1) for m in runs)
        print(f"{name} ({codes[name]}): {games} games, median {per_game:.3f} starts a game, "
              f"median wall {walls[name]:.1f} s")
    if "against" in walls:
        print(f"speed-up: {walls['against'] / walls['this']:.2f}x (wall, medians)")


if __name__ == "__main__":
    main()
