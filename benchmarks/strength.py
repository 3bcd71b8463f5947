"""Benchmark: how strong the built-in bots are, and what one `statistician` decision costs.

Plays, on worker processes: 2-player `dice` between every pair of built-in bots (seats
swapped every other game); 4-player `cards` with the four built-in bots at one table (seats
rotated through all 24 orders), each bot against the field; and 2-player `dice-cards`
between `statistician` and each other bot. Prints win rates with Wilson 95% intervals, the
mean milliseconds per `statistician` decision in each rule set, and whether the strength
targets hold (statistician wins >= 80% against random in dice, and its interval against
honest and bluffer lies above 50%). Measures only; tests/test_bots.py pins behaviour.

Run `python benchmarks/strength.py [--games 2000] [--dice-cards-games 400] [--workers 2]`.
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from multiprocessing import Pool

from arena_bots.statistician import Statistician

import arena
from arena.compare.estimates import Estimate, wilson_interval
from arena.hosts.inline import InlineHost
from arena.referee import ActionEntry, Player

BOTS = ("statistician", "honest", "bluffer", "random")
STAR = "statistician"


@dataclass(frozen=True, slots=True)
class Job:
    """One game to play: its group in the report, rule set, bots by seat and seed."""

    group: str
    rules: str
    lineup: tuple[str, ...]
    seed: int


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the report needs from one game: places by seat and the statistician's clock
    (wall seconds as the referee logged them, and the CPU seconds of its own thread)."""

    job: Job
    placements: tuple[int, ...]
    faults: int
    star_seconds: float
    star_cpu: float
    star_decisions: int


class TimedStatistician(Statistician):
    """The statistician, adding up the CPU time of its decisions (other processes sharing
    the cores inflate the wall-clock time the referee logs, not this)."""

    cpu = 0.0

    def act(self, observation: arena.Observation) -> arena.Action:
        """Decide as the statistician does, on the clock."""
        started = time.thread_time()
        try:
            return super().act(observation)
        finally:
            TimedStatistician.cpu += time.thread_time() - started


def play(job: Job) -> Outcome:
    """Play one game (in a worker process)."""
    star = Player(STAR, InlineHost(TimedStatistician), "benchmark")
    lineup = [star if name == STAR else name for name in job.lineup]
    TimedStatistician.cpu = 0.0
    record = arena.play_game(job.rules, lineup, seed=job.seed)
    seats = {seat for seat, name in enumerate(job.lineup) if name == STAR}
    times = [e.seconds for e in record.log if isinstance(e, ActionEntry) and e.seat in seats]
    return Outcome(job, record.result.placements, len(record.faults), sum(times),
                   TimedStatistician.cpu, len(times))


def dice_jobs(rules: str, pairs: Iterable[tuple[str, str]], games: int, seed: int) -> list[Job]:
    """Two-player games per pair, seats swapped every other game."""
    jobs = []
    for a, b in pairs:
        for game in range(games):
            lineup = (a, b) if game % 2 == 0 else (b, a)
            jobs.append(Job(f"{rules}:{a}:{b}", rules, lineup, seed + game))
    return jobs


def cards_jobs(games: int, seed: int) -> list[Job]:
    """Four-player games with every built-in bot, cycling through all seat orders."""
    orders = list(itertools.permutations(BOTS))
    return [Job("cards", "cards", orders[g % len(orders)], seed + g) for g in range(games)]


def run(jobs: list[Job], workers: int) -> Iterator[Outcome]:
    """Play the jobs on a pool of worker processes (results in any order)."""
    with Pool(workers) as pool:
        yield from pool.imap_unordered(play, jobs, chunksize=8)


def wins_of(outcome: Outcome, bot: str) -> int:
    """1 when the bot placed first (a shared first place counts), else 0."""
    return int(any(outcome.placements[s] == 1 for s, n in enumerate(outcome.job.lineup)
                   if n == bot))


def _interval(estimate: Estimate) -> str:
    return f"{estimate.value:6.3f}  [{estimate.lower:.3f}, {estimate.upper:.3f}]"


def head_to_head(
    outcomes: list[Outcome], rules: str, games: int
) -> dict[tuple[str, str], Estimate]:
    """Print the two-player table for one rule set and return each pair's estimate."""
    print(f"\n2-player {rules}: {games} games per pairing, seats swapped every other game")
    print(f"{'bot':<13} {'vs':<13} {'wins':>5}   {'rate':>6}  95% interval")
    by_group: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        if outcome.job.rules == rules:
            by_group[outcome.job.group].append(outcome)
    found = {}
    for group in sorted(by_group, key=lambda g: [BOTS.index(n) for n in g.split(":")[1:]]):
        _, a, b = group.split(":")
        wins = sum(wins_of(o, a) for o in by_group[group])
        estimate = wilson_interval(wins, len(by_group[group]))
        found[(a, b)] = estimate
        print(f"{a:<13} {b:<13} {wins:>5}   {_interval(estimate)}")
    return found


def field(outcomes: list[Outcome], games: int) -> None:
    """Print the 4-player cards table: each bot's first places against the field."""
    print(f"\n4-player cards: {games} games, the four built-in bots at one table "
          "(all 24 seat orders); chance of first place is 0.25")
    print(f"{'bot':<13} {'firsts':>6}   {'rate':>6}  95% interval      mean place")
    tables = [o for o in outcomes if o.job.rules == "cards"]
    for bot in BOTS:
        wins = sum(wins_of(o, bot) for o in tables)
        places = [o.placements[o.job.lineup.index(bot)] for o in tables]
        estimate = wilson_interval(wins, len(tables))
        print(f"{bot:<13} {wins:>6}   {_interval(estimate)}   {sum(places) / len(places):.2f}")


def clock(outcomes: list[Outcome]) -> None:
    """Print the statistician's mean time per decision, by rule set."""
    seconds: dict[str, float] = defaultdict(float)
    cpu: dict[str, float] = defaultdict(float)
    decisions: dict[str, int] = defaultdict(int)
    for outcome in outcomes:
        seconds[outcome.job.rules] += outcome.star_seconds
        cpu[outcome.job.rules] += outcome.star_cpu
        decisions[outcome.job.rules] += outcome.star_decisions
    print("\nstatistician, mean time per decision (wall as logged by the referee; CPU):")
    for rules in ("dice", "dice-cards", "cards"):
        if decisions[rules]:
            wall = 1000 * seconds[rules] / decisions[rules]
            mine = 1000 * cpu[rules] / decisions[rules]
            print(f"  {rules:<11} {wall:6.2f} ms wall  {mine:6.2f} ms CPU"
                  f"  over {decisions[rules]} decisions")


def verdict(dice: dict[tuple[str, str], Estimate]) -> None:
    """Print whether the strength targets hold."""
    checks = [
        ("beats random in >= 80% of dice games", dice[(STAR, "random")].value >= 0.8),
        ("beats honest, interval above 50%", dice[(STAR, "honest")].lower > 0.5),
        ("beats bluffer, interval above 50%", dice[(STAR, "bluffer")].lower > 0.5),
    ]
    print("\ntargets:")
    for text, ok in checks:
        print(f"  {'met' if ok else 'MISSED':<6} statistician {text}")


def main() -> None:
    """Play everything and print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000,
                        help="games per dice pairing, and cards games (default 2000)")
    parser.add_argument("--dice-cards-games", type=int, default=400,
                        help="games per dice-cards pairing (default 400)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="first game seed (default 1)")
    args = parser.parse_args()
    pairs = list(itertools.combinations(BOTS, 2))
    jobs = [
        *dice_jobs("dice", pairs, args.games, args.seed),
        *cards_jobs(args.games, args.seed),
        *dice_jobs("dice-cards", [(STAR, b) for b in BOTS[1:]], args.dice_cards_games,
                   args.seed),
    ]
    started = time.perf_counter()
    outcomes = list(run(jobs, args.workers))
    elapsed = time.perf_counter() - started
    dice = head_to_head(outcomes, "dice", args.games)
    field(outcomes, args.games)
    if args.dice_cards_games:
        head_to_head(outcomes, "dice-cards", args.dice_cards_games)
    clock(outcomes)
    verdict(dice)
    faults = sum(o.faults for o in outcomes)
    print(f"\n{len(outcomes)} games in {elapsed:.0f} s on {args.workers} workers; "
          f"{faults} faults")


if __name__ == "__main__":
    main()
