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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from arena.bot import Bot, BotContext, Limits
from arena.hosts.inline import InlineHost, decision_alarm
from arena.options import NO_OPTIONS
from arena.plugins import default_registry
from arena.referee import ActionEntry, LogEntry, _Game, as_player, play_game
from arena.rules import CHANCE, TERMINAL, get_rules
from arena.rules.actions import Action, Chance
from arena.rules.base import Event, Observation
from arena.rules.dice import DiceRules
from arena.rules.playout import playout, random_action

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


# --- the referee's parts, each timed alone on the positions of real games ------------------


@dataclass(frozen=True, slots=True)
class Positions:
    """Every step of some random 2-player `dice` games, played through the rules alone: each
    decision's observation and answer, each step's events and chance outcomes."""

    decisions: tuple[tuple[int, Observation, Action], ...]
    events: tuple[tuple[Event, ...], ...]
    chances: tuple[Chance, ...]
    final: Any
    games: int


def positions(games: int = 200) -> Positions:
    """Play `games` random games of 2-player `dice`, keeping every step."""
    rules, rng = get_rules("dice"), random.Random(1)
    decisions, events, chances = [], [], []
    for _ in range(games):
        state = rules.new_game(2)
        while (seat := rules.to_act(state)) != TERMINAL:
            if seat == CHANCE:
                chances.append(outcome := rules.chance(state, rng))
                state = rules.apply(state, outcome)
            else:
                observation = rules.observe(state, seat)
                decisions.append((seat, observation, random_action(observation.legal, rng)))
                state = rules.apply(state, decisions[-1][2])
            events.append(rules.events(state))
    return Positions(tuple(decisions), tuple(events), tuple(chances), state, games)


def _timed(part: Callable[[], object], passes: int = 3) -> float:
    """The best of a few passes of a part, in seconds."""
    best = float("inf")
    for _ in range(passes):
        started = time.perf_counter()
        part()
        best = min(best, time.perf_counter() - started)
    return best


def _inline_bot(seat: int) -> tuple[InlineHost, Bot]:
    """A started inline host of the `random` bot, and the bot itself."""
    host = InlineHost(default_registry().bots["random"].factory)
    host.start(BotContext(seat, 2, "dice", get_rules("dice").check_options(None), Limits(),
                          random.Random(seat)))
    assert host.bot is not None
    return host, host.bot


class _Finished(DiceRules):
    """2-player `dice` whose every game is over as it begins (the real set-up, then a
    finished state): what the referee spends on a game besides its steps."""

    def __init__(self, final: Any) -> None:
        super().__init__(cards=False)
        self.final = final

    def new_game(self, players: int, options: Mapping[str, object] | None = None) -> Any:
        """Set up a game as the rules do, then hand back the finished one."""
        super().new_game(players, options)
        return self.final


def parts(p: Positions) -> dict[str, Callable[[], object]]:
    """Each part the referee adds over the rules, as a pass over the recorded positions."""
    (host, bot), rng = _inline_bot(0), random.Random(1)
    log: list[LogEntry] = []
    seats = [default_registry().bots["random"].factory] * 2
    finished = _Finished(p.final)

    def hosted() -> None:
        with decision_alarm():
            for _, observation, _ in p.decisions:
                host.act(observation, 1.0)

    def logged() -> None:
        log.clear()
        for seat, _, action in p.decisions:
            log.append(ActionEntry(seat, action, 0.0))
        log.extend(p.chances)
        for events in p.events:
            log.extend(events)

    def notified() -> None:
        game = _Game(get_rules("dice"), tuple(as_player(s) for s in seats), 0, NO_OPTIONS,
                     Limits())
        for events in p.events:
            game._dispatch(events)  # the part measured

    return {
        "random_action": lambda: [random_action(o.legal, rng) for _, o, _ in p.decisions],
        "bot": lambda: [bot.act(o) for _, o, _ in p.decisions],
        "host": hosted,
        "clock": lambda: [time.perf_counter() for _ in p.decisions],
        "log": logged,
        "notify": notified,
        "game": lambda: [play_game(finished, seats, seed=n) for n in range(p.games)],
    }


def breakdown(seconds: float = 1.0, repeat: int = 5) -> dict[str, float]:
    """Microseconds per decision of the rules, the referee, and each part the referee adds,
    interleaved in every round; medians. The parts are measured alone, so they need not add
    up to the referee: the rest is its loop (whose turn, the fault checks, calls)."""
    recorded = positions()
    per = 1e6 / len(recorded.decisions)
    timed = parts(recorded)
    steps = dice_steps()
    rounds: dict[str, list[float]] = {name: [] for name in (*steps, *timed)}
    for _ in range(repeat):
        for name, step in steps.items():
            rounds[name].append(1e6 / _rates(step, seconds, 1)[1])
        for name, part in timed.items():
            rounds[name].append(_timed(part) * per)
    micros = {name: statistics.median(times) for name, times in rounds.items()}
    micros["clock"] *= 3  # three reads per decision: the referee's, two in the host call
    micros["host"] -= micros["bot"]
    micros["bot"] -= micros["random_action"]
    return micros
