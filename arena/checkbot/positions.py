"""Which position a decision puts a bot in, in the words of the checklist: each decision is
one position, the most particular that fits (only a challenge is legal, a reroll of nothing,
a claim after the deck was reshuffled, a turn with face-up cards), else its decision.

Reads an observation only; plays nothing.
"""

from __future__ import annotations

from arena.rules.base import Observation

__all__ = ["PARTICULAR", "position"]

PARTICULAR = {
    "only-challenge": "answers when only a challenge is legal",
    "reroll-of-nothing": "answers a reroll when nothing may be rerolled",
    "after-reshuffle": "plays on after the deck is reshuffled",
    "face-up": "takes a turn with face-up cards",
}
"""The particular positions, each a line of the checklist, in its order."""


def position(observation: Observation, reshuffled: bool = False) -> str:
    """The position of a decision (`reshuffled`: the deck was reshuffled in this round): a
    key of PARTICULAR, else the decision itself."""
    decision, legal = observation.decision, observation.legal
    if decision in ("respond", "accept") and not legal.can_claim():
        return "only-challenge"
    if decision == "reroll" and not legal.rerollable:
        return "reroll-of-nothing"
    if reshuffled:
        return "after-reshuffle"
    if decision == "turn" and any(observation.face_up or ()):
        return "face-up"
    return decision
