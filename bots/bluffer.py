"""The `bluffer` bot: claims well above what it has and rarely challenges.

It learns from `arena.odds.memory` what its seat has seen and rerolls by `honest`'s rules of thumb.
Its randomness must come only from the bot's own generator (`self.rng`), so that a seed
replays it exactly.
"""

from __future__ import annotations

from types import MappingProxyType

from arena_bots.decisions import choose_receiver, fit_reroll
from arena_bots.honest import plain_reroll
from arena_bots.memory import Remembering, fraction_option
from arena_bots.statistician import best_central, swaps_for

import arena
from arena.bot import BotContext
from arena.hands import ClaimSpace
from arena.odds import probability
from arena.odds.memory import CentralMemory, tokens


class Bluffer(Remembering):
    """Claims well above what it has; challenges only what it is nearly sure is false.

    How it plays. Whenever it claims, it takes the value it holds (or the claim it must
    beat, if that is higher), climbs one category (sometimes two: from a pair to two
    pairs or three of a kind, and so on) and a few random steps more, and claims that.
    It challenges (rejects) only when no higher claim exists or when the chance that the
    claim holds, from what it has seen, is below its `doubt` option (default 0.05). It
    looks at the dice three times in four and otherwise passes blind with a claim a few
    steps up. Rerolls like `honest`: keeps what pairs up. In `cards` it puts the best 5 of
    its 10 cards in the central hand, overstates them the same way and reveals nothing.
    """

    name = "bluffer"
    rules = ("dice", "dice-cards", "cards")
    description = "Claims well above what it has; challenges only near-certain lies."
    options = MappingProxyType({"doubt": 0.05})

    def __init__(self, context: BotContext) -> None:
        super().__init__(context)
        self.doubt = fraction_option(self.name, "doubt", self.settings["doubt"])

    def act(self, observation: arena.Observation) -> arena.Action:
        """Overstate the hand; doubt only near-certain lies."""
        legal = observation.legal
        if self.central is not None:
            return self._central_hand(observation, self.central)
        memory = self.round
        assert memory is not None
        if legal.decision == "respond":
            assert observation.claim is not None  # a claim is what it responds to
            index = probability.claim_index(self.space, observation.claim)
            if not legal.can_claim() or memory.holds(index, use_claims=False) < self.doubt:
                return arena.Challenge()
            if self.rng.random() < 0.75:
                return arena.Look()
            step = self.rng.randint(0, 3)
            return arena.Bid(self.space.claims[min(len(self.space) - 1, legal.min_index + step)])
        hand = tokens(observation.hand or (), memory.cards)
        if legal.decision == "choose":
            return choose_receiver(observation)
        if legal.decision == "reroll":
            wanted = plain_reroll(hand, memory.tables, legal.min_index)
            return arena.Reroll(fit_reroll(legal, wanted, hand))
        value = memory.tables.hand_value(hand)
        return arena.Bid(self.space.claims[self._overstate(value, legal.min_index)])

    def _central_hand(self, observation: arena.Observation, memory: CentralMemory) -> arena.Action:
        legal = observation.legal
        if legal.decision == "accept":
            assert observation.claim is not None  # a claim is what it accepts or rejects
            index = probability.claim_index(self.space, observation.claim)
            if not legal.can_claim() or memory.holds(observation, index, False) < self.doubt:
                return arena.Challenge()
            return arena.Accept()
        own = tokens(observation.hand or (), cards=True)
        central = tokens(observation.central or (), cards=True)
        chosen, value = best_central(own, central, memory.tables, keep_private=False)
        claim = self.space.claims[self._overstate(value, legal.min_index)]
        return arena.Pass(claim, swaps_for(own, central, chosen))

    def _overstate(self, value: int, floor: int) -> int:
        lift = self.rng.choice((1, 1, 2))
        steps = self.rng.randint(0, 3)
        return min(len(self.space) - 1, max(lifted(self.space, value, lift) + steps, floor))


def lifted(space: ClaimSpace, value: int, categories: int) -> int:
    """The lowest claim `categories` categories above the value's (or the top claim)."""
    index = value
    for _ in range(categories):
        category = space.claims[index].category
        while index < len(space) - 1 and space.claims[index].category == category:
            index += 1
    return index
