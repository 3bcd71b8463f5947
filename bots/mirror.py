"""A two-player opponent's mind, as `boss` rebuilds it: what the opponent has seen of the hand,
how far it trusts boss's claims, and so which claims it would challenge.

In a two-player round every hand a seat looks at was last seen by the other seat, so boss
knows the opponent's view exactly (save the cards of a first exchange it never sees). The
opponent is modelled as the statistician: it challenges a claim it believes holds with less
than even odds, else looks and claims its true value or the lowest legal claim.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from arena_bots.statistician import best_reroll

from arena import hands
from arena.odds import probability
from arena.odds.memory import RoundMemory
from arena.rules.base import Event

EVEN = 0.5
"""The opponent challenges a claim it believes holds with less than this chance."""
TRIED = 3
"""How many of the highest believed claims boss weighs (each costs one reroll search)."""
MODELS = ("trusting", "ignoring")
"""Models of the opponent: it reads boss's claims by how far boss has proved honest (the
statistician), or it reads nothing into them (honest)."""
MISSES = 2
"""Wrong predictions of the opponent's answer forgiven before the mirror is doubted."""
MISS_RATE = 0.15
"""Share of wrong predictions beyond which boss stops trusting the mirror."""


class Mirror:
    """The opponent's `RoundMemory`, fed with what its seat saw, and how well it predicts."""

    def __init__(self, seat: int, me: int, space: hands.ClaimSpace) -> None:
        self.seat, self.me, self.space = seat, me, space
        self.view = RoundMemory(seat, space)
        self.predicted: dict[str, bool] = {}
        """For each model of the opponent: whether it would challenge boss's last claim."""
        self.record = {model: [0, 0] for model in MODELS}
        """For each model: [answers it predicted, answers it missed]."""

    def notify(self, event: Event, passed: tuple[int, ...] | None) -> None:
        """Take in a public event; when the opponent looks, it sees the hand boss passed."""
        if event.to is not None:
            return
        if event.seat == self.seat and event.kind in ("look", "challenge", "claim"):
            self._answered(event.kind == "challenge")
            if event.kind == "look" and passed is not None:
                self.view.saw(passed)
        self.view.notify(event)

    def boss_looked(self, hand: tuple[int, ...]) -> None:
        """Boss looked at the hand the opponent passed: the opponent's last view of it."""
        self.view.saw(hand)

    def model(self) -> str | None:
        """The model of the opponent that has predicted its answers best so far (None until
        an answer has told them apart)."""
        margins = {m: self.record[m][0] - self.record[m][1] for m in MODELS}
        best = max(MODELS, key=margins.__getitem__)
        return best if margins[best] > min(margins.values()) else None

    def fits(self) -> bool:
        """Whether some model has predicted the opponent's answers, near enough."""
        model = self.model()
        if model is None:
            return False
        hits, misses = self.record[model]
        return misses <= MISSES + MISS_RATE * (hits + misses)

    def _answered(self, challenged: bool) -> None:
        for model, predicted in self.predicted.items():
            self.record[model][predicted != challenged] += 1
        self.predicted = {}

    def best_claim(self, memory: RoundMemory, value: int, floor: int) -> int:
        """The claim with the best chance to win the round, by the opponent's predicted answer
        (the true value or the lowest claim while no model of the opponent fits)."""
        hand = memory.known
        assert hand is not None
        if not self.fits():  # as the statistician claims, until a model has proved itself
            return max(value, floor)
        model = self.model() or MODELS[0]
        return self._best(hand, value, floor, self.believed(floor, model == "trusting"))

    def predict(self, claim: int, floor: int) -> None:
        """Boss claims `claim`: note whether each model of the opponent would challenge it."""
        top = len(self.space) - 1
        self.predicted = {model: claim == top or self.believed(floor, model == "trusting")[
            claim - floor] < EVEN for model in MODELS}

    def _best(self, hand: tuple[int, ...], value: int, floor: int, chance: list[float]) -> int:
        """Claims ranked: a true one the opponent will challenge (a sure win), then a believed
        one (the less likely the opponent is to beat it, the better), then a false one it
        will challenge (a sure loss); ties to the statistician's claim, a true one, the higher."""
        top = len(self.space) - 1
        plain = max(value, floor)
        rank: dict[int, tuple[int, float]] = {}
        believed: list[int] = []
        for claim in range(floor, top + 1):
            if claim == top or chance[claim - floor] < EVEN:
                rank[claim] = (2 if value >= claim else 0, 0.0)
            else:
                believed.append(claim)
        for claim in {*believed[-TRIED:], *([plain] if plain in believed else [])}:
            rank[claim] = (1, -self._beaten(hand, claim))
        return max(rank, key=lambda c: (rank[c], c == plain, c <= value, c))

    def believed(self, floor: int, reads_claims: bool) -> list[float]:
        """For each claim from `floor` up: the chance the opponent gives it, made by boss now
        (reading boss's claim by how far it trusts boss, or reading nothing into it)."""
        view = self.view
        prior = view.belief()
        if view.evidence:
            prior = probability.posterior(prior, view.evidence, view.honesty.log_odds)
        size = len(prior)
        suffix = [*reversed([*itertools.accumulate(reversed(prior))]), 0.0]
        below = 1 - suffix[floor + 1]
        if not reads_claims:
            return suffix[floor:size]
        trust = 1 / (1 + math.exp(-view.honesty.log_odds.get(self.me, 0.0)))
        slip = probability.HONEST_SLIP / (size - floor)
        out = []
        for claim in range(floor, size):
            other = trust * slip + (1 - trust) * probability.noise_likelihood(claim, floor, size)
            extra = trust * (1 - probability.HONEST_SLIP - slip)
            told = prior[claim] if claim > floor else below
            out.append((other * suffix[claim] + extra * prior[claim]) / (other + extra * told))
        return out

    def _beaten(self, hand: tuple[int, ...], claim: int) -> float:
        """The chance that the opponent, accepting `claim` on `hand`, rerolls (as the
        statistician would) to a true claim above it."""
        target = claim + 1
        view = RoundMemory(self.seat, self.space)
        view.known, view.seen = hand, set(self.view.seen) | set(hand)
        rerolled = best_reroll(view, target)
        kept = tuple(t for i, t in enumerate(hand) if i not in rerolled)
        return _reach(view, kept, target)


def _reach(view: RoundMemory, kept: Sequence[int], target: int) -> float:
    """Chance the kept tokens, rerolled up to five, are worth at least `target`."""
    tables = view.tables
    if isinstance(tables, probability.DiceTables):
        return tables.reach[tuple(sorted(kept))][target]
    return tables.draw_score(kept, view.pool(), target, _ONES)


_ONES = (1.0,) * 400
