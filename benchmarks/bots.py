"""Benchmark: milliseconds per decision of each built-in bot, against the referee path.

At each table (`dice` and `dice-cards` with 2 and 4 seats, `cards` with 3 and 4, the
fewest it allows) every seat is taken by one bot, and the same seeded games are played by
each bot in turn, new seeds every round (so the bots' caches help only as in a real run).
A bot's figure is the CPU time of its games over their decisions, so it holds the
referee's own work too; `random` at the same tables is the referee path, the baseline of
the `x ref` column, measured in the same run. With `--against REF` the bots as they were
at the git ref REF are loaded into a temporary package and play the same games in the same
rounds (their decisions are pinned equal, so the games are the very same): the `old/new`
column. Rounds alternate every bot at every table; figures are medians over the rounds.
CPU time, not wall time, so other work on a shared machine matters less. Measures only;
tests/test_bot_decisions.py pins the decisions.

Run: python benchmarks/bots.py [--games 10] [--rounds 5] [--against main] [--bots statistician]
"""

from __future__ import annotations

import argparse
import importlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from arena_bots.bluffer import Bluffer
from arena_bots.honest import Honest
from arena_bots.random_bot import RandomBot
from arena_bots.statistician import Statistician

import arena

ROOT = Path(__file__).resolve().parents[1]
TABLES = (("dice", 2), ("dice", 4), ("dice-cards", 2), ("dice-cards", 4), ("cards", 3),
          ("cards", 4))
LIMITS = arena.Limits(decision=600.0)  # a loaded machine must not turn a slow bot into a fault


def old_bots(ref: str, folder: Path) -> dict[str, type[arena.Bot]]:
    """The built-in bots as they were at a git ref, imported as the package arena_bots_old."""
    package = folder / "arena_bots_old"
    package.mkdir()
    names = subprocess.run(["git", "ls-tree", "--name-only", f"{ref}:bots"], cwd=ROOT,
                           check=True, capture_output=True, text=True).stdout.split()
    for name in names:
        if name.endswith(".py"):
            text = subprocess.run(["git", "show", f"{ref}:bots/{name}"], cwd=ROOT, check=True,
                                  capture_output=True, text=True).stdout
            (package / name).write_text(re.sub(r"\barena_bots\b", "arena_bots_old", text))
    sys.path.insert(0, str(folder))
    old = {}
    for module, cls in (("honest", "Honest"), ("bluffer", "Bluffer"),
                        ("statistician", "Statistician")):
        old[cls.lower()] = getattr(importlib.import_module(f"arena_bots_old.{module}"), cls)
    return old


def ms_per_decision(bot: type[arena.Bot], rules: str, seats: int, seeds: range) -> float:
    """CPU milliseconds per decision over these seeded games, every seat this bot."""
    decisions = 0
    started = time.process_time()
    for seed in seeds:
        record = arena.play_game(rules, [bot] * seats, seed=seed, limits=LIMITS)
        assert record.faults == (), record.faults
        decisions += record.decisions
    return (time.process_time() - started) * 1000 / decisions


def run(games: int, rounds: int, against: str | None, only: list[str] | None) -> None:
    """Measure every bot at every table, interleaved, and print the medians."""
    bots: dict[str, type[arena.Bot]] = {"random": RandomBot, "honest": Honest,
                                        "bluffer": Bluffer, "statistician": Statistician}
    bots = {name: bot for name, bot in bots.items() if name == "random" or not only
            or name in only}
    with tempfile.TemporaryDirectory() as folder:
        old = old_bots(against, Path(folder)) if against else {}
        old = {name: bot for name, bot in old.items() if name in bots}
        contenders = {**bots, **{f"{name} ({against})": bot for name, bot in old.items()}}
        times: dict[tuple[str, int, str], list[float]] = defaultdict(list)
        for number in range(rounds):
            seeds = range(number * games, (number + 1) * games)  # new games: caches as in a run
            for rules, seats in TABLES:
                for name, bot in contenders.items():
                    times[rules, seats, name].append(ms_per_decision(bot, rules, seats, seeds))
            print(f"round {number + 1} of {rounds} done", file=sys.stderr)
    print(f"ms per decision, CPU time, medians of {rounds} rounds of {games} games per table")
    header = f"{'rules':<11}{'seats':>5}  {'bot':<24}{'ms':>8}{'x ref':>8}"
    print(header + ("  old/new" if against else ""))
    for rules, seats in TABLES:
        median = {name: statistics.median(times[rules, seats, name]) for name in contenders}
        for name in bots:
            line = (f"{rules:<11}{seats:>5}  {name:<24}{median[name]:>8.3f}"
                    f"{median[name] / median['random']:>8.1f}")
            if name in old:
                line += f"{median[f'{name} ({against})'] / median[name]:>8.2f}"
            print(line)
        for name in old:
            label = f"{name} ({against})"
            print(f"{rules:<11}{seats:>5}  {label:<24}{median[label]:>8.3f}"
                  f"{median[label] / median['random']:>8.1f}")


def main() -> None:
    """Parse the command line and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per table and round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (medians over them)")
    parser.add_argument("--against", metavar="REF", help="also time the bots at this git ref")
    parser.add_argument("--bots", help="only these bots (comma-separated; random always)")
    args = parser.parse_args()
    run(args.games, args.rounds, args.against, args.bots.split(",") if args.bots else None)


if __name__ == "__main__":
    main()
