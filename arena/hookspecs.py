"""The only hookspec module: how plugins add bots (and, if they wish, rule sets and
tournament formats) to arena.

A plugin is a module with `@arena.hookimpl` functions, named by an entry point of the group
`arena` in its distribution (`[project.entry-points.arena] mybots = "mybots"`). Hooks run once
at start-up to fill registries; games never call plugins per move.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("arena")
hookimpl = pluggy.HookimplMarker("arena")


@hookspec
def register_bots(register: Callable[..., None]) -> None:
    """Register bot classes: call ``register(BotClass)`` once per bot.

    Called once when the bot registry is built. ``BotClass`` is a subclass of ``arena.Bot``
    whose class attributes give its ``name``, ``rules`` and description; ``register`` also
    takes ``name=`` to register the same class under another name. Nothing is returned.
    """


@hookspec
def register_rules(register: Callable[[Any], None]) -> None:
    """Register extra rule sets: call ``register(ruleset)`` with an object implementing
    ``arena.rules.base.RuleSet``, with a unique ``id`` and a ``description``
    (``arena.rules.base.Description``: hand kind, score word, decisions, what is private), which
    is what arena's narrator, codec, report and viewer read. Called once at start-up; e.g.
    ``register(DiceRules(cards=False, id="dice-short", defaults={"max_points": 2}))``.
    """


@hookspec
def register_formats(register: Callable[[Any], None]) -> None:
    """Register extra tournament formats: call ``register(fmt)`` with an instance of a
    subclass of ``arena.tournament.formats.base.Format`` whose ``type`` (the config's
    ``format.type``) no other format has. Called once at start-up.
    """
