"""Benchmark: how strong the built-in bots are, what a decision of `boss` and `statistician`
costs, and whether an exploiter can read `boss`'s bluffs.

Plays, on worker processes: 2-player `dice` and `dice-cards` between every pair of built-in
bots (seats swapped every other game); 3-player `cards` at every table of three of them
(seats rotated through all 6 orders); and matches of `benchmarks/exploiter.py` (a bot that
tallies an opponent's lies over a match) against `boss` and, for comparison, `statistician`.
Prints win rates with Wilson 95% intervals, each bot's Elo per rule set against the field
(a Bradley-Terry fit over the pairwise placements, `random` at 0), the median and 99th
percentile CPU milliseconds per decision of `boss` and `statistician`, and whether the
targets hold. `--write` writes the Elo into bots/grades.json (read by `arena bots`) and the
table in docs/writing-a-bot.md. Measures only; tests/test_bots.py pins behaviour.

Run `python benchmarks/strength.py [--games 1000] [--dice-cards-games 200]
[--cards-games 1200] [--matches 4] [--match-games 100] [--workers 2] [--write]`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from arena_bots.boss import Boss
from arena_bots.statistician import Statistician

import arena
from arena.compare.estimates import Estimate, wilson_interval
from arena.hosts.inline import InlineHost
from arena.ratings.elo import elo_fit
from arena.referee import Player

sys.path.insert(0, str(Path(__file__).parent))
from exploiter import Exploiter

BOTS = ("boss", "statistician", "honest", "bluffer", "random")
GRADED = {"pass": "honest", "merit": "statistician", "distinction": "boss"}
RULES = ("dice", "dice-cards", "cards")
ROOT = Path(__file__).resolve().parent.parent
GRADES = ROOT / "bots" / "grades.json"
DOCS = ROOT / "docs" / "writing-a-bot.md"
BEGIN, END = "<!-- grades: benchmarks/strength.py --write -->", "<!-- /grades -->"
CLOCK: dict[str, list[float]] = defaultdict(list)
"""CPU seconds of each decision of the timed bots in the game being played (one process)."""


def timed(cls: type[arena.Bot]) -> type[arena.Bot]:
    """The bot class, adding each decision's CPU time to CLOCK (other processes sharing
    the cores inflate the wall-clock time the referee logs, not this)."""

    class Timed(cls):  # type: ignore[misc, valid-type]
        def act(self, observation: arena.Observation) -> arena.Action:
            started = time.thread_time()
            try:
                return super().act(observation)
            finally:
                CLOCK[cls.name].append(time.thread_time() - started)

    return Timed


HOSTED = {"boss": timed(Boss), "statistician": timed(Statistician), "exploiter": Exploiter}


@dataclass(frozen=True, slots=True)
class Job:
    """Games to play: their group in the report, rule set, bots by seat (swapped every other
    game of a two-seat match), first seed and how many games (a match keeps the exploiter's
    tally)."""

    group: str
    rules: str
    lineup: tuple[str, ...]
    seed: int
    games: int = 1


@dataclass(frozen=True, slots=True)
class Outcome:
    """One game: its group and rule set, the bots by seat, their places and faults, and the
    CPU seconds of each timed bot's decisions."""

    group: str
    rules: str
    lineup: tuple[str, ...]
    placements: tuple[int, ...]
    faults: int
    clock: dict[str, list[float]]


def play(job: Job) -> list[Outcome]:
    """Play one job's games (in a worker process)."""
    Exploiter.new_match()
    outcomes = []
    for game in range(job.games):
        lineup = job.lineup if game % 2 == 0 else job.lineup[::-1]
        seats = [Player(n, InlineHost(HOSTED[n]), "benchmark") if n in HOSTED else n
                 for n in lineup]
        CLOCK.clear()
        record = arena.play_game(job.rules, seats, seed=job.seed + game)
        outcomes.append(Outcome(job.group, job.rules, lineup, record.result.placements,
                                len(record.faults), dict(CLOCK)))
    return outcomes


def pair_jobs(rules: str, games: int, seed: int) -> list[Job]:
    """Two-player games between every pair of built-in bots, seats swapped every other game."""
    return [Job(f"{rules}:{a}:{b}", rules, (a, b) if g % 2 == 0 else (b, a), seed + g)
            for a, b in itertools.combinations(BOTS, 2) for g in range(games)]


def cards_jobs(games: int, seed: int) -> list[Job]:
    """Three-player games at every table of three built-in bots, in all 6 seat orders."""
    orders = [order for trio in itertools.combinations(BOTS, 3)
              for order in itertools.permutations(trio)]
    return [Job("cards", "cards", orders[g % len(orders)], seed + g) for g in range(games)]


def exploit_jobs(matches: int, games: int, seed: int) -> list[Job]:
    """Matches of the exploiter against boss and against the statistician."""
    return [Job(f"exploit-{rules}:exploiter:{victim}", rules, ("exploiter", victim),
                seed + 100_000 * m, games)
            for rules in ("dice", "dice-cards") for victim in ("boss", "statistician")
            for m in range(matches)]


def run(jobs: list[Job], workers: int) -> Iterator[Outcome]:
    """Play the jobs on a pool of worker processes (results in any order)."""
    with Pool(workers) as pool:
        for outcomes in pool.imap_unordered(play, jobs, chunksize=4):
            yield from outcomes


def first(outcome: Outcome, bot: str) -> bool:
    """Whether the bot placed first (a shared first place counts)."""
    return any(outcome.placements[s] == 1 for s, n in enumerate(outcome.lineup) if n == bot)


def above(outcome: Outcome, a: str, b: str) -> float:
    """1 if a placed above b, 1/2 if level, 0 if below."""
    pa, pb = (outcome.placements[outcome.lineup.index(n)] for n in (a, b))
    return 1.0 if pa < pb else 0.5 if pa == pb else 0.0


def _interval(estimate: Estimate) -> str:
    return f"{estimate.value:6.3f}  [{estimate.lower:.3f}, {estimate.upper:.3f}]"


def head_to_head(outcomes: Sequence[Outcome], prefix: str) -> dict[tuple[str, str], Estimate]:
    """Print a two-player table (first named bot's wins) and return each pair's estimate."""
    by_group: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        if outcome.group.startswith(prefix + ":"):
            by_group[outcome.group].append(outcome)
    print(f"{'bot':<13} {'vs':<13} {'games':>6} {'wins':>6}   {'rate':>6}  95% interval")
    found = {}
    for group in sorted(by_group):
        a, b = group.split(":")[-2:]
        wins = sum(first(o, a) for o in by_group[group])
        found[(a, b)] = estimate = wilson_interval(wins, len(by_group[group]))
        print(f"{a:<13} {b:<13} {len(by_group[group]):>6} {wins:>6}   {_interval(estimate)}")
    return found


def cards_table(outcomes: Sequence[Outcome]) -> Estimate:
    """Print each bot's first places at 3-player cards tables; return boss above statistician."""
    tables = [o for o in outcomes if o.group == "cards"]
    print(f"{'bot':<13} {'tables':>6} {'firsts':>6}   {'rate':>6}  95% interval")
    for bot in BOTS:
        mine = [o for o in tables if bot in o.lineup]
        wins = sum(first(o, bot) for o in mine)
        print(f"{bot:<13} {len(mine):>6} {wins:>6}   {_interval(wilson_interval(wins, len(mine)))}")
    both = [above(o, "boss", "statistician") for o in tables
            if "boss" in o.lineup and "statistician" in o.lineup]
    wins = sum(both)
    print(f"boss placed above statistician at {len(both)} shared tables: "
          f"{_interval(wilson_interval(round(wins), len(both)))}")
    return wilson_interval(round(wins), len(both))


def elo_by_rules(outcomes: Sequence[Outcome]) -> dict[str, dict[str, tuple[int, int]]]:
    """Each bot's Elo (random at 0) and the half-width of its 95% interval, per rule set."""
    found = {}
    for rules in RULES:
        tally: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        played: dict[str, int] = defaultdict(int)
        for o in outcomes:
            if o.rules != rules or "exploiter" in o.lineup:
                continue
            for name in o.lineup:
                played[name] += 1
            for a, b in itertools.permutations(o.lineup, 2):
                score = above(o, a, b)
                counts = tally[(a, b)]
                counts[0] += 1
                counts[1 if score == 1 else 2 if score == 0 else 3] += 1
        fit = elo_fit(dict(tally), played, BOTS, prior_draws=1.0)
        zero = next(r.rating for r in fit.ratings if r.entrant == "random") or 0.0
        found[rules] = {r.entrant: (round(r.rating - zero), round((r.high - r.low) / 2))
                        for r in fit.ratings if r.rating is not None
                        and r.high is not None and r.low is not None}
    return found


def print_elo(elo: dict[str, dict[str, tuple[int, int]]]) -> None:
    """Print the Elo table."""
    print(f"{'bot':<13}" + "".join(f"{rules:>16}" for rules in RULES))
    for bot in BOTS:
        cells = [f"{elo[r][bot][0]:+6d} ± {elo[r][bot][1]:<4d}" for r in RULES]
        print(f"{bot:<13}" + "".join(f"{c:>16}" for c in cells))


def clock(outcomes: Sequence[Outcome]) -> dict[tuple[str, str], tuple[float, float]]:
    """Print and return the timed bots' median and 99th percentile CPU ms per decision."""
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    for o in outcomes:
        if "exploiter" not in o.lineup:
            for bot, seconds in o.clock.items():
                times[(bot, o.rules)].extend(seconds)
    found = {}
    print(f"{'bot':<13} {'rules':<11} {'decisions':>9} {'median ms':>10} {'p99 ms':>8}"
          f" {'max ms':>8}")
    for (bot, rules), seconds in sorted(times.items()):
        ms = sorted(1000 * s for s in seconds)
        median, p99 = statistics.median(ms), ms[min(len(ms) - 1, int(0.99 * len(ms)))]
        found[(bot, rules)] = (median, p99)
        print(f"{bot:<13} {rules:<11} {len(ms):>9} {median:>10.2f} {p99:>8.2f} {ms[-1]:>8.2f}")
    return found


def verdict(checks: list[tuple[str, bool | None]]) -> None:
    """Print whether each target holds (None: undecided at these game counts)."""
    print("\ntargets:")
    for text, ok in checks:
        print(f"  {'met' if ok else 'undecided' if ok is None else 'MISSED':<9} {text}")


def above_half(estimate: Estimate) -> bool | None:
    """True when the interval lies above 50%, False below it, None when it holds 50%."""
    return True if estimate.lower > 0.5 else False if estimate.upper < 0.5 else None


def checks_of(pairs: dict[tuple[str, str], Estimate], cards: Estimate,
              times: dict[tuple[str, str], tuple[float, float]],
              exploits: dict[tuple[str, str], Estimate]) -> list[tuple[str, bool | None]]:
    """The strength, speed and robustness targets, with whether each holds."""
    out: list[tuple[str, bool | None]] = [
        ("statistician beats random in >= 80% of dice games",
         pairs[("dice", "statistician", "random")].value >= 0.8),
        ("statistician beats honest in dice, interval above 50%",
         above_half(pairs[("dice", "statistician", "honest")])),
    ]
    for rules in ("dice", "dice-cards"):
        out.append((f"boss beats statistician in 2-player {rules}, interval above 50%",
                    above_half(pairs[(rules, "boss", "statistician")])))
    out.append(("boss places above statistician at 3-player cards tables, interval above 50%",
                above_half(cards)))
    for rules in RULES:
        median, p99 = times[("boss", rules)]
        out.append((f"boss decides in {rules} in under 20 ms median and 200 ms p99 (CPU)",
                    median < 20 and p99 < 200))
    for (rules, victim), estimate in sorted(exploits.items()):
        if victim == "boss":
            beaten = above_half(estimate)
            beaten = None if beaten is None else not beaten
            text = (f"the exploiter does not beat boss in {rules} (its win rate "
                    f"{estimate.value:.3f}, interval below 50%)")
            out.append((text, beaten))
    return out


def write(elo: dict[str, dict[str, tuple[int, int]]], command: str) -> None:
    """Write the Elo into bots/grades.json and the table in docs/writing-a-bot.md."""
    data: dict[str, Any] = {
        "command": command, "anchor": "random", "grades": GRADED,
        "elo": {bot: {rules: elo[rules][bot][0] for rules in RULES} for bot in BOTS},
        "interval": {bot: {rules: elo[rules][bot][1] for rules in RULES} for bot in BOTS},
    }
    GRADES.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    text = DOCS.read_text(encoding="utf-8")
    start, stop = text.index(BEGIN) + len(BEGIN), text.index(END)
    DOCS.write_text(text[:start] + "\n" + docs_table(data) + text[stop:], encoding="utf-8")
    print(f"\nwrote {GRADES.relative_to(ROOT)} and the table in {DOCS.relative_to(ROOT)}")


def docs_table(data: dict[str, Any]) -> str:
    """The grades table for docs/writing-a-bot.md, from bots/grades.json's data."""
    grade_of = {bot: grade for grade, bot in data["grades"].items()}
    lines = ["| bot | grade for beating it | " + " | ".join(f"Elo in `{r}`" for r in RULES)
             + " |", "|---|---|" + "---:|" * len(RULES)]
    for bot in sorted(data["elo"], key=lambda b: -data["elo"][b]["dice"]):
        cells = [f"{data['elo'][bot][r]:+d} ± {data['interval'][bot][r]}" for r in RULES]
        lines.append(f"| `{bot}` | {grade_of.get(bot, '')} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\nMeasured by `{data['command']}`.\n"


def main() -> None:
    """Play everything and print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per dice pairing")
    parser.add_argument("--dice-cards-games", type=int, default=200,
                        help="games per dice-cards pairing (default 200)")
    parser.add_argument("--cards-games", type=int, default=1200,
                        help="3-player cards games (default 1200)")
    parser.add_argument("--matches", type=int, default=4,
                        help="exploiter matches per rule set and opponent (default 4)")
    parser.add_argument("--match-games", type=int, default=100,
                        help="games per exploiter match (default 100)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="first game seed (default 1)")
    parser.add_argument("--write", action="store_true",
                        help="write bots/grades.json and the docs table")
    args = parser.parse_args()
    jobs = [*pair_jobs("dice", args.games, args.seed),
            *pair_jobs("dice-cards", args.dice_cards_games, args.seed),
            *cards_jobs(args.cards_games, args.seed),
            *exploit_jobs(args.matches, args.match_games, args.seed)]
    started = time.perf_counter()
    outcomes = list(run(jobs, args.workers))
    elapsed = time.perf_counter() - started
    pairs = {}
    for rules in ("dice", "dice-cards"):
        print(f"\n2-player {rules}, seats swapped every other game")
        pairs.update({(rules, *k): v for k, v in head_to_head(outcomes, rules).items()})
    print("\n3-player cards, every table of three bots in all 6 seat orders")
    cards = cards_table(outcomes)
    exploits = {}
    for rules in ("dice", "dice-cards"):
        print(f"\nexploiter matches of {args.match_games} 2-player {rules} games "
              "(its tally kept over a match)")
        exploits.update({(rules, victim): v for (_, victim), v
                         in head_to_head(outcomes, f"exploit-{rules}").items()})
    print("\nElo against the field (random at 0; ± the 95% interval's half-width)")
    elo = elo_by_rules(outcomes)
    print_elo(elo)
    print("\nCPU time per decision")
    times = clock(outcomes)
    verdict(checks_of(pairs, cards, times, exploits))
    faults = sum(o.faults for o in outcomes)
    print(f"\n{len(outcomes)} games in {elapsed:.0f} s on {args.workers} workers; "
          f"{faults} faults")
    if args.write:
        write(elo, "python benchmarks/strength.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
