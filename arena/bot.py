"""What a bot is: the `Bot` base class and the context it is built with.

A bot sees only immutable values: its `BotContext`, `Observation`s and public `Event`s. It
never receives the game state, the referee, or another bot. This module must not import the
referee or the tournament layer.
"""

from __future__ import annotations

import _thread
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from arena import rules as rule_sets
from arena.limits import Limits
from arena.options import NO_OPTIONS, Options
from arena.rules.actions import Action
from arena.rules.base import Description, Event, Observation, Result

__all__ = ["ALL_RULES", "Bot", "BotContext", "GameEnd", "Limits",  # Limits: from arena.limits
           "prepare"]

ALL_RULES = rule_sets.BUILTIN_IDS
"""The built-in rule sets' ids: what a bot plays unless it says otherwise."""


@dataclass(frozen=True, slots=True)
class BotContext:
    """Everything a bot is built with: its seat, the game's rules, limits and its own rng.

    `description` says what the rule set is (hand kind, score word, decisions); it is filled
    in for a built-in rule set when not given."""

    seat: int
    players: int
    rules: str
    options: Options
    limits: Limits
    rng: random.Random = field(compare=False)
    bot_options: Options = NO_OPTIONS
    names: tuple[str, ...] = ()
    description: Description | None = None

    def __post_init__(self) -> None:
        if self.description is None and self.rules in rule_sets.BUILTIN_IDS:
            object.__setattr__(self, "description", rule_sets.RULESETS[self.rules].description)


@dataclass(frozen=True, slots=True)
class GameEnd:
    """What a bot learns when the game ends: the result and its own place."""

    result: Result
    seat: int

    @property
    def place(self) -> int:
        """This bot's place (1 is best)."""
        return self.result.placements[self.seat]


class Bot:
    """Base class for bots: override `act`; `start`, `notify` and `end` are optional.

    Class attributes describe the bot for `arena bots`: `name` (unique), `rules` (the rule
    sets it can play), `description` (one line; default: the docstring's first line), and
    `options` (bot options it accepts, with defaults; set per entrant in a tournament config).
    """

    name: ClassVar[str] = ""
    rules: ClassVar[tuple[str, ...]] = ALL_RULES
    description: ClassVar[str] = ""
    options: ClassVar[Mapping[str, Any]] = MappingProxyType({})

    def __init__(self, context: BotContext) -> None:
        self.context = context
        self.seat = context.seat
        self.rng = context.rng
        unknown = sorted(set(context.bot_options) - set(self.options))
        if unknown:
            known = ", ".join(sorted(self.options)) or "none"
            raise ValueError(f"{self.name}: unknown bot option {unknown[0]!r} (known: {known})")
        self.settings: dict[str, Any] = {**self.options, **context.bot_options}

    @classmethod
    def prepare(cls) -> None:
        """Called once per process, before this class's first game and outside every time
        limit (in a bot's own process, under the start-up timeout): build here, not at
        import, what every game only reads (tables, a model), so no decision waits for it."""

    def start(self, context: BotContext) -> None:
        """Called once before the first decision (the context is also on `self.context`)."""

    def act(self, observation: Observation) -> Action:
        """Return the action for this decision; `observation.legal` says what is allowed."""
        raise NotImplementedError(f"{type(self).__name__} must implement act(observation)")

    def notify(self, event: Event) -> None:
        """Called for every public event, and for this seat's own private ones."""

    def end(self, result: GameEnd) -> None:
        """Called once when the game is over."""

    @classmethod
    def summary(cls) -> str:
        """The one-line description shown by `arena bots`."""
        if cls.description:
            return cls.description
        doc = (cls.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else ""


_PREPARED: set[type[Bot]] = set()
"""The bot classes whose prepare() has run in this process."""
_PREPARING = _thread.allocate_lock()  # threading.Lock, without importing threading (3M)


def prepare(factory: object) -> None:
    """Run a bot class's prepare() the first time this process hosts it (a factory that is no
    Bot class has none); one that raised is asked again before its next game."""
    if not (isinstance(factory, type) and issubclass(factory, Bot)) or factory in _PREPARED:
        return
    with _PREPARING:  # two threads starting its first games wait for one prepare()
        if factory not in _PREPARED:
            factory.prepare()
            _PREPARED.add(factory)
