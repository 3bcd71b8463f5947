"""A test bot that plays randomly but crashes on chosen decisions, to put faults in logs."""

from __future__ import annotations

from collections.abc import Callable

import arena
from arena.rules.playout import random_action


def stumbler(crashes_on: Callable[[int], bool]) -> type[arena.Bot]:
    """A random bot class that raises on the decisions (counted from 1) where `crashes_on`."""

    class Stumbler(arena.Bot):
        """Random, but crashes now and then."""

        name = "stumbler"

        def __init__(self, context: arena.BotContext) -> None:
            super().__init__(context)
            self.decisions = 0

        def act(self, observation: arena.Observation) -> arena.Action:
            self.decisions += 1
            if crashes_on(self.decisions):
                raise RuntimeError("stumbled")
            return random_action(observation.legal, self.rng)

    return Stumbler
