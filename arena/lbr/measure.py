"""The local best response's figure: duplicate pairs of whole games against the opponent,
the points a round it wins over the even split, and their 95% interval."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from arena.bot import Bot, BotContext, Limits
from arena.lbr.response import BotMaker, LocalBestResponse
from arena.rules.base import Event


@dataclass
class Estimate:
    """Points a round the local best response won over the even split, with a 95% interval
    over duplicate pairs of games (its two seats, the same seed)."""

    points: float
    half_width: float
    rounds: int
    pairs: list[tuple[float, int]]


def measure(opponent: BotMaker, policy: BotMaker, games: int, seed: int,
            options: dict[str, Any] | None = None, rollouts: int = 12) -> Estimate:
    """Play `games` duplicate pairs (each seed, the local best response in either seat)."""
    from arena.referee import play_game

    def lbr(context: BotContext) -> Bot:
        return LocalBestResponse(context, opponent, policy, rollouts)

    pairs = []
    for g in range(games):
        won, rounds = 0.0, 0
        for seat in (0, 1):
            seats: list[object] = [opponent, opponent]
            seats[seat] = lbr
            record = play_game("dice", seats, seed=seed + g, options=options,
                               limits=Limits(decision=86400.0))
            if record.faults:
                raise RuntimeError(f"a fault in a measured game: {record.faults[0].message}")
            for entry in record.log:
                if isinstance(entry, Event) and entry.kind == "point":
                    rounds += 1
                    won += 0.5 if entry.seat != seat else -0.5
        pairs.append((won, rounds))
    return _estimate(pairs)


def _estimate(pairs: list[tuple[float, int]]) -> Estimate:
    """The ratio of won points to rounds, its interval by the delta method over pairs."""
    n, won, rounds = len(pairs), sum(p[0] for p in pairs), sum(p[1] for p in pairs)
    mean = won / rounds
    if n < 2:
        return Estimate(mean, math.inf, rounds, pairs)
    spread = sum((x - mean * r) ** 2 for x, r in pairs) / (n * (n - 1))
    return Estimate(mean, 1.96 * math.sqrt(spread) / (rounds / n), rounds, pairs)
