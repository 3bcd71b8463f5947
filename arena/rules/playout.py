"""Random legal play: a sampler over `Legal` (public as `arena.random_action`, the `random`
bot's play), and whole random games, for tests and benchmarks.

PURE: the generator is passed in.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass

from arena.hands import ClaimSpace
from arena.rules.actions import Accept, Action, Bid, Challenge, Choose, Look, Pass, Reroll
from arena.rules.base import CHANCE, TERMINAL, RuleSet
from arena.rules.legal import Legal

# Steps above the lowest legal claim, geometric with p = 0.4 (capped at 24): one draw each.
_STEPS = tuple(min(24, int(math.log1p(-(i + 0.5) / 4096) / math.log(0.6))) for i in range(4096))
_REROLLS = tuple(Reroll(tuple(p for p in range(5) if mask >> p & 1)) for mask in range(32))
_CHALLENGE, _LOOK, _ACCEPT = Challenge(), Look(), Accept()


_BIDS: dict[int, tuple[ClaimSpace, tuple[Bid, ...]]] = {}
"""A bid of every claim of each claim space met, built once (bids are values), found by the
space's identity: a plugin's space may share a built-in's kind and order."""


def _keep_bids(space: ClaimSpace) -> tuple[ClaimSpace, tuple[Bid, ...]]:
    """Make and keep the bids of a space met for the first time."""
    known = _BIDS[id(space)] = (space, tuple(Bid(claim) for claim in space.claims))
    return known


def _low_claim(legal: Legal, rng: random.Random) -> Bid:
    """A claim near the lowest legal one (geometric steps), so games stay varied."""
    space = legal.space
    known = _BIDS.get(id(space))  # looked up here, in the hot path, not in a call
    bids = (known if known is not None and known[0] is space else _keep_bids(space))[1]
    return bids[min(len(bids) - 1, legal.min_index + _STEPS[rng.getrandbits(12)])]


def random_action(legal: Legal, rng: random.Random) -> Action:
    """Return a random legal action, weighted so that games finish and every branch is played."""
    decision = legal.decision
    if decision == "reroll":
        if legal.must_reroll or len(legal.rerollable) < 5:  # a rule option limits rerolls
            return rng.choice(legal.rerolls())
        return _REROLLS[rng.getrandbits(5)]
    if decision == "choose":
        return Choose(rng.choice(legal.seats))
    if decision == "claim":
        return _low_claim(legal, rng)
    if decision in ("respond", "accept") and (not legal.can_claim() or rng.random() < 0.3):
        return _CHALLENGE
    if decision == "respond":
        return _LOOK if rng.random() < 0.6 else _low_claim(legal, rng)
    if decision == "accept":
        return _ACCEPT
    if decision == "turn":
        return _random_pass(legal, rng)
    raise ValueError(f"no action to sample for decision {decision!r}")


def _random_pass(legal: Legal, rng: random.Random) -> Pass:
    count = rng.choice((0, 0, 1, 1, 2, 3))
    swaps = tuple(zip(rng.sample(range(5), count), rng.sample(range(5), count), strict=True))
    swapped = {c for _, c in swaps}
    hidden = [p for p in range(5) if not legal.face_up[p] or p in swapped]
    reveal = tuple(p for p in hidden if rng.random() < 0.15)
    return Pass(_low_claim(legal, rng).claim, swaps, reveal)


@dataclass(frozen=True, slots=True)
class Playout:
    """What a random game did: decisions made, chance steps, and the final state."""

    decisions: int
    chances: int
    state: object


def playout(rules: RuleSet, players: int, rng: random.Random,
            options: Mapping[str, object] | None = None, observe: bool = True) -> Playout:
    """Play one game with random legal actions, building the acting seat's observation."""
    state = rules.new_game(players, options)
    decisions = chances = 0
    to_act, apply, chance, legal_of = rules.to_act, rules.apply, rules.chance, rules.legal
    while (seat := to_act(state)) != TERMINAL:
        if seat == CHANCE:
            state = apply(state, chance(state, rng))
            chances += 1
            continue
        legal = rules.observe(state, seat).legal if observe else legal_of(state)
        state = apply(state, random_action(legal, rng))
        decisions += 1
    return Playout(decisions, chances, state)
