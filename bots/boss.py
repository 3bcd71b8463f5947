"""The `boss` bot: the statistician's odds, plus a model of the statistician's own mind.

Deterministic, no memory beyond the game, within a few milliseconds a decision. See `Boss`.
"""

from __future__ import annotations

from types import MappingProxyType

from arena_bots.mirror import Mirror
from arena_bots.statistician import Statistician

import arena
from arena.bot import BotContext
from arena.odds.memory import RoundMemory, tokens
from arena.rules.base import Event

DOUBT = MappingProxyType({"dice": 0.55, "dice-cards": 0.5, "cards": 0.1})
"""Below this chance that a claim holds, boss challenges (rejects), by rule set, as measured
by `arena compare` against the statistician: in `cards` accepting is worth far more than
it looks (the taker picks the best 5 of 10 cards), in `dice` a little less."""
TABLE_DOUBT = MappingProxyType({"dice": 0.45})
"""The same, at `dice` tables of three or more, where boss keeps no mirror (measured so too)."""


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
    """

    name = "boss"
    rules = ("dice", "dice-cards", "cards")
    description = "The statistician's odds, plus a model of its opponent's trust: bluffs that pay."
    options = MappingProxyType({})

    def __init__(self, context: BotContext) -> None:
        super().__init__(context)
        self.mirror: Mirror | None = None
        self.looking = False
        """Whether boss has just looked, so the hand it sees next is the opponent's view."""
        if self.round is not None and context.players == 2:
            self.mirror = Mirror(1 - context.seat, context.seat, self.space)

    def _threshold(self, context: BotContext) -> float:
        """Boss's measured threshold for this rule set and table size."""
        doubt = DOUBT.get(context.rules, 0.5)
        return TABLE_DOUBT.get(context.rules, doubt) if context.players > 2 else doubt

    def notify(self, event: Event) -> None:
        """Remember what this seat sees, and what the opponent's seat must have seen."""
        super().notify(event)
        if self.mirror is not None and self.round is not None:
            self.mirror.notify(event, self.round.known)

    def act(self, observation: arena.Observation) -> arena.Action:
        """Decide as the statistician, but claim by the mirror; after a look, the hand boss
        sees is the opponent's last view of it."""
        seen = observation.hand
        if self.looking and seen is not None and self.mirror is not None and self.round:
            self.mirror.boss_looked(tokens(seen, self.round.cards))
        action = super().act(observation)
        self.looking = isinstance(action, arena.Look)
        return action

    def _bid(self, memory: RoundMemory, floor: int) -> int:
        """The mirror's best claim, or the statistician's (true value or lowest) without one."""
        if self.mirror is None:
            return super()._bid(memory, floor)
        assert memory.known is not None
        return self.mirror.best_claim(memory, memory.tables.hand_value(memory.known), floor)
