"""arena's built-in bots, registered through the project's own entry point like anyone's.

Each class is imported the first time it is asked for (`from arena_bots import Honest`), so
a built-in's own process, which imports its one module (`arena_bots.random_bot`), does not
import every other built-in's module and tables with it."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import arena

if TYPE_CHECKING:
    from arena_bots.bluffer import Bluffer
    from arena_bots.boss import Boss
    from arena_bots.equilibrium import Equilibrium
    from arena_bots.honest import Honest
    from arena_bots.random_bot import RandomBot
    from arena_bots.sparring import Sparring
    from arena_bots.statistician import Statistician

__all__ = ["Bluffer", "Boss", "Equilibrium", "Honest", "RandomBot", "Sparring", "Statistician",
           "register_bots"]

_MODULES = {"Boss": "boss", "Bluffer": "bluffer", "Equilibrium": "equilibrium",
            "Honest": "honest", "RandomBot": "random_bot", "Sparring": "sparring",
            "Statistician": "statistician"}
"""Each built-in class by its module's name, in the order they are registered."""


def __getattr__(name: str) -> Any:
    """A built-in class, its module imported now (PEP 562)."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


@arena.hookimpl
def register_bots(register: Callable[..., None]) -> None:
    """Register the built-in bots."""
    for name in _MODULES:
        register(__getattr__(name))
