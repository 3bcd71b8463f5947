"""The `random` bot: uniformly random decisions among legal actions, weighted to finish."""

from __future__ import annotations

import arena


class RandomBot(arena.Bot):
    """Plays a random legal action; claims stay near the lowest legal one so games finish.

    How it plays: challenges about a third of the time when it may; otherwise looks (dice) or
    accepts (cards); rerolls each die with probability 1/2; claims step up from the lowest
    legal claim with probability 0.6 per step; in `cards` swaps 0-3 random cards and rarely
    reveals one. A baseline every other bot should beat.
    """

    name = "random"
    rules = ("dice", "dice-cards", "cards")

    def act(self, observation: arena.Observation) -> arena.Action:
        """Sample a legal action with this bot's own generator."""
        return arena.random_action(observation.legal, self.rng)
