"""The `boss` bot: the statistician's odds, plus a model of the statistician's own mind, and
in two-player `dice`, until that model has proved itself, a mix by indifference where a pure
cut-off could be read.

Draws with its context's seeded rng (same seed, same game), no memory beyond the game, within
a few milliseconds a decision. See `Boss`.
"""

from __future__ import annotations

import random
from types import MappingProxyType

from arena_bots import indifference
from arena_bots.mirror import Mirror
from arena_bots.statistician import Statistician

import arena
from arena.bot import BotContext
from arena.odds import probability
from arena.odds.memory import RoundMemory, tokens
from arena.odds.probability import DiceTables
from arena.rules.base import Event

DOUBT = MappingProxyType({"dice": 0.55, "dice-cards": 0.5, "cards": 0.1})
"""Below this chance that a claim holds, boss challenges (rejects), by rule set, as measured
by `arena compare` against the statistician: in `cards` accepting is worth far more than
it looks (the taker picks the best 5 of 10 cards), in `dice` a little less."""
TABLE_DOUBT = MappingProxyType({"dice": 0.45})
"""The same, at `dice` tables of three or more, where boss keeps no mirror (measured so too)."""
NEAR_ODDS = 0.35
"""How far from its threshold boss's own chance that a claim holds may be for it to challenge
at a mixed rate found by indifference; farther, its odds decide (purely)."""
CALL_ODDS = 0.1
"""How far from its threshold that chance may be for indifference's pure call (challenge, or
look) to overrule it."""


class Boss(Statistician):
    """Plays the statistician's odds, and bluffs where its model of the opponent says it pays.

    How it plays. Everything the statistician knows, it knows the same way (`arena.odds.memory`),
    and it plays as the statistician does but for two things. In two-player `dice` and
    `dice-cards` it keeps a mirror of its opponent's mind (`bots.mirror`): the hand the
    opponent last saw, what it has seen of boss's claims, and so how much it trusts them.
    Before each claim it asks the mirror, for every legal claim, whether the opponent would
    challenge it; a true claim that will be challenged wins the round, a bluff that will be
    believed leaves the opponent to beat a claim its hand does not reach. Until the
    opponent's answers have shown which of two models of it is right (it reads claims by how
    far boss has proved honest, as the statistician does, or reads nothing into them, as
    honest does), and again when they stop matching, it claims as the statistician does. And
    it challenges (rejects) below its own thresholds (`DOUBT`), not the statistician's 0.5.

    Until the mirror has proved itself, in two-player `dice` boss mixes, but only where a
    pure cut-off could be read (`strategy`, `bots.indifference`); where its odds are decisive
    it plays them purely. It challenges by its own chance that the claim holds, except near
    its threshold, where it challenges just often enough that a bluffer gains nothing over
    its best lower claim (`NEAR_ODDS`, `CALL_ODDS`). It bluffs each claim above its true one
    just often enough that a challenger neither gains nor loses by challenging it, but never
    a claim that is almost surely challenged and lost: one the receiver's own odds make
    unlikely, or one it would beat anyway (`indifference.sound_mix`). And it rerolls for the
    claim worth most after it, by what the opponent will know of the hand (keeping a hand the
    opponent saw tells it the hand). It draws with its context's seeded rng.
    """

    name = "boss"
    rules = ("dice", "dice-cards", "cards")
    description = "The statistician's odds, plus a model of its opponent's trust: bluffs that pay."
    options = MappingProxyType({})

    def __init__(self, context: BotContext) -> None:
        super().__init__(context)
        self.mirror: Mirror | None = None
        self.looking = False
        """Whether boss has just looked, so the hand it is shown next is the opponent's view."""
        self.seat = context.seat
        if self.round is not None and context.players == 2:
            self.mirror = Mirror(1 - context.seat, context.seat, self.space)
        self.floor = 0
        """The lowest claim the last claimant could make (the claim before it, plus one)."""

    def _threshold(self, context: BotContext) -> float:
        """Boss's measured threshold for this rule set and table size."""
        doubt = DOUBT.get(context.rules, 0.5)
        return TABLE_DOUBT.get(context.rules, doubt) if context.players > 2 else doubt

    def notify(self, event: Event) -> None:
        """Remember what this seat sees, and what the opponent's seat must have seen; at boss's
        own claim, note whether each model of the opponent would challenge it (here, not in
        `act`, so that a copy asked only its `strategy` keeps the same record)."""
        if event.kind == "claim" and self.round is not None:
            self.floor = self.round.last_claim + 1
            if event.seat == self.seat and event.to is None and self.mirror is not None:
                self.mirror.predict(probability.claim_index(self.space, event.data["claim"]),
                                    self.floor)
        super().notify(event)
        if event.kind == "look" and event.seat == self.seat:
            self.looking = True
        elif self.looking and event.to == self.seat and "hand" in event.data:
            self.looking = False
            if self.mirror is not None and self.round is not None:
                self.mirror.boss_looked(tokens(event.data["hand"], self.round.cards))
        if self.mirror is not None and self.round is not None:
            self.mirror.notify(event, self.round.known)

    def act(self, observation: arena.Observation) -> arena.Action:
        """Draw an action from boss's mixed strategy with its own rng (same seed, same game)."""
        return draw(self.strategy(observation), self.rng)

    def strategy(self, observation: arena.Observation) -> list[tuple[arena.Action, float]]:
        """Each action boss may take here, with its probability: in two-player `dice`, until
        the mirror fits, pure where its odds are decisive and mixed by indifference near its
        cut-offs (see the class), else as the statistician with its mirror. Once a decision:
        it remembers what the seat sees."""
        seen, memory, legal = observation.hand, self.round, observation.legal
        if self.mirror is None or memory is None or not isinstance(memory.tables, DiceTables) \
                or self.mirror.fits():
            return [(super().act(observation), 1.0)]
        if seen is not None:
            memory.saw(tokens(seen, memory.cards))
        beat = indifference.beating(self.space.straight_over_full, self.space.dice,
                                    self.space.faces)
        if legal.decision == "respond" and legal.can_claim():
            chance = self._challenge_chance(memory, self._claim(observation), beat)
            return _mixed([(arena.Challenge(), chance), (arena.Look(), 1 - chance)])
        if legal.decision == "reroll":
            return [(arena.Reroll(self._reroll(memory, legal, beat)), 1.0)]
        if legal.decision == "claim":
            assert memory.known is not None
            truth = max(memory.tables.hand_value(memory.known), legal.min_index)
            mix = indifference.sound_mix(self.mirror.view.belief(), truth, legal.min_index, beat)
            return _mixed([(arena.Bid(self.space.claims[c]), p) for c, p in sorted(mix.items())])
        return [(super().act(observation), 1.0)]

    def _challenge_chance(self, memory: RoundMemory, claim: int,
                          beat: tuple[tuple[float, ...], ...]) -> float:
        """How often to challenge: by boss's own odds where they are decisive, by indifference
        near its threshold (a mixed rate within `NEAR_ODDS`, a pure one within `CALL_ODDS`)."""
        holds = memory.holds(claim)
        chance = indifference.challenge_chance(memory.belief(), claim, self.floor, beat)
        near = NEAR_ODDS if 0 < chance < 1 else CALL_ODDS
        if abs(holds - self.threshold) <= near:
            return chance
        return 1.0 if holds < self.threshold else 0.0

    def _reroll(self, memory: RoundMemory, legal: arena.Legal,
                beat: tuple[tuple[float, ...], ...]) -> tuple[int, ...]:
        """The reroll whose claim after it is worth most, by what the opponent will know of
        the hand (the dice it saw, less as many as boss rerolls): keeping a hand the opponent
        saw tells it the hand."""
        assert memory.known is not None and self.mirror is not None
        tables, view, hand = memory.tables, self.mirror.view, memory.known
        assert isinstance(tables, DiceTables)
        worth: dict[int, list[float]] = {}
        score: dict[tuple[int, ...], float] = {}
        for reroll in legal.rerolls():
            count = len(reroll.positions)
            if count not in worth:
                survivors = probability.after_reroll(view.survivors, count) if count \
                    else view.survivors
                prior = probability.dice_belief(tables, view.known, survivors)
                worth[count] = indifference.claim_worth(prior, legal.min_index, beat)
            kept = tuple(sorted(t for i, t in enumerate(hand) if i not in reroll.positions))
            score[reroll.positions] = sum(p * w for p, w in zip(tables.outcome[kept],
                                                                worth[count], strict=True))
        top = max(score.values())
        return min((p for p, s in score.items() if s >= top - 1e-9), key=lambda p: (len(p), p))

    def _bid(self, memory: RoundMemory, floor: int) -> int:
        """The mirror's best claim, or the statistician's (true value or lowest) without one."""
        if self.mirror is None:
            return super()._bid(memory, floor)
        assert memory.known is not None
        return self.mirror.best_claim(memory, memory.tables.hand_value(memory.known), floor)


def _mixed(choices: list[tuple[arena.Action, float]]) -> list[tuple[arena.Action, float]]:
    """The choices with a chance above nothing."""
    return [(action, chance) for action, chance in choices if chance > 0]


def draw(choices: list[tuple[arena.Action, float]], rng: random.Random) -> arena.Action:
    """One action by its probability (a sure one without touching the rng)."""
    if len(choices) == 1:
        return choices[0][0]
    point, total = rng.random() * sum(c for _, c in choices), 0.0
    for action, chance in choices:
        total += chance
        if point < total:
            return action
    return choices[-1][0]
