"""Benchmark: a Swiss of ceil(log2 n) + 2 rounds against a long round robin's order, on a
field of 16 built-in variants (statistician at seven thresholds, bluffer at five doubts,
two honest, two random) in 2-seat `dice`.

Plays a reference round robin (`--reference` games a seating, every pair in both seat
orders), then Swisses of 1, 2 and 4 deals a table a round under several seeds, and round
robins of 1 and 2 games a seating as the same-budget baseline. For each it prints the
games played (and their share of the reference's), Kendall's tau of its whole order
against the reference's, and whether its top 3 is the reference's, in that order.
Run `python benchmarks/swiss.py [--reference 100] [--seeds 5] [--workers 2]`. Measures
only; asserts nothing (tests/tournament/test_swiss.py pins behaviour).
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path

from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

FIELD = (
    *(f"{{bot: statistician, alias: stat-{t}, options: {{threshold: {t}}}}}"
      for t in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)),
    *(f"{{bot: bluffer, alias: bluff-{d}, options: {{doubt: {d}}}}}"
      for d in (0.02, 0.05, 0.1, 0.2, 0.4)),
    "honest", "{bot: honest, alias: honest-2}", "random", "{bot: random, alias: random-2}",
)


def play(folder: Path, name: str, fmt: str, seed: int, workers: int) -> tuple[list[str], int]:
    """Run one tournament of the field; its stages.json ranking and its game count."""
    config = folder / f"{name}.yaml"
    config.write_text(f"name: {name}\nrules: dice\nentrants: [{', '.join(FIELD)}]\n"
                      f"format: {fmt}\nseed: {seed}\nreplays: false\n"
                      f"output: {folder / name}\n")
    report = run_tournament(load_tournament(config), folder / name, workers=workers)
    ranking = json.loads((folder / name / "stages.json").read_text())["ranking"]
    return ranking, report.total


def kendall_tau(order: Sequence[str], reference: Sequence[str]) -> float:
    """Concordant minus discordant pairs over all pairs (no ties in a ranking)."""
    place = {name: i for i, name in enumerate(reference)}
    pairs = list(itertools.combinations(order, 2))
    concordant = sum(place[a] < place[b] for a, b in pairs)
    return (2 * concordant - len(pairs)) / len(pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=int, default=100, help="games a seating")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        reference, total = play(folder, "reference",
                                f"{{type: round-robin, seats: 2, games: {args.reference}}}",
                                1, args.workers)
        print(f"reference round robin: {total} games; order {', '.join(reference)}")
        runs = [(f"round robin, {g} game(s) a seating", "round-robin", f"games: {g}")
                for g in (1, 2)]
        runs += [(f"swiss, {d} deal(s) a table", "swiss", f"games: {d}") for d in (1, 2, 4)]
        for label, kind, games in runs:
            for seed in range(2, 2 + args.seeds):
                name = f"{kind}-{games.split()[1]}-{seed}"
                order, played = play(folder, name, f"{{type: {kind}, seats: 2, {games}}}",
                                     seed, args.workers)
                same = "same top 3" if order[:3] == reference[:3] else "other top 3"
                print(f"{label}, seed {seed}: {played} games ({played / total:.1%}), "
                      f"tau {kendall_tau(order, reference):.3f}, {same}")


if __name__ == "__main__":
    main()
