"""The `honest` bot: claims only what it knows it has, and challenges what it finds unlikely.

Its rules of thumb for rerolls (`plain_reroll`) are shared with `bluffer`. It learns from
`arena.odds.memory` what its seat has seen; it must not read anything into the claims themselves
(that is the statistician's job), must not lie except with the lowest legal claim when it
has to, and uses no randomness.
"""

from __future__ import annotations

from collections import Counter

from arena_bots.decisions import choose_receiver, fit_reroll
from arena_bots.memory import Remembering
from arena_bots.statistician import best_central, swaps_for

import arena
from arena.hands import Category
from arena.odds import probability
from arena.odds.memory import CentralMemory, tokens
from arena.odds.probability import CardTables, DiceTables

DOUBT = 0.5
"""Honest challenges a claim when the chance that it holds, from what it has seen, is below."""
_MADE = {
    "dice": (Category.STRAIGHT, Category.FULL, Category.FOUR, Category.FIVE),
    "cards": (Category.STRAIGHT, Category.FLUSH, Category.FULL, Category.FOUR,
              Category.STRAIGHT_FLUSH),
}


class Honest(Remembering):
    """Never claims more than it knows it has, when it can; challenges what looks unlikely.

    How it plays. With the hand in view it claims the hand's true value when that is
    legal, else the lowest legal claim (the only lie it tells, and only when it must). It
    challenges (rejects) a claim when the chance that it holds, worked out from what it has
    seen (the dice or cards it looked at and how many were rerolled or swapped since), is
    below one half; it reads nothing into the claim itself. Otherwise it looks (it never
    passes blind) or accepts. Rerolls by rule of thumb: nothing when the hand already beats
    the claim (or, with no claim yet, is a straight or better); else it keeps every die or
    card that pairs up, or else four cards of one suit, or else the four best dice or the
    best card, and rerolls (exchanges) the rest. In `cards` it puts the best 5 of its 10
    cards in the central hand, claims their value (or the lowest legal claim) and reveals
    nothing.
    """

    name = "honest"
    rules = ("dice", "dice-cards", "cards")
    description = "Claims its true value when legal; challenges what its knowledge makes unlikely."

    def act(self, observation: arena.Observation) -> arena.Action:
        """Tell the truth when possible; doubt what its own knowledge makes unlikely."""
        legal = observation.legal
        if self.central is not None:
            if legal.decision == "accept":
                return self._accept(observation, self.central)
            own = tokens(observation.hand or (), cards=True)
            central = tokens(observation.central or (), cards=True)
            chosen, value = best_central(own, central, self.central.tables, keep_private=False)
            claim = self.space.claims[max(value, legal.min_index)]
            return arena.Pass(claim, swaps_for(own, central, chosen))
        memory = self.round
        assert memory is not None
        if legal.decision == "respond":
            assert observation.claim is not None  # a claim is what it responds to
            index = probability.claim_index(self.space, observation.claim)
            if not legal.can_claim() or memory.holds(index, use_claims=False) < DOUBT:
                return arena.Challenge()
            return arena.Look()
        hand = tokens(observation.hand or (), memory.cards)
        if legal.decision == "choose":
            return choose_receiver(observation)
        if legal.decision == "reroll":
            wanted = plain_reroll(hand, memory.tables, legal.min_index)
            return arena.Reroll(fit_reroll(legal, wanted, hand))
        value = memory.tables.hand_value(hand)
        return arena.Bid(self.space.claims[max(value, legal.min_index)])

    def _accept(self, observation: arena.Observation, memory: CentralMemory) -> arena.Action:
        if not observation.legal.can_claim():
            return arena.Challenge()
        assert observation.claim is not None  # a claim is what it accepts or rejects
        index = probability.claim_index(self.space, observation.claim)
        if memory.holds(observation, index, use_claims=False) < DOUBT:
            return arena.Challenge()
        return arena.Accept()


def plain_reroll(hand: tuple[int, ...], tables: DiceTables | CardTables,
                 target: int) -> tuple[int, ...]:
    """Positions to reroll by rule of thumb: none when the hand beats the target (or, with no
    claim to beat, is a straight or better); else keep whatever pairs up, or else four of a
    suit (cards) or the four best dice, or else the best card, and reroll the rest."""
    value = tables.hand_value(hand)
    cards = isinstance(tables, CardTables)
    made = tables.space.claims[value].category in _MADE["cards" if cards else "dice"]
    if (target > 0 and value >= target) or (target == 0 and made):
        return ()
    ranks = [t >> 2 for t in hand] if cards else list(hand)
    counts = Counter(ranks)
    keep = {p for p, r in enumerate(ranks) if counts[r] >= 2}
    if not keep and cards:
        suits = Counter(t & 3 for t in hand)
        suit, number = max(suits.items(), key=lambda item: (item[1], item[0]))
        keep = {p for p, t in enumerate(hand) if t & 3 == suit} if number >= 4 else set()
    if not keep:  # 5 dice: the four best (all but the lowest die of a smaller hand too)
        order = sorted(range(len(hand)), key=lambda p: (ranks[p], p), reverse=True)
        keep = set(order[: 1 if cards else len(hand) - 1])
    return tuple(p for p in range(len(hand)) if p not in keep)
