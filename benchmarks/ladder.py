"""What a ladder's matchmaking saves: games to a confident top 3, against a round robin.

A field of 16 built-in variants (the four bots, with different options; chosen so that the
top three are separable at all: the strongest statisticians, then a gap) plays, for each of
several seeds:

* a long round robin (every pair at both seats, `--reps` times): its Elo order is the
  reference order;
* the same round robin cut after each whole repetition: the first cut at which its top 3
  are separated at 95% (arena.ratings.confidence, the ladder's own test), and its order;
* a ladder from scratch, `arena run ladder.yaml --until-confident 3`: the games it played
  when it stopped, and its order;
* a Swiss of ceil(log2 16) + 2 = 6 rounds: its order.

It prints, as Markdown for docs/ladder.md: for each seed the game counts, whether the top 3
equals the reference's, and Kendall's tau of the whole order against the reference; then
the medians, and the ratio of the ladder's games to the cut round robin's. The goal: the
ladder's top 3 is the reference's in at most a third of the games, tau >= 0.9.

Run: `python benchmarks/ladder.py [--seeds 5] [--reps 40] [--workers 2] [--min-games 20]
[--keep DIR]`.
About 8 minutes on 2 cores for 5 seeds; not part of the test suite. It plays games with
`arena run` and reads the results.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.ratings.confidence import gaps
from arena.ratings.summary import Summary
from arena.tournament.run import results as folder_files

STATISTICIANS = (0.5, 0.02, 0.005, 0.0, 0.99, 0.999)
BLUFFERS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1.0)
TOP = 3


def field() -> list[str]:
    """The 16 entrants as YAML lines."""
    lines = []
    for threshold in STATISTICIANS:
        lines += ["  - bot: statistician", f"    alias: statistician-{threshold}",
                  f"    options: {{threshold: {threshold}}}"]
    for doubt in BLUFFERS:
        lines += ["  - bot: bluffer", f"    alias: bluffer-{doubt}",
                  f"    options: {{doubt: {doubt}}}"]
    return [*lines, "  - honest", "  - random"]


def config(folder: Path, name: str, seed: int, fmt: Sequence[str]) -> Path:
    """A config file of the field in this format."""
    lines = [f"name: {name}", "rules: dice", "entrants:", *field(), "format:",
             *(f"  {line}" for line in fmt), f"seed: {seed}", "replays: false"]
    path = folder / f"{name}.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def arena(*args: object) -> int:
    """`arena ARGS`, quiet, and its exit code; stop the benchmark if it fails."""
    run = subprocess.run([sys.executable, "-m", "arena", *map(str, args), "-q"],
                         capture_output=True, text=True, check=False)
    if run.returncode not in (0, 1):  # 1: the ladder stopped at its budget, unresolved
        sys.exit(f"arena {' '.join(map(str, args))} failed:\n{run.stderr}")
    return run.returncode


def games_of(folder: Path) -> list[dict[str, object]]:
    """games.jsonl, in order."""
    return list(folder_files.iter_games(folder / folder_files.GAMES))


def order_of(games: Sequence[dict[str, object]], names: Sequence[str]) -> list[str]:
    """The players by batch-fit Elo, best first."""
    summary = Summary(names, rate=False)
    for game in sorted(games, key=lambda g: str(g["id"])):
        summary.add(game)
    rows = [row for row in summary.elo() if row.rating is not None]
    return [row.entrant for row in sorted(rows, key=lambda r: (-(r.rating or 0.0), r.entrant))]


def separated(games: Sequence[dict[str, object]], names: Sequence[str]) -> bool:
    """Whether the top 3 of these games are separated at 95% (and from the 4th)."""
    summary = Summary(names, rate=False)
    for game in games:
        summary.add(game)
    order = order_of(games, names)
    return all(gap.separated for gap in gaps(summary, order[: TOP + 1]))


def kendall_tau(order: Sequence[str], reference: Sequence[str]) -> float:
    """Kendall's tau-a of two orders of the same players."""
    place = {name: i for i, name in enumerate(reference)}
    pairs = list(itertools.combinations(order, 2))
    concordant = sum(1 if place[a] < place[b] else -1 for a, b in pairs)
    return concordant / len(pairs)


@dataclass(frozen=True, slots=True)
class Seeded:
    """One seed's figures."""

    seed: int
    round_robin: int
    """Games of the long round robin."""
    cut: int | None
    """Games of the round robin cut at its first confident repetition (None: never)."""
    cut_top: bool
    cut_tau: float
    ladder: int
    ladder_separated: bool
    """Whether the ladder stopped because its top 3 were separated (not at its budget)."""
    ladder_top: bool
    ladder_tau: float
    swiss: int
    swiss_tau: float


def one_seed(folder: Path, seed: int, reps: int, workers: int, min_games: int = 20) -> Seeded:
    """Round robin, its confident cut, the ladder and the Swiss for one seed."""
    rr = config(folder, f"rr-{seed}", seed, ["type: round-robin", "seats: 2", f"games: {reps}"])
    arena("run", rr, "--out", folder / f"rr-{seed}", "--workers", workers)
    played = games_of(folder / f"rr-{seed}")
    names = sorted({str(name) for game in played for name in entrants(game)})
    reference = order_of(played, names)
    per_rep = len(played) // reps
    cut = next((r for r in range(1, reps + 1) if separated(played[: r * per_rep], names)), None)
    cut_games = played[: (cut or reps) * per_rep]
    ladder = config(folder, f"ladder-{seed}", seed,
                    ["type: ladder", "seats: 2", f"min_games: {min_games}", "batch: 8"])
    code = arena("run", ladder, "--out", folder / f"ladder-{seed}", "--until-confident", TOP,
                 "--games", len(played), "--workers", workers)
    summary = json.loads((folder / f"ladder-{seed}" / "ladder.json").read_text())
    ladder_order = [row["entrant"] for row in summary["ranking"]]
    rounds = math.ceil(math.log2(len(names))) + 2
    swiss = config(folder, f"swiss-{seed}", seed,
                   ["type: swiss", "seats: 2", f"rounds: {rounds}", "games: 1"])
    arena("run", swiss, "--out", folder / f"swiss-{seed}", "--workers", workers)
    stages = json.loads((folder / f"swiss-{seed}" / "stages.json").read_text())
    return Seeded(
        seed, len(played), len(cut_games) if cut else None,
        order_of(cut_games, names)[:TOP] == reference[:TOP],
        kendall_tau(order_of(cut_games, names), reference), int(summary["games"]),
        code == 0,
        ladder_order[:TOP] == reference[:TOP], kendall_tau(ladder_order, reference),
        len(games_of(folder / f"swiss-{seed}")), kendall_tau(stages["ranking"], reference))


def entrants(game: dict[str, object]) -> list[str]:
    """A game's players, seat 0 first."""
    seated = game["entrants"]
    assert isinstance(seated, list)
    return [str(name) for name in seated]


def table(rows: Sequence[Seeded]) -> str:
    """The figures as Markdown, with the medians and the ratio last."""
    lines = [("| seed | round robin | RR to a confident top 3 (top 3 right, tau) "
             "| ladder --until-confident 3 (top 3 right, tau) | Swiss, 6 rounds (tau) |"),
             "| ---: | ---: | ---: | ---: | ---: |"]
    lines += [f"| {r.seed} | {r.round_robin} | {r.cut} ({r.cut_top}, {r.cut_tau:.2f}) "
              f"| {r.ladder} "
              f"({r.ladder_top}, {r.ladder_tau:.2f}) | {r.swiss} ({r.swiss_tau:.2f}) |"
              for r in rows]
    cut = statistics.median(r.cut or r.round_robin for r in rows)
    ladder = statistics.median(r.ladder for r in rows)
    lines += ["", (f"Median games to a confident top 3: round robin {cut:.0f}, ladder "
              f"{ladder:.0f} (ratio {ladder / cut:.2f}). Median tau against the long round "
              f"robin: ladder {statistics.median(r.ladder_tau for r in rows):.2f}, cut round "
              f"robin {statistics.median(r.cut_tau for r in rows):.2f}, Swiss "
              f"{statistics.median(r.swiss_tau for r in rows):.2f}. The ladder's top 3 was the "
              f"reference's in {sum(r.ladder_top for r in rows)} of {len(rows)} seeds.")]
    return "\n".join(lines)


def main() -> None:
    """Play every seed and print the table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--reps", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--min-games", type=int, default=20,
                        help="the ladder's min_games (games before a player is ranked)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep every results folder here (benchmarks/matchmaking_sim.py "
                             "reads the long round robins, rr-<seed>)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for seed in range(1, args.seeds + 1):
            rows.append(one_seed(folder, seed, args.reps, args.workers, args.min_games))
            print(rows[-1], file=sys.stderr)
    print(table(rows))


if __name__ == "__main__":
    main()
