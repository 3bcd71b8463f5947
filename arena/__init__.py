"""arena: a referee and tournament runner for Liar's Poker (Póker Mentiroso) bots.

The public API, re-exported: write a bot by subclassing `Bot`, answer with the actions, and
register it with `hookimpl`; play a game with `play_game`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.bot import Bot, BotContext, GameEnd, Limits
from arena.hands import Claim, parse_claim
from arena.hookspecs import hookimpl
from arena.options import Options
from arena.referee import GameRecord
from arena.rules import RULE_SETS, get_rules
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


def play_game(rules: str | Any, players: Sequence[object], seed: int = 0,
              options: Mapping[str, Any] | None = None, limits: Limits | None = None,
              spectator: Callable[[Event], None] | None = None) -> GameRecord:
    """Play one game and return its record. A rule set named by its id is found as every
    command finds it: built in, or registered by an installed plugin. A bot named by a string
    (a registered name, FILE.py[:Class], module:Class, cmd:PROGRAM, with ?key=value options)
    is hosted as every command hosts it: built-ins inline, other bots in their own process;
    Players, Bot classes and factories play as given."""
    from arena import entrants, referee

    ruleset = get_rules(rules) if isinstance(rules, str) else rules
    hosts = entrants.KeptHosts()
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

Exchange = Reroll  # dice-cards: exchanging cards is the reroll of the card variation

__version__ = "0.1.0"

__all__ = [
    "Accept", "Action", "Bid", "Bot", "BotContext", "Challenge", "Choose", "Claim", "Decision",
    "Event", "Exchange", "GameEnd", "GameRecord", "Legal", "Limits", "Look", "Observation",
    "Options", "Pass", "Reroll", "Result", "hookimpl", "parse_action", "parse_claim", "play_game",
    "random_action",
]
