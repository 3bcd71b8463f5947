"""Zoo: a cheat that knows arena's source. It plays like `statistician`, but first tries to
recognise its game: for every game id a round robin or a comparison gives (rr-000001, ...,
group 0, ...) under the seed it guesses (option `root`, default arena's old default 1), it
derives the game's seed and its own generator's seed as the referee does, and compares that
generator with the one it was given. When one matches, it has the game's seed: it replays
the dice stream (one `random()` per throw), knows the cup when it must respond, and
challenges exactly the claims that do not hold.

It tells what it managed on stderr, one line per game: `ORACLE {json}` with whether it
recognised the game, how many of its own throws it predicted and how many it saw.
"""

from __future__ import annotations

import itertools
import json
import random
import sys
from types import MappingProxyType

from arena_bots.statistician import Statistician

import arena
from arena import seeds
from arena.bot import BotContext, GameEnd
from arena.hands import dice_value, rank_of
from arena.rules.dice_play import _ROLLS


def _bot_seed(game_seed: int, seat: int) -> int:
    """The seed of seat's generator, as the referee derives it (the source is public)."""
    derive = getattr(seeds, "bot_seed", None)
    return derive(game_seed, seat) if derive else seeds.derive_seed(game_seed, "bot", seat)


def _candidates(root: int, count: int) -> list[int]:
    """The game seeds a tournament or a comparison under this root would use."""
    ids = [seeds.derive_seed(root, f"rr-{n:06d}") for n in range(1, count + 1)]
    return ids + [seeds.derive_seed(root, "compare", n) for n in range(count)]


def _dice(hand: object) -> tuple[int, ...]:
    """Dice as ranks (events name them as text: 9 T J Q K A)."""
    return tuple(rank_of(str(face)) for face in hand)  # type: ignore[attr-defined]


def _replaced(cup: tuple[int, ...], positions: tuple[int, ...],
              faces: tuple[int, ...]) -> tuple[int, ...]:
    hand = list(cup)
    for position, face in zip(positions, faces, strict=True):
        hand[position] = face
    return tuple(hand)


def _rerolled(cups: set[tuple[int, ...]], count: int,
              faces: tuple[int, ...] | None) -> set[tuple[int, ...]]:
    """Every cup a reroll of `count` dice giving `faces` can leave, from each cup it was."""
    if faces is None:
        return set()
    return {_replaced(cup, positions, faces)
            for cup in cups for positions in itertools.combinations(range(5), count)}


class Oracle(Statistician):
    name = "zoo-oracle"
    rules = ("dice",)
    options = MappingProxyType({**Statistician.options, "root": 1, "tries": 400})

    def __init__(self, context: BotContext) -> None:
        super().__init__(context)
        self.game_seed = self._recognise(context)
        self.chance: random.Random | None = None
        if self.game_seed is not None:
            self.chance = random.Random(seeds.derive_seed(self.game_seed, "game"))
        self.cups: set[tuple[int, ...]] = set()
        """The cups it could be, from the stream; empty when it knows nothing."""
        self.predicted: tuple[int, ...] | None = None
        self.throws = self.right = 0

    def _recognise(self, context: BotContext) -> int | None:
        mine = random.Random()
        mine.setstate(context.rng.getstate())
        first = mine.random()
        for game_seed in _candidates(int(self.settings["root"]), int(self.settings["tries"])):
            if random.Random(_bot_seed(game_seed, context.seat)).random() == first:
                return game_seed
        return None

    def notify(self, event: arena.Event) -> None:
        super().notify(event)
        if event.kind == "round":
            self.predicted = self._draw(5)
            self.cups = {self.predicted} if self.predicted else set()
        elif event.kind == "reroll" and event.data.get("count"):
            count = int(event.data["count"])
            fresh = self._draw(count)
            if event.seat != self.seat:  # which dice it kept is hidden: every way it could
                self.cups = _rerolled(self.cups, count, fresh)
        elif event.kind == "roll" and event.to == self.seat:
            hand = _dice(event.data["hand"])
            if "positions" not in event.data:  # its own throw: was it foreseen?
                self.throws += 1
                self.right += self.predicted == hand
            self.cups = {hand}
        elif event.kind == "see" and event.to == self.seat:
            self.cups = {_dice(event.data["hand"])}

    def _draw(self, count: int) -> tuple[int, ...] | None:
        if self.chance is None:
            return None
        table = _ROLLS[count]
        return table[int(self.chance.random() * len(table))]

    def act(self, observation: arena.Observation) -> arena.Action:
        legal, claim = observation.legal, observation.claim
        if observation.decision == "respond" and self.cups and claim is not None:
            holds = {dice_value(cup) >= claim for cup in self.cups}
            if holds == {False} or not legal.can_claim():
                return arena.Challenge()
            if holds == {True}:
                return arena.Look()
        if observation.decision == "reroll" and self.chance is not None and self.cups:
            return self._foreseen_reroll(observation)
        return super().act(observation)

    def _foreseen_reroll(self, observation: arena.Observation) -> arena.Action:
        """The reroll whose result (known from the stream) is the best hand."""
        (cup,) = self.cups
        assert self.chance is not None
        ahead = random.Random()
        ahead.setstate(self.chance.getstate())
        draw = ahead.random()
        best: tuple[object, tuple[int, ...]] | None = None
        for size in range(6):
            for positions in itertools.combinations(range(5), size):
                if not observation.is_legal(arena.Reroll(positions)):
                    continue
                table = _ROLLS[size]
                hand = _replaced(cup, positions, table[int(draw * len(table))])
                if best is None or dice_value(hand) > best[0]:  # type: ignore[operator]
                    best = (dice_value(hand), positions)
        return arena.Reroll(best[1]) if best else super().act(observation)

    def end(self, result: GameEnd) -> None:
        report = {"recognised": self.game_seed is not None, "throws": self.throws,
                  "predicted": self.right}
        sys.stderr.write("ORACLE " + json.dumps(report) + "\n")
        sys.stderr.flush()
        super().end(result)

