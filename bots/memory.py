"""The built-in bots that remember what their seat sees, on arena's memory of a seat
(`arena.odds.memory`, which the report's chances use too), and their fraction options.
"""

from __future__ import annotations

from arena.bot import Bot, BotContext
from arena.odds import probability
from arena.odds.memory import CentralMemory, RoundMemory, space_of
from arena.rules.base import Event


def fraction_option(bot: str, option: str, value: object) -> float:
    """A bot option that must be a number within 0..1; raise naming it otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{bot}: option {option} must be a number, not {value!r}")
    if not 0 <= value <= 1:
        raise ValueError(f"{bot}: option {option} must be within 0..1, not {value}")
    return float(value)


class Remembering(Bot):
    """Base of the built-in bots that remember what their seat sees: `self.round` in `dice`
    and `dice-cards`, `self.central` in `cards` (the other one is None)."""

    def __init__(self, context: BotContext) -> None:
        super().__init__(context)
        self.space = space_of(context.rules, context.options)
        self.central: CentralMemory | None = None
        self.round: RoundMemory | None = None
        if context.rules == "cards":
            self.central = CentralMemory(context.seat, self.space)
        else:
            self.round = RoundMemory(context.seat, self.space)
        # the odds' tables of this game's rules, once per process (later games find them
        # built), outside every decision's clock: not in prepare(), which knows no rule set,
        # so a dice game's start spares the cards tables (140 ms of CPU) it never reads
        probability.warm_up(self.space)

    def notify(self, event: Event) -> None:
        """Remember what this seat sees."""
        if self.central is not None:
            self.central.notify(event)
        elif self.round is not None:
            self.round.notify(event)
