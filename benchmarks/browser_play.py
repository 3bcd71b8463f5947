"""Benchmark of a move in a browser game (`/play/<id>`, arena/site/contest/seat.py): each
request plays the whole game again from its seed and the person's moves, so its cost grows
with the game. This times that replay, the last move of a whole game (its dearest request),
for each built-in bot and rule set.

Run: python benchmarks/browser_play.py [--games 10] [--repeat 5]

A scripted person plays `--games` games (seeds 1..N) against each bot, calling when it may and
else taking the prompt's first example; the replay of each game's last move is timed
`--repeat` times. Shown: the median and the largest of the games' medians (wall clock, ms),
the decisions of the longest game, and the load average beside them. A benchmark, never a
timed test: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from arena.human import example_texts
from arena.site.contest.seat import Position, Table, opponents, play

RULES = (("dice", {}), ("dice-cards", {}), ("cards", {}))


def whole_game(table: Table) -> Position:
    """A game played to its end by the scripted person (with the last move not yet sent)."""
    position = play(table, [])
    while True:
        assert position.observation is not None
        examples = example_texts(position.observation)
        text = "challenge" if "challenge" in examples else examples[0]
        after = play(table, position.moves, text)
        if after.over:
            return position
        position = after


def last_move(table: Table, repeat: int) -> tuple[float, int]:
    """Median seconds of the game's last request, and the game's decisions."""
    before = whole_game(table)
    assert before.observation is not None
    examples = example_texts(before.observation)
    text = "challenge" if "challenge" in examples else examples[0]
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        end = play(table, before.moves, text)
        times.append(time.perf_counter() - started)
    assert end.record is not None
    return statistics.median(times), end.record.decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    print(f"{'rules':<11}{'bot':<14}{'median ms':>10}{'max ms':>9}{'decisions':>11}")
    for rules, options in RULES:
        for bot in opponents(rules, tuple(sorted(options.items()))):
            found = [last_move(Table(rules, options, bot, seed), args.repeat)
                     for seed in range(1, args.games + 1)]
            medians = [seconds * 1000 for seconds, _ in found]
            print(f"{rules:<11}{bot:<14}{statistics.median(medians):>10.1f}"
                  f"{max(medians):>9.1f}{max(d for _, d in found):>11}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
