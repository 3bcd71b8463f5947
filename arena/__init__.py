"""arena: a referee and tournament runner for Liar's Poker (Póker Mentiroso) bots.

The public API, re-exported: write a bot by subclassing `Bot`, answer with the actions, and
register it with `hookimpl`; play a game with `play_game`. Each name is imported the first
time it is used, so `arena --version` and a bot's own process load only what they use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arena.rules import RULE_SETS, get_rules

if TYPE_CHECKING:
    from arena.bot import Bot, BotContext, GameEnd, Limits
    from arena.hands import Claim, parse_claim
    from arena.hookspecs import hookimpl
    from arena.options import Options
    from arena.referee import GameRecord
    from arena.rules.actions import (
        Accept,
        Action,
        Bid,
        Challenge,
        Choose,
        Look,
        Pass,
        Reroll,
        parse_action,
    )
    from arena.rules.base import Event, Observation, Result
    from arena.rules.legal import Decision, Legal
    from arena.rules.playout import random_action

    Exchange = Reroll

_PUBLIC = {
    "arena.bot": ("Bot", "BotContext", "GameEnd", "Limits"),
    "arena.hands": ("Claim", "parse_claim"),
    "arena.hookspecs": ("hookimpl",),
    "arena.options": ("Options",),
    "arena.referee": ("GameRecord",),
    "arena.rules.actions": ("Accept", "Action", "Bid", "Challenge", "Choose", "Look", "Pass",
                            "Reroll", "parse_action"),
    "arena.rules.base": ("Event", "Observation", "Result"),
    "arena.rules.legal": ("Decision", "Legal"),
    "arena.rules.playout": ("random_action",),
}
_HOME = {name: module for module, names in _PUBLIC.items() for name in names}
_ALIASES = {"Exchange": "Reroll"}  # dice-cards: exchanging cards is the reroll of the cards


def __getattr__(name: str) -> Any:
    """A public name, imported from its module the first time it is asked for."""
    real = _ALIASES.get(name, name)
    if real not in _HOME:
        raise AttributeError(f"module 'arena' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[real]), real)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def play_game(rules: str | Any, players: Sequence[object], seed: int = 0,
              options: Mapping[str, Any] | None = None, limits: Limits | None = None,
              spectator: Callable[[Event], None] | None = None) -> GameRecord:
    """Play one game and return its record. A rule set named by its id is found as every
    command finds it: built in, or registered by an installed plugin. A bot named by a string
    (a registered name, FILE.py[:Class], module:Class, cmd:PROGRAM, with ?key=value options)
    is hosted as every command hosts it: built-ins inline, other bots in their own process;
    Players, Bot classes and factories play as given."""
    from arena import entrants, kept, referee

    ruleset = get_rules(rules) if isinstance(rules, str) else rules
    hosts = kept.KeptHosts()
    try:
        seats = entrants.seat_all(players, hosts=hosts)
        return referee.play_game(ruleset, seats, seed, options, limits, spectator)
    finally:
        hosts.close()


def _installed_rules() -> Mapping[str, Any]:
    """The plugins' rule sets, for the one registry (the rules never import plugins)."""
    from arena.plugins import installed_rules

    return installed_rules()


RULE_SETS.installed = _installed_rules

__version__ = "0.1.0"

__all__ = [
    "Accept", "Action", "Bid", "Bot", "BotContext", "Challenge", "Choose", "Claim", "Decision",
    "Event", "Exchange", "GameEnd", "GameRecord", "Legal", "Limits", "Look", "Observation",
    "Options", "Pass", "Reroll", "Result", "hookimpl", "parse_action", "parse_claim", "play_game",
    "random_action",
]
