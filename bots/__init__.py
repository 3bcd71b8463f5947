"""arena's built-in bots, registered through the project's own entry point like anyone's."""

from __future__ import annotations

from collections.abc import Callable

import arena
from bots.random_bot import RandomBot


@arena.hookimpl
def register_bots(register: Callable[..., None]) -> None:
    """Register the built-in bots."""
    register(RandomBot)
