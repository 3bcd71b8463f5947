"""How much duplicate play saves: `arena compare` with shared seeds against independent ones.

For each rule set, two variants of one simple bot (`Doubter`, below, with two values of its
`doubt` option) are compared twice: with duplicate play (every game of a group on the group's
seed) and unpaired (every game on its own seed), with the same test. It prints, as a
Markdown table for docs/compare.md:

* the variance of the per-group score difference d over a fixed number of groups, both
  ways, and their ratio (the factor by which pairing cuts the noise);
* the median number of games the sequential test needs to reach a verdict over several
  repetitions (seeds), both ways, and their ratio.

Run: `python benchmarks/variance.py [--reps 10] [--groups 1000] [--workers N]
[--rules dice,dice-cards]`. It takes
minutes, not seconds; it is not part of the test suite. It only plays games and prints.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from multiprocessing import Pool
from pathlib import Path

import arena
from arena import hands
from arena.compare.groups import Entrant, Setup
from arena.compare.run import group_results, run_compare
from arena.compare.samples import Summary
from arena.compare.verdict import DEFAULT_ELO1, Bounds
from arena.rules.actions import Accept, Bid, Challenge, Look, Pass, Reroll


class Doubter(arena.Bot):
    """Claims what it holds, rerolls its singles, challenges claims above `doubt`.

    `doubt` is a height in the claim space (0 the lowest claim, 1 the highest): a claim to
    beat at or above it is challenged (rejected in `cards`). In `cards` it passes the central
    hand on without swapping, claiming its value or the lowest legal claim.
    """

    name = "doubter"
    options = {"doubt": 0.3}  # noqa: RUF012 - the Bot API declares options as a class mapping

    def act(self, observation: arena.Observation) -> arena.Action:
        """Challenge high claims; otherwise tell the truth where it can."""
        legal, decision = observation.legal, observation.decision
        if decision in ("respond", "accept"):
            return self._respond(observation)
        if decision == "reroll":
            keys = [token[0] for token in observation.hand]  # a die, or a card's rank
            counts = Counter(keys)
            return Reroll(tuple(i for i, key in enumerate(keys) if counts[key] < 2))
        shown = observation.central if decision == "turn" else observation.hand
        claim = self._honest_claim(shown, legal)
        return Pass(claim) if decision == "turn" else Bid(claim)

    def _respond(self, observation: arena.Observation) -> arena.Action:
        legal = observation.legal
        height = legal.space.index[observation.claim] / len(legal.space)
        if height >= self.settings["doubt"] or not legal.can_claim():
            return Challenge()
        return Look() if observation.decision == "respond" else Accept()

    def _honest_claim(self, shown: Sequence[str], legal: arena.Legal) -> arena.Claim:
        straight_over_full = bool(self.context.options.get("straight_over_full", False))
        held = hands.value(" ".join(shown), straight_over_full)
        return held if legal.space.index[held] >= legal.min_index else legal.min_claim


HERE = Path(__file__).resolve()


def doubter(doubt: float) -> Entrant:
    """The Doubter with one `doubt`, as a file reference with a bot option."""
    return Entrant.parse(f"{HERE}:Doubter?doubt={doubt}")


CASES = (  # the stronger variant (by a measured small margin) is the candidate
    Setup(doubter(0.25), doubter(0.28), "dice"),
    Setup(doubter(0.40), doubter(0.43), "dice-cards"),
    Setup(doubter(0.30), doubter(0.33), "cards", 3, (Entrant("random"),) * 2),
)


def variance(setup: Setup, groups: int) -> tuple[float, float]:
    """Mean and variance of the per-group difference d over `groups` groups."""
    summary = Summary()
    for result in group_results(setup, groups):
        summary = summary.add(result.diff)
    return summary.mean, summary.variance


def games_to_verdict(setup: Setup, bounds: Bounds) -> tuple[int, str]:
    """Games the comparison played, and its verdict."""
    state = run_compare(setup, bounds)
    return state.tally.games, state.verdict


def _job(job: tuple) -> tuple:
    kind, case_index, duplicate, arg = job
    setup = replace(CASES[case_index], duplicate=duplicate)
    if kind == "variance":
        return job, variance(setup, arg)
    seed, bounds = arg
    return job, games_to_verdict(replace(setup, seed=seed), bounds)


def main() -> None:
    """Run every case both ways and print the Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10, help="sequential tests per way")
    parser.add_argument("--groups", type=int, default=1000, help="groups for the variance")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--elo1", type=float, default=DEFAULT_ELO1)
    parser.add_argument("--rules", default=",".join(s.rules for s in CASES),
                        help="comma-separated rule sets to measure (default: all three)")
    args = parser.parse_args()
    bounds = Bounds(0.0, args.elo1)
    args.cases = [c for c, s in enumerate(CASES) if s.rules in args.rules.split(",")]
    jobs = [("variance", c, dup, args.groups) for c in args.cases for dup in (True, False)]
    jobs += [("sprt", c, dup, (seed, bounds)) for c in args.cases for dup in (True, False)
             for seed in range(1, args.reps + 1)]
    started = time.perf_counter()
    with Pool(args.workers) as pool:
        results = dict(pool.imap_unordered(_job, jobs))
    print(table(results, args, bounds))
    print(f"\n({time.perf_counter() - started:.0f} s on {args.workers} workers)")


def table(results: dict, args: argparse.Namespace, bounds: Bounds) -> str:
    """The figures as a Markdown table, one row per rule set."""
    columns = ("rules", "seats", "candidate vs baseline (doubt)", "mean d", "var d, duplicate",
               "var d, unpaired", "variance ratio", "median games, duplicate",
               "median games, unpaired", "games ratio", "verdicts, duplicate",
               "verdicts, unpaired")
    rows = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    for c in args.cases:
        setup = CASES[c]
        mean, _ = results[("variance", c, True, args.groups)]
        var = {dup: results[("variance", c, dup, args.groups)][1] for dup in (True, False)}
        runs = {dup: [results[("sprt", c, dup, (s, bounds))] for s in range(1, args.reps + 1)]
                for dup in (True, False)}
        median = {dup: statistics.median(g for g, _ in runs[dup]) for dup in (True, False)}
        names = " vs ".join(str(dict(e.options)["doubt"]) for e in (setup.candidate,
                                                                      setup.baseline))
        rows.append(
            f"| {setup.rules} | {setup.seats} | {names} | {mean:+.3f} | {var[True]:.3f}"
            f" | {var[False]:.3f}"
            f" | {var[False] / var[True]:.1f} | {median[True]:.0f} | {median[False]:.0f}"
            f" | {median[False] / median[True]:.1f} | {_verdicts(runs[True])}"
            f" | {_verdicts(runs[False])} |"
        )
    return "\n".join(rows)


def _verdicts(runs: list[tuple[int, str]]) -> str:
    counts = Counter(verdict for _, verdict in runs)
    return ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()))


if __name__ == "__main__":
    main()
