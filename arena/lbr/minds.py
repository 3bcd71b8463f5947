"""The opponent's mind as the local best response asks it: its probability of each action,
and copies of it that change nothing of the original."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from arena import hands
from arena.bot import Bot
from arena.odds import probability
from arena.rules.actions import Action
from arena.rules.base import Observation


def opponent_strategy(bot: Bot, observation: Observation) -> list[tuple[Action, float]]:
    """The opponent's probability of each action: its `strategy(observation)` (pairs of
    action and probability, as `boss` gives them, or a mapping) when it has one, else the
    one action it plays."""
    strategy = getattr(bot, "strategy", None)
    if callable(strategy):
        said = strategy(observation)
        pairs = said.items() if isinstance(said, Mapping) else said
        return [(a, float(p)) for a, p in pairs if p > 0]
    return [(bot.act(observation), 1.0)]


class Copier:
    """Copies of bots' minds, sharing only what a bot never changes: its context, its
    generator (a deterministic bot never draws; a mixed one is asked through `strategy`),
    and the read-only values it holds (claim spaces, odds tables, read-only mappings)."""

    def __init__(self) -> None:
        self.shared: dict[int, Any] = {}

    def copy(self, bot: Bot) -> Bot:
        """A copy of the bot that changes nothing of the original as it plays on."""
        if id(bot.context) in self.shared:
            try:
                return copy.deepcopy(bot, dict(self.shared))
            except TypeError:  # it holds a read-only value not met before
                pass
        _read_only(bot, self.shared)
        self.shared.update({id(bot.context): bot.context, id(bot.rng): bot.rng})
        return copy.deepcopy(bot, dict(self.shared))


_ATOMS = (int, float, str, bytes, bool, type(None), range)


def _read_only(root: object, found: dict[int, Any]) -> dict[int, Any]:
    """Every value under `root` that deepcopy refuses (and that a bot cannot change)."""
    seen: set[int] = set()
    todo = [root]
    while todo:
        item = todo.pop()
        if id(item) in seen or isinstance(item, _ATOMS) or id(item) in found:
            continue
        seen.add(id(item))
        if isinstance(item, MappingProxyType | hands.ClaimSpace | probability.DiceTables
                      | probability.CardTables):
            found[id(item)] = item
        elif isinstance(item, dict):
            todo += [*item.keys(), *item.values()]
        elif isinstance(item, list | tuple | set | frozenset):
            todo += list(item)
        elif hasattr(item, "__dict__"):
            todo += list(vars(item).values())
    return found
