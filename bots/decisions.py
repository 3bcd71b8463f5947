"""Answers the built-in bots give alike: the receiver a loser chooses, and a reroll made legal
under the rule options that limit rerolls (`look_must_reroll`, `reroll_once_per: round`)."""

from __future__ import annotations

from collections.abc import Sequence

import arena


def choose_receiver(observation: arena.Observation) -> arena.Choose:
    """The seat with the fewest penalty points (the rival hardest to put out), nearest to the
    left on ties: let the leader face our claim."""
    seats = observation.legal.seats
    players = observation.players
    seat = min(seats, key=lambda s: (observation.scores[s], (s - observation.seat) % players))
    return arena.Choose(seat)


def fit_reroll(legal: arena.Legal, positions: Sequence[int],
               hand: Sequence[int]) -> tuple[int, ...]:
    """The wanted positions that may be rerolled now; when at least one must be and none is
    left, the lowest token that may be (hand: ranks or card numbers, higher is better)."""
    allowed = tuple(p for p in positions if p in legal.rerollable)
    if not allowed and legal.must_reroll and legal.rerollable:
        allowed = (min(legal.rerollable, key=lambda p: (hand[p], p)),)
    return allowed
