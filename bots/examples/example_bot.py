#!/usr/bin/env python3
"""An example bot speaking arena's JSON-lines protocol (docs/protocol.md), standard library only.

Run it with `arena` as a command bot, e.g. `CommandHost(["python3", "example_bot.py"])`.
It plays exactly like example_bot.js (same strategy, same random generator), so the two
can be checked against each other. Not imported by arena: it is a template to copy.

Strategy: as the thrower, or after looking, claim the lowest legal claim; when a claim
comes to it, challenge if the claimant has already claimed twice this round (read from the
round's history), else one time in three, otherwise look (dice) or accept (cards); reroll
the dice (or exchange the cards) whose rank appears only once, among those the rule options
leave it (`legal.rerollable`; at least one when `legal.must_reroll`); as a loser choosing the
receiver (`receiver: loser_chooses`), the seat with the most points, nearest to its left.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

PROTOCOL = 2
MASK = 0xFFFFFFFF


def mulberry32(seed: int) -> Callable[[], float]:
    """A tiny seeded generator, the same in every language: returns floats in [0, 1)."""
    state = seed & MASK

    def draw() -> float:
        nonlocal state
        state = (state + 0x6D2B79F5) & MASK
        t = ((state ^ (state >> 15)) * (1 | state)) & MASK
        t = ((t + (((t ^ (t >> 7)) * (61 | t)) & MASK)) & MASK) ^ t
        return ((t ^ (t >> 14)) & MASK) / 4294967296

    return draw


def seed_of(seed: int) -> int:
    """Fold the 53-bit seed from `start` into 32 bits."""
    return (seed % 4294967296) ^ (seed // 4294967296)


class ExampleBot:
    """The bot's state for one game."""

    def __init__(self, context: dict[str, Any]) -> None:
        self.seat = context["seat"]
        self.random = mulberry32(seed_of(context["seed"]))
        self.events: list[dict[str, Any]] = []  # every event of this game, in order

    def history(self, observation: dict[str, Any]) -> list[dict[str, Any]]:
        """This round's public events: those sent from `history_from` on, without the private
        ones (protocol 2 points into the events instead of repeating them)."""
        return [e for e in self.events[observation["history_from"]:] if "to" not in e]

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        """Choose an action from what the observation says is legal."""
        legal = observation["legal"]
        decision, lowest = legal["decision"], legal["min_claim"]
        if decision == "claim":
            return {"type": "bid", "claim": lowest}
        if decision in ("respond", "accept"):
            claimant = observation["claimant"]
            raised = sum(1 for e in self.history(observation)
                         if e.get("seat") == claimant and "claim" in e)
            if lowest is None or raised >= 2 or self.random() < 1 / 3:
                return {"type": "challenge"}
            return {"type": "look" if decision == "respond" else "accept"}
        if decision == "reroll":
            return {"type": "reroll", "positions": self.reroll(observation)}
        if decision == "choose":
            return {"type": "choose", "seat": self.receiver(observation)}
        if decision == "turn":
            return {"type": "pass", "claim": lowest, "swaps": [], "reveal": []}
        return {"type": "challenge"}


    def reroll(self, observation: dict[str, Any]) -> list[int]:
        """The positions whose rank appears once, among those that may be rerolled now."""
        legal = observation["legal"]
        ranks = [face[0] for face in observation["hand"]]
        may = legal.get("rerollable", [0, 1, 2, 3, 4])
        positions = [i for i, r in enumerate(ranks) if ranks.count(r) == 1 and i in may]
        if not positions and legal.get("must_reroll") and may:
            positions = [may[0]]
        return positions

    def receiver(self, observation: dict[str, Any]) -> int:
        """The seat with the most points among those it may choose, nearest to its left."""
        scores, players = observation["scores"], len(observation["scores"])
        return min(observation["legal"]["seats"],
                   key=lambda s: (-scores[s], (s - self.seat) % players))


def send(message: dict[str, Any]) -> None:
    """One JSON object per line, flushed at once."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    """Answer the referee until it says shutdown or closes our input."""
    bot: ExampleBot | None = None
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "hello", "protocol": PROTOCOL, "name": "example-py"})
        elif kind == "start":
            bot = ExampleBot(message["context"])
            send({"type": "ready"})
        elif kind == "event" and bot is not None:
            bot.events.append(message["event"])
        elif kind == "act":
            assert bot is not None, "act before start"
            action = bot.act(message["observation"])
            send({"type": "action", "turn": message["turn"], "action": action})
        elif kind == "end":
            bot = None
            send({"type": "done"})
        elif kind == "shutdown":
            break
        # events and unknown types need no reply


if __name__ == "__main__":
    main()
