"""Benchmark: what the organiser pays to take no cluster worker's result on trust.

    python benchmarks/trust.py                      # 400 games, 5 repetitions
    python benchmarks/trust.py --games 1000 --repeat 7 --seats 2

1. Checking against playing: a `dice` round robin of 6 `random` entrants (inline) at
   4-seat tables is played game by game by the tournament's own worker (as a cluster's
   worker plays it, replays on), then each returned game is judged as the organiser judges
   it (arena.tournament.run.trust.GameJudge.accept: the replay unpacked within the caps,
   parsed, its header matched to the schedule, re-applied through the rules, the line
   rebuilt). Figures: CPU µs per game to play, to judge, and their ratio; then the games/s
   the organiser checks on its CHECKERS processes (arena.executor.trust), batches of 50 as
   a cluster returns them, by wall time; medians of the repetitions with the load beside.
2. The pickle guard (arena.executor.pickles): µs to unpickle a batch of 50 played games as
   a worker sends it, under the guard of arena's Dask client and without it.
3. The sample: for fractions p, the extra games played (p of the run) against the chance of
   catching a worker that swaps a bot in k games, 1 - (1 - p)^k (computed, not measured).

Pure measurement: it writes nothing and asserts nothing.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import pickle
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from arena.executor import pickles, trust
from arena.executor.remote import Batch, Refused
from arena.hosts.strain import Strain
from arena.tournament.config import EntrantConfig, FormatConfig, TournamentConfig
from arena.tournament.formats.registry import plan_for
from arena.tournament.run.runner import tournament_setup
from arena.tournament.run.trust import GameJudge
from arena.tournament.run.worker import Played, _Worker

ENTRANTS = 6


def _games(count: int, seats: int) -> tuple[list, object]:
    """The first `count` games of a round robin, and the setup that plays them."""
    entrants = tuple(EntrantConfig(f"random-{i}", "random") for i in range(ENTRANTS))
    cfg = TournamentConfig(name="trust", rules="dice", entrants=entrants, seed=5,
                           format=FormatConfig(type="round-robin", seats=seats, games=count))
    games = list(plan_for(cfg).batch({}))[:count]
    return games, replace(tournament_setup(cfg), replays=True)


def _once(count: int, seats: int) -> tuple[float, float, float, list]:
    """CPU µs per game to play the games, and to judge what was played."""
    games, setup = _games(count, seats)
    worker = _Worker(setup)
    start = time.process_time()
    played = [worker.play(game) for game in games]
    playing = time.process_time() - start
    judge = GameJudge(setup, True, 0.0)
    start = time.process_time()
    for game, result in zip(games, played, strict=True):
        judge.accept(game, result)
    judging = time.process_time() - start
    worker.shutdown()
    return (playing / len(games) * 1e6, judging / len(games) * 1e6,
            _pooled(judge, games, played), played)


def _pooled(judge: GameJudge, games: list, played: list) -> float:
    """Games/s checked on CHECKERS processes, in batches of 50 (the pool started first)."""
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(trust.CHECKERS, context, initializer=trust._install,
                             initargs=(judge,)) as pool:
        pool.submit(trust._accept_all, games[:1], played[:1]).result()  # started
        start = time.perf_counter()
        batches = [pool.submit(trust._accept_all, games[i:i + 50], played[i:i + 50])
                   for i in range(0, len(games), 50)]
        for batch in batches:
            batch.result()
        return len(games) / (time.perf_counter() - start)


def _guard_cost(played: list, times: int = 200) -> tuple[float, float]:
    """µs to unpickle a batch of 50 games: under the organiser's guard, and without it."""
    data = pickle.dumps(Batch(played[:50], [], 1.0), protocol=5)
    guard = pickles.Guard((Batch, Refused, Played, Strain))
    pickles._install()

    def unpickle() -> float:
        start = time.perf_counter()
        for _ in range(times):
            pickle.loads(data)
        return (time.perf_counter() - start) / times * 1e6
    return pickles.guarded(guard, unpickle), unpickle()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seats", type=int, default=4)
    args = parser.parse_args()
    plays, judges, ratios, rates, guarded, bare = [], [], [], [], [], []
    for _ in range(args.repeat):
        play, judge, rate, played = _once(args.games, args.seats)
        with_guard, without = _guard_cost(played)
        guarded.append(with_guard)
        bare.append(without)
        plays.append(play)
        judges.append(judge)
        ratios.append(judge / play)
        rates.append(rate)
    load = os.getloadavg()[0]
    print(f"{args.seats}-seat dice, {args.games} games x {args.repeat}, load {load:.1f}: "
          f"play {statistics.median(plays):.0f} µs/game, judge "
          f"{statistics.median(judges):.0f} µs/game, judge/play "
          f"{statistics.median(ratios):.2f} (runs: "
          + ", ".join(f"{r:.2f}" for r in ratios) + f"); checked on {trust.CHECKERS} "
          f"processes: {statistics.median(rates):.0f} games/s")
    print(f"unpickling a batch of 50 games: {statistics.median(guarded):.0f} µs under the "
          f"pickle guard, {statistics.median(bare):.0f} µs without")
    print("sample p: extra games; chance of catching a worker that swaps a bot in k games")
    for p in (0.01, 0.02, 0.05, 0.1, 0.2):
        chances = ", ".join(f"k={k}: {1 - (1 - p) ** k:.0%}" for k in (5, 20, 50, 100, 200))
        print(f"  p={p:.2f}: +{p:.0%} games; {chances}")


if __name__ == "__main__":
    main()
