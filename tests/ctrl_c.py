"""A test bot that plays randomly and, when its environment asks, presses Ctrl-C as a game
ends: with ARENA_TEST_CTRL_C="N PATH" it counts the games it has ended in the file PATH and
sends SIGINT to its own process at the N-th. Run inline, that is the referee's process, as a
user's Ctrl-C would be; unset, it is a plain random bot."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import arena
from arena.rules.playout import random_action

ARMED = "ARENA_TEST_CTRL_C"


class CtrlC(arena.Bot):
    """Random; presses Ctrl-C as its N-th game ends when armed."""

    name = "ctrl-c"

    def act(self, observation: arena.Observation) -> arena.Action:
        return random_action(observation.legal, self.rng)

    def end(self, result: arena.GameEnd) -> None:
        armed = os.environ.get(ARMED)
        if not armed:
            return
        at, _, count_file = armed.partition(" ")
        ends = Path(count_file)
        with ends.open("a", encoding="utf-8") as out:
            out.write("end\n")
        if len(ends.read_text(encoding="utf-8").splitlines()) == int(at):
            os.kill(os.getpid(), signal.SIGINT)


def armed(at: int, count_file: Path) -> str:
    """The value of ARENA_TEST_CTRL_C that interrupts as the `at`-th game ends."""
    return f"{at} {count_file}"
