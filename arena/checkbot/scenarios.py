"""The games `arena check-bot` plays: for each built-in rule set, a few games that each start
with a short script leading to one position the bot must be put in (only a challenge legal,
a reroll of nothing, a turn with face-up cards, a claim after the deck was reshuffled, ...).

A script is the actions of every seat, in decision order, before the bot is left to itself;
the bot's own steps in it are played for the bot (it is told every event, as a bot
restarted after a fault is). Every step is legal whatever the dice or cards (a claim may be
a bluff; `high A` in dice and `high 7` in cards hold for every hand), so a script reaches its
target under any seed. Data only: nothing here plays a game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from arena.hands import claims, parse_claim
from arena.rules.actions import Accept, Action, Bid, Challenge, Look, Pass, Reroll
from arena.seeds import derive_seed

__all__ = ["FAULT", "SCENARIOS", "Scenario", "ScriptedFault", "Step"]

ROOT_SEED = 18
"""The root of every check game's seed: the same games, and the same checklist, each time."""


class ScriptedFault:
    """A scripted opponent's fault at its decision (to show the bot a `penalty`)."""

    def __repr__(self) -> str:
        return "FAULT"


FAULT = ScriptedFault()
Step = Action | ScriptedFault
ALL = (0, 1, 2, 3, 4)


@dataclass(frozen=True, slots=True)
class Scenario:
    """One check game: its rule set, options, seats, the bot's seat, the script before the
    bot plays on its own, and the position the bot's first own decision is in."""

    name: str
    rules: str
    seats: int
    seat: int
    script: tuple[Step, ...]
    target: str
    options: MappingProxyType[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def seed(self) -> int:
        """The game's seed, from the scenario's name alone."""
        return derive_seed(ROOT_SEED, self.rules, self.name)


def _bid(text: str) -> Bid:
    return Bid(parse_claim(text))


def _options(**given: Any) -> MappingProxyType[str, Any]:
    return MappingProxyType(given)


ONCE_A_ROUND = _options(reroll_once_per="round", look_must_reroll=True)
CHOOSING = _options(receiver="loser_chooses")
PENALTY = _options(on_fault="penalty")


def _dice(rules: str, low: str, top: str, exchange: tuple[Step, ...]) -> tuple[Scenario, ...]:
    """The dice games (dice-cards: `exchange` is the thrower's first step, `low` and `top`
    the lowest and highest claims of the rule set)."""
    first = "reroll" if exchange else "claim"
    second = claims(rules)[1]
    third = claims(rules)[2]
    return (
        Scenario("a whole game, first to throw", rules, 2, 0, (), first),
        Scenario("the top claim comes to it", rules, 2, 1, (*exchange, _bid(top)),
                 "only-challenge"),
        Scenario("it looks", rules, 2, 1, (*exchange, _bid(low), Look()), "reroll"),
        Scenario("it looks again, every position rerolled", rules, 2, 1,
                 (*exchange, _bid(low), Look(), Reroll(ALL), Bid(second), Bid(third), Look()),
                 "reroll-of-nothing", ONCE_A_ROUND),
        Scenario("it lost the round", rules, 3, 1, (*exchange, _bid(low), Challenge()),
                 "choose", CHOOSING),
        Scenario("its opponent faults", rules, 2, 1, (FAULT,), "respond", PENALTY),
    )


def _reshuffle() -> Scenario:
    """dice-cards: eight full exchanges after the thrower's leave 2 cards in the deck, so the
    bot's next exchange is finished from the reshuffled discards; then it must claim."""
    ladder = claims("dice-cards")
    steps: list[Step] = [Reroll(ALL), Bid(ladder[0])]
    for turn in range(1, 10):
        steps += [Look(), Reroll(ALL)]
        if turn < 9:
            steps.append(Bid(ladder[turn]))
    return Scenario("the deck runs out in its exchange", "dice-cards", 2, 1, tuple(steps),
                    "after-reshuffle")


def _cards() -> tuple[Scenario, ...]:
    """The central-hand games: the bot takes the first hand, is passed a claim, the top claim,
    a hand with face-up cards; and an opponent's fault puts it out and gives the bot a hand."""
    low, top = parse_claim("high 7"), parse_claim("straight-flush A")
    return (
        Scenario("a whole game, first to hold the hand", "cards", 3, 0, (), "turn"),
        Scenario("a claim comes to it", "cards", 3, 1, (Pass(low),), "accept"),
        Scenario("the top claim comes to it", "cards", 3, 1, (Pass(top),), "only-challenge"),
        Scenario("it accepts a hand with face-up cards", "cards", 3, 1,
                 (Pass(low, (), (0, 1, 2)), Accept()), "face-up"),
        Scenario("its opponent faults", "cards", 3, 1, (FAULT,), "turn",
                 _options(on_fault="penalty", chips=5)),
    )


SCENARIOS: dict[str, tuple[Scenario, ...]] = {
    "dice": _dice("dice", "high A", "five A", ()),
    "dice-cards": (*_dice("dice-cards", "high 7", "straight-flush A", (Reroll(()),)),
                   _reshuffle()),
    "cards": _cards(),
}
"""The check games of each built-in rule set; the first of each is replayed for determinism."""
