"""The `sparring` bot: a strategy for full 5-dice `dice` learned by Monte-Carlo CFR
(`arena_bots.sparring_train`) on an abstraction of the game, shipped as bots/sparring.json.gz.

The abstraction lives here, so the trainer and the bot see a round the same way: a seat's
situation (`situation`) is a short key built from what the seat was shown, and its few abstract
actions (`ACTIONS`) each map to one legal action (`concrete`).
"""

from __future__ import annotations

import bisect
import gzip
import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from arena_bots.decisions import choose_receiver, fit_reroll
from arena_bots.honest import plain_reroll
from arena_bots.memory import Remembering
from arena_bots.statistician import best_reroll

import arena
from arena.bot import BotContext
from arena.odds.memory import RoundMemory, tokens

TABLE = "sparring.json.gz"
"""The shipped table, in the bot package: abstract situation to average-strategy weights."""
BUCKETS = (0, 1, 4, 7, 13, 18, 22, 25, 28, 30, 40, 50, 60, 66)
"""Where each claim bucket starts on the 72-claim ladder: high card, pairs low and high,
two pairs in three, threes in two, straights, full houses in three, fours, fives."""
ACTIONS = {
    "R": ("challenge", "look", "min", "up3", "up8"),  # respond: challenge, look, or claim blind
    "C": ("min", "truth", "up3", "up8", "up16"),  # claim with the dice in view
    "X": ("keep", "best", "plain", "all"),  # reroll after a look
}
"""The abstract actions by kind of situation (a key's first letter)."""
STEPS = {"min": 0, "truth": 0, "up3": 3, "up8": 8, "up16": 16}
"""How far above its anchor each claim goes (on the ladder of claim indexes)."""
MOST_CLAIMS = 6
"""Claims so far count exactly up to this, then as this many."""
Situation = tuple[str | None, tuple[str, ...]]


def bucket(index: int) -> int:
    """The bucket of a claim index (or a hand's value)."""
    return bisect.bisect_right(BUCKETS, index) - 1


def rerolled(count: int) -> str:
    """A reroll's size in four words: none, few (1-2), many (3-4), all."""
    return "0" if count == 0 else "f" if count <= 2 else "m" if count <= 4 else "a"


def turn_of_last_claim(history: Sequence[arena.Event]) -> tuple[int, str]:
    """How many claims this round has, and how its last one was made: T the throw's first
    claim, B blind, or after a look with how many dice rerolled (`rerolled`)."""
    claims = [i for i, e in enumerate(history) if e.kind == "claim"]
    if not claims:
        return 0, "-"
    last = history[claims[-1]]
    if last.data.get("blind"):
        return len(claims), "B"
    for event in reversed(history[:claims[-1]]):
        if event.kind == "reroll" and event.seat == last.seat:
            return len(claims), rerolled(int(event.data.get("count", 0)))
        if event.kind in ("claim", "round"):
            break
    return len(claims), "T"


def situation(observation: arena.Observation, memory: RoundMemory) -> Situation:
    """The abstract situation of a seat about to act: its key and its abstract actions; no key
    when the decision is forced (only a challenge is legal, or a receiver to choose)."""
    legal = observation.legal
    count, how = turn_of_last_claim(observation.history)
    n = min(count, MOST_CLAIMS)
    floor = legal.min_index
    if legal.decision == "respond":
        if not legal.can_claim():
            return None, ("challenge",)
        holds = memory.holds(floor - 1, use_claims=False)
        return f"R{n}|{how}|c{bucket(floor - 1)}|p{min(int(holds * 10), 9)}", ACTIONS["R"]
    if legal.decision not in ("claim", "reroll"):
        return None, ("choose",)
    hand = tokens(observation.hand or (), memory.cards)
    value = memory.tables.hand_value(hand)
    reach = "y" if value >= floor else "n"
    if legal.decision == "reroll":
        return f"X{n}|h{bucket(value)}|m{bucket(floor)}|{reach}", ACTIONS["X"]
    mine = "T" if count == 0 else _my_reroll(observation.history, observation.seat)
    return f"C{n}|{mine}|h{bucket(value)}|m{bucket(floor)}|{reach}", ACTIONS["C"]


def _my_reroll(history: Sequence[arena.Event], seat: int) -> str:
    """How many dice this seat rerolled in the turn it is finishing."""
    for event in reversed(history):
        if event.kind == "reroll" and event.seat == seat:
            return rerolled(int(event.data.get("count", 0)))
        if event.kind == "claim":
            break
    return "0"


def concrete(name: str, observation: arena.Observation, memory: RoundMemory) -> arena.Action:
    """The legal action an abstract action stands for in this observation."""
    legal = observation.legal
    floor = legal.min_index
    claims = memory.space.claims
    if name == "challenge" or (name in STEPS and not legal.can_claim()):
        return arena.Challenge()
    if name == "look":
        return arena.Look()
    if name == "choose":
        return choose_receiver(observation)
    if name in STEPS:
        anchor = floor
        if observation.hand is not None and name != "min":
            hand = tokens(observation.hand, memory.cards)
            anchor = max(floor, memory.tables.hand_value(hand))
        return arena.Bid(claims[min(anchor + STEPS[name], len(claims) - 1)])
    hand = tokens(observation.hand or (), memory.cards)
    memory.saw(hand)
    wanted: tuple[int, ...] = {
        "keep": (), "all": tuple(range(len(hand))),
        "best": best_reroll(memory, floor, legal),
        "plain": plain_reroll(hand, memory.tables, floor),
    }[name]
    return arena.Reroll(fit_reroll(legal, wanted, hand))


def fallback(key: str, memory: RoundMemory, floor: int) -> list[float]:
    """Weights for a situation the training never reached: the statistician's plain play
    (challenge below even odds, else look; claim the truth; reroll for the best chance)."""
    if key.startswith("R"):
        return [1.0, 0.0, 0.0, 0.0, 0.0] if memory.holds(floor - 1, False) < 0.5 else \
            [0.0, 1.0, 0.0, 0.0, 0.0]
    if key.startswith("C"):
        return [0.0, 1.0, 0.0, 0.0, 0.0]
    return [0.0, 1.0, 0.0, 0.0]


@cache
def table() -> dict[str, Any]:
    """The shipped table: its training record and its policy (situation to weights)."""
    data: dict[str, Any] = json.loads(gzip.decompress(
        resources.files("arena_bots").joinpath(TABLE).read_bytes()))
    return data


class Sparring(Remembering):
    """A sparring partner learned by self-play (Monte-Carlo CFR) on an abstraction of `dice`.

    How it plays. It sees a round as a short key: for a claim to answer, how many claims the
    round has, whether the last one was blind or how many dice its maker rerolled, the
    claim's bucket on the ladder and the chance (in tenths) that it holds from what this seat
    has seen; with the dice in view, the bucket of their value, the bucket of the lowest legal
    claim and whether the dice reach it. In each it has learned weights for a few abstract
    actions: challenge, look, or claim blind the
    lowest legal claim or 3 or 8 steps above it; reroll nothing, the statistician's best
    reroll, honest's rule of thumb, or everything; claim the lowest legal claim, the truth,
    or 3, 8 or 16 steps above the truth. By default it plays the heaviest of them (the
    average strategy purified: measured stronger than drawing by the weights, which carry the
    sampling's noise); option `mixed: true` draws by the weights, with its own generator. It
    was trained heads-up on one round; it plays every round of any `dice` game the same way.
    """

    name = "sparring"
    rules = ("dice",)
    description = "Monte-Carlo CFR on an abstraction of full dice: a sparring partner for boss."
    options = MappingProxyType({"mixed": False})

    def __init__(self, context: BotContext) -> None:
        super().__init__(context)
        self.policy: dict[str, list[float]] = table()["policy"]
        mixed = self.settings["mixed"]
        if not isinstance(mixed, bool):
            raise TypeError(f"sparring: option mixed must be true or false, not {mixed!r}")
        self.mixed = mixed

    def act(self, observation: arena.Observation) -> arena.Action:
        """The learned abstract action of this situation (heaviest, or drawn), made legal."""
        memory = self.round
        assert memory is not None  # `dice` only
        key, names = situation(observation, memory)
        if key is None:
            return concrete(names[0], observation, memory)
        weights = self.policy.get(key) or fallback(key, memory, observation.legal.min_index)
        pick = draw(weights, self.rng.random()) if self.mixed else heaviest(weights)
        return concrete(names[pick], observation, memory)


def heaviest(weights: Sequence[float]) -> int:
    """The index of the heaviest weight (the first of equals)."""
    return max(range(len(weights)), key=weights.__getitem__)


def draw(weights: Sequence[float], pick: float) -> int:
    """The index a uniform number in [0, 1) picks by these weights (the heaviest on a tie)."""
    pick *= sum(weights)
    for i, w in enumerate(weights):
        pick -= w
        if pick < 0:
            return i
    return heaviest(weights)

