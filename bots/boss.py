"""The `boss` bot: the statistician's odds, plus a model of the statistician's own mind.

Deterministic, no memory beyond the game, within a few milliseconds a decision. See `Boss`.
"""

from __future__ import annotations

from types import MappingProxyType

from arena_bots import probability
from arena_bots.decisions import choose_receiver
from arena_bots.memory import CentralMemory, Remembering, RoundMemory, tokens
from arena_bots.mirror import Mirror
from arena_bots.statistician import best_pass, best_reroll

import arena
from arena.bot import BotContext
from arena.rules.base import Event

DOUBT = MappingProxyType({"dice": 0.55, "dice-cards": 0.5, "cards": 0.1})
"""Below this chance that a claim holds, boss challenges (rejects), by rule set, as measured
by `arena compare` against the statistician: in `cards` accepting is worth far more than
it looks (the taker picks the best 5 of 10 cards), in `dice` a little less."""
TABLE_DOUBT = MappingProxyType({"dice": 0.45})
"""The same, at `dice` tables of three or more, where boss keeps no mirror (measured so too)."""


class Boss(Remembering):
    """Plays the statistician's odds, and bluffs where its model of the opponent says it pays.

    How it plays. Everything the statistician knows, it knows the same way (`bots.memory`).
    On top of that, in two-player `dice` and `dice-cards` it keeps a mirror of its opponent's
    mind (`bots.mirror`): the hand the opponent last saw, what it has seen of boss's claims,
    and so how much it trusts them. Before each claim it asks the mirror, for every legal
    claim, whether the opponent would challenge it; a true claim that will be challenged wins
    the round, a bluff that will be believed leaves the opponent to beat a claim its hand does
    not reach. When the opponent's answers stop matching the mirror, it claims as the
    statistician does. It challenges below a lower threshold than the statistician's
    (`DOUBT`), and in `cards` passes the best central hand, as the statistician does.
    """

    name = "boss"
    rules = ("dice", "dice-cards", "cards")
    description = "The statistician's odds, plus a model of its opponent's trust: bluffs that pay."

    def __init__(self, context: BotContext) -> None:
        super().__init__(context)
        self.doubt = DOUBT.get(context.rules, 0.5)
        if context.players > 2:
            self.doubt = TABLE_DOUBT.get(context.rules, self.doubt)
        self.mirror: Mirror | None = None
        self.looking = False
        """Whether boss has just looked, so the hand it sees next is the opponent's view."""
        if self.round is not None and context.players == 2:
            self.mirror = Mirror(1 - context.seat, context.seat, self.space)

    def notify(self, event: Event) -> None:
        """Remember what this seat sees, and what the opponent's seat must have seen."""
        super().notify(event)
        if self.mirror is not None and self.round is not None:
            self.mirror.notify(event, self.round.known)

    def act(self, observation: arena.Observation) -> arena.Action:
        """Decide by the odds, and, when claiming, by the mirror."""
        if self.central is not None:
            return self._central_hand(observation, self.central)
        assert self.round is not None
        return self._round(observation, self.round)

    # --- dice and dice-cards -------------------------------------------------------------

    def _round(self, observation: arena.Observation, memory: RoundMemory) -> arena.Action:
        legal = observation.legal
        if observation.hand is not None:
            memory.saw(tokens(observation.hand, memory.cards))
            if self.looking and self.mirror is not None:
                self.mirror.boss_looked(memory.known)
            self.looking = False
        if legal.decision == "respond":
            claim = probability.claim_index(self.space, observation.claim)
            if not legal.can_claim() or memory.holds(claim) < self.doubt:
                return arena.Challenge()
            self.looking = True
            return arena.Look()
        assert memory.known is not None
        if legal.decision == "choose":
            return choose_receiver(observation)
        if legal.decision == "reroll":
            return arena.Reroll(best_reroll(memory, legal.min_index, legal))
        return arena.Bid(self.space.claims[self._claim(memory, legal.min_index)])

    def _claim(self, memory: RoundMemory, floor: int) -> int:
        """The claim to make: the mirror's best, or the statistician's (true value or lowest)."""
        assert memory.known is not None
        value = memory.tables.hand_value(memory.known)
        if self.mirror is None:
            return max(value, floor)
        return self.mirror.best_claim(memory, value, floor)

    # --- cards ---------------------------------------------------------------------------

    def _central_hand(self, observation: arena.Observation, memory: CentralMemory) -> arena.Action:
        legal = observation.legal
        if legal.decision == "accept":
            if not legal.can_claim():
                return arena.Challenge()
            claim = probability.claim_index(self.space, observation.claim)
            holds = memory.holds(observation, claim)
            return arena.Challenge() if holds < self.doubt else arena.Accept()
        return best_pass(observation, memory.tables, keep_private=True)

