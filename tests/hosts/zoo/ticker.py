"""Zoo: at its start, leaves a thread that waits `after` seconds and then writes `TICK` to
stderr: off its turn, as a bot's background work would (a bot frozen between its turns writes
it only once it is asked for something again)."""

from __future__ import annotations

import sys
import threading
import time
from types import MappingProxyType

import arena
from arena.rules.playout import random_action


def tick(after: float) -> None:
    time.sleep(after)
    sys.stderr.write("TICK\n")
    sys.stderr.flush()


class Ticker(arena.Bot):
    name = "zoo-ticker"
    options = MappingProxyType({"after": 0.2})

    def start(self, context: arena.BotContext) -> None:
        threading.Thread(target=tick, args=(self.settings["after"],), daemon=True).start()

    def act(self, observation: arena.Observation) -> arena.Action:
        return random_action(observation.legal, self.rng)
