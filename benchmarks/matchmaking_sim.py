"""Matchmaking's weights, tried fast: simulated ladders on a round robin's measured pairs.

A ladder's real games take minutes (benchmarks/ladder.py); this plays its matchmaking
(arena.tournament.formats.ladder.matchmaking, unchanged) and its stop rule (the top 3
separated at 95%, nobody provisional) against a model instead: each game's winner is drawn
from how often that seating won in a long round robin's games. The model's own order is that round
robin's batch-fit order, so Kendall's tau against it says how well the ladder's games
recover it. This is how the weights in docs/matchmaking.md were chosen: it prints, for
each round robin folder, the median games to stop, the mean tau and how often the top 3
was right, over `--runs` simulated ladders.

Run: `python benchmarks/matchmaking_sim.py RESULTS... [--runs 20]`, where each RESULTS is
the folder of a 2-seat round robin with many games per pair: the `rr-<seed>` folders of
`python benchmarks/ladder.py --keep DIR`, its long round robins. About 20 s a folder; not
part of the test suite.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path

from ladder import TOP, kendall_tau, order_of  # this folder's benchmark, beside this file

from arena.ratings.confidence import gaps
from arena.ratings.summary import Summary
from arena.tournament.formats.ladder import matchmaking
from arena.tournament.run import results as folder_files

Seating = tuple[str, str]


def model(folder: Path) -> tuple[dict[Seating, float], list[str], list[str]]:
    """How often each seating's seat 0 won, the players, and the round robin's order."""
    games = list(folder_files.iter_games(folder / folder_files.GAMES))
    tally: dict[Seating, list[int]] = {}
    for game in games:
        a, b = game["entrants"]
        won = tally.setdefault((a, b), [0, 0])
        won[0] += game["placements"][0] == 1
        won[1] += 1
    names = sorted({name for game in games for name in game["entrants"]})
    return {k: w / n for k, (w, n) in tally.items()}, names, order_of(games, names)


def separated(summary: Summary, min_games: int) -> bool:
    """The ladder's stop rule: nobody provisional and the top 3 apart from each other and
    from the 4th."""
    rows = summary.elo()
    if any(row.games < min_games for row in rows):
        return False
    order = [r.entrant for r in sorted(rows, key=lambda r: (-(r.rating or 0.0), r.entrant))]
    return all(gap.separated for gap in gaps(summary, order[: TOP + 1]))


def ladder(won: Mapping[Seating, float], names: Sequence[str], seed: int,
           settings: matchmaking.Settings, budget: int) -> tuple[int, list[str]]:
    """One simulated ladder: its games when it stopped, and its order."""
    rng = random.Random(seed)
    summary, batch = Summary(names, rate=False), 0
    games: list[dict[str, object]] = []
    last: dict[str, int] = {}
    while len(games) < budget and not separated(summary, settings.min_games):
        batch += 1
        field = matchmaking.field_of(summary, names, last, batch)
        for table in matchmaking.next_tables(field, settings, seed):
            for seated in (table, table[::-1]):
                first = rng.random() < won[(seated[0], seated[1])]
                games.append({"id": f"ld-{len(games) + 1:08d}", "stage": "ladder",
                              "table": batch, "seed": 0, "entrants": list(seated),
                              "placements": [1, 2] if first else [2, 1], "scores": [0, 0],
                              "faults": [], "decisions": 1, "replay": None})
                summary.add(games[-1])
            last.update(dict.fromkeys(table, batch))
    return len(games), order_of(games, names)


def main() -> None:
    """Simulate `--runs` ladders on each folder's model and print the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--min-games", type=int, default=20)
    args = parser.parse_args()
    settings = matchmaking.Settings(2, 8, args.min_games, 4)
    for number, folder in enumerate(args.folders, 1):
        won, names, reference = model(folder)
        runs = [ladder(won, names, 1000 * number + run, settings, 9600)
                for run in range(args.runs)]
        taus = [kendall_tau(order, reference) for _, order in runs]
        right = sum(order[:TOP] == reference[:TOP] for _, order in runs)
        print(f"{folder}: median games {statistics.median(g for g, _ in runs):.0f}, "
              f"mean tau {statistics.mean(taus):.3f}, top 3 right {right}/{args.runs}")


if __name__ == "__main__":
    main()
