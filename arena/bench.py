"""Speed benchmarks of the game layers (`arena bench`): the rules alone, and the referee with
inline random bots. Figures are medians of several timed runs; the referee is reported as a
ratio against the rules layer measured in the same run, so a busy machine shifts both.

The baseline from outside is OpenSpiel's C++ `liars_dice` driven from Python (the optional
`pyspiel`, `pip install open_spiel`), timed in the same rounds as arena's 2-player `dice`.

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


OPENSPIEL_GAME = ("liars_dice", {"players": 2, "numdice": 5})
"""OpenSpiel's game closest to 2-player `dice`: two players, five dice each."""


def openspiel_step() -> Callable[[int], int] | None:
    """Whole random games of OpenSpiel's liars_dice, the information-state string of the
    seat to act built at every decision (what a bot would read); None without pyspiel."""
    try:
        import pyspiel  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    name, parameters = OPENSPIEL_GAME
    game = pyspiel.load_game(name, parameters)
    rng = random.Random(1)

    def step(number: int) -> int:
        state, decisions = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():  # every outcome is equally likely: one die's face
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.information_state_string(state.current_player())
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        return decisions

    return step


def dice_steps() -> dict[str, Callable[[int], int]]:
    """Arena's cases closest to OpenSpiel's: 2-player `dice`, rules alone and referee."""
    rules, rng = get_rules("dice"), random.Random(1)
    seats = [default_registry().bots["random"].factory] * 2
    return {"rules": lambda n: playout(rules, 2, rng).decisions,
            "referee": lambda n: play_game("dice", seats, seed=n).decisions}


def interleaved(steps: dict[str, Callable[[int], int]], seconds: float,
                repeat: int) -> dict[str, float]:
    """Median microseconds per decision of each step, timed in turn in every round, so each
    sees the same machine."""
    per_decision: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(repeat):
        for name, step in steps.items():
            _, decisions_per_s = _rates(step, seconds, 1)
            per_decision[name].append(1e6 / decisions_per_s)
    return {name: statistics.median(times) for name, times in per_decision.items()}


def versus_openspiel(seconds: float = 1.0, repeat: int = 5) -> dict[str, float] | None:
    """Microseconds per decision of OpenSpiel's liars_dice, arena's rules and referee (2-player
    `dice`), interleaved; None when pyspiel is not installed."""
    openspiel = openspiel_step()
    if openspiel is None:
        return None
    return interleaved({"openspiel": openspiel, **dice_steps()}, seconds, repeat)


def run(seconds: float = 1.0, repeat: int = 5,
        cases: tuple[tuple[str, int], ...] = CASES) -> Iterator[Rate]:
    """Measure every case, rules then referee, interleaved so both see the same machine."""
    for rules_id, players in cases:
        yield rules_rate(rules_id, players, seconds, repeat)
        yield referee_rate(rules_id, players, seconds, repeat)
