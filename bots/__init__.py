"""arena's built-in bots, registered through the project's own entry point like anyone's."""

from __future__ import annotations

from collections.abc import Callable

from arena_bots.bluffer import Bluffer
from arena_bots.boss import Boss
from arena_bots.equilibrium import Equilibrium
from arena_bots.honest import Honest
from arena_bots.random_bot import RandomBot
from arena_bots.sparring import Sparring
from arena_bots.statistician import Statistician

import arena


@arena.hookimpl
def register_bots(register: Callable[..., None]) -> None:
    """Register the built-in bots."""
    for bot in (Boss, Bluffer, Equilibrium, Honest, RandomBot, Sparring, Statistician):
        register(bot)
