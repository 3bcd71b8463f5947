"""ben.py: a student's bot, the improved bot of docs/tutorial.md (the odds of a claim)."""

from __future__ import annotations

import bisect
import functools
import itertools
from collections import Counter

import arena
from arena.hands import value


@functools.cache
def throws(order: bool) -> list[arena.Claim]:
    """The values of all 7,776 throws of five dice, lowest first."""
    return sorted(value(" ".join(dice), order) for dice in itertools.product("9TJQKA", repeat=5))


def odds(claim: arena.Claim, order: bool) -> float:
    """The chance that a fresh throw of five dice holds the claim."""
    values = throws(order)
    return 1 - bisect.bisect_left(values, claim) / len(values)


class OddsBot(arena.Bot):
    """Tells the truth when it can; challenges a claim few throws would hold."""

    name = "odds-bot"
    rules = ("dice",)
    options = {"doubt_below": 0.05}  # noqa: RUF012  # challenge a claim held by fewer throws than this

    def act(self, obs: arena.Observation) -> arena.Action:
        order = self.context.options["straight_over_full"]
        if obs.decision == "respond":  # a claim came to us: challenge, or look at the hand
            if not obs.legal.can_claim() or odds(obs.claim, order) < self.settings["doubt_below"]:
                return arena.Challenge()
            return arena.Look()
        if obs.decision == "choose":  # only with the rule option receiver: loser_chooses
            return arena.Choose(obs.legal.seats[0])  # who receives our claim
        mine = value(" ".join(obs.hand), order)  # e.g. "K A Q 9 K"
        if obs.decision == "reroll":  # keep what pairs up, unless the hand is good enough
            if mine >= obs.min_claim and not obs.legal.must_reroll:
                return arena.Reroll(())
            counts = Counter(obs.hand)
            free = obs.legal.rerollable  # all five, unless rule options forbid some
            lonely = tuple(i for i in free if counts[obs.hand[i]] == 1)
            return arena.Reroll(lonely or free[:1])  # the lonely dice, else one (if free)
        return arena.Bid(max(mine, obs.min_claim))  # "claim": the truth, or the lowest legal
