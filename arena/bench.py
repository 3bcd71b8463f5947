"""Speed benchmarks of the game layers (`arena bench`): the rules alone, and the referee with
inline random bots. Figures are medians of several timed runs; the referee is reported as a
ratio against the rules layer measured in the same run, so a busy machine shifts both.

Benchmarks, never timed tests: nothing here asserts a speed.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from arena.plugins import default_registry
from arena.referee import play_game
from arena.rules import get_rules
from arena.rules.playout import playout

CASES = (("dice", 2), ("dice", 4), ("dice", 6), ("dice-cards", 4), ("cards", 4))


@dataclass(frozen=True, slots=True)
class Rate:
    """Median games/s and decisions/s over several runs of one case."""

    layer: str
    rules: str
    players: int
    games_per_s: float
    decisions_per_s: float
    runs: int


def _rates(step: Callable[[int], int], seconds: float, repeat: int) -> tuple[float, float]:
    """Run `step(game_number) -> decisions` for `seconds`, `repeat` times; return medians."""
    games_rates, decision_rates = [], []
    number = 0
    for _ in range(repeat):
        games = decisions = 0
        started = time.perf_counter()
        while (elapsed := time.perf_counter() - started) < seconds:
            decisions += step(number)
            games += 1
            number += 1
        games_rates.append(games / elapsed)
        decision_rates.append(decisions / elapsed)
    return statistics.median(games_rates), statistics.median(decision_rates)


def rules_rate(rules_id: str, players: int, seconds: float, repeat: int) -> Rate:
    """Random legal play through the rules alone, building each decision's observation."""
    rules = get_rules(rules_id)
    rng = random.Random(1)
    games, decisions = _rates(lambda n: playout(rules, players, rng).decisions, seconds, repeat)
    return Rate("rules", rules_id, players, games, decisions, repeat)


def referee_rate(rules_id: str, players: int, seconds: float, repeat: int) -> Rate:
    """Whole games through the referee: inline `random` bots, event recording on."""
    seats = [default_registry().bots["random"].factory] * players
    games, decisions = _rates(lambda n: play_game(rules_id, seats, seed=n).decisions,
                              seconds, repeat)
    return Rate("referee", rules_id, players, games, decisions, repeat)


def run(seconds: float = 1.0, repeat: int = 5,
        cases: tuple[tuple[str, int], ...] = CASES) -> Iterator[Rate]:
    """Measure every case, rules then referee, interleaved so both see the same machine."""
    for rules_id, players in cases:
        yield rules_rate(rules_id, players, seconds, repeat)
        yield referee_rate(rules_id, players, seconds, repeat)
