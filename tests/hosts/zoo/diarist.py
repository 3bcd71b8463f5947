"""Zoo: counts the games of its process. Game 1: chatters on stderr and plays legally. Game 2:
answers its first decision illegally (a challenge where a claim is due), silently. Game 3:
says on stderr that it is about to cheat, then does the same (for the stderr of a fault:
only what the bot wrote in that game)."""

from __future__ import annotations

import sys

import arena
from arena.rules.playout import random_action


class Diarist(arena.Bot):
    name = "zoo-diarist"
    games = 0

    def __init__(self, context: arena.BotContext) -> None:
        super().__init__(context)
        Diarist.games += 1
        self.game = Diarist.games
        self.acted = False
        if self.game == 1:
            print("FIRST GAME CHATTER", file=sys.stderr, flush=True)

    def act(self, observation: arena.Observation) -> arena.Action:
        first, self.acted = not self.acted, True
        if first and self.game > 1 and observation.decision == "claim":
            if self.game == 3:
                print("THIRD GAME: about to cheat", file=sys.stderr, flush=True)
            return arena.Challenge()
        return random_action(observation.legal, self.rng)
