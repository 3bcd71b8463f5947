"""Train the `sparring` bot: outcome-sampling Monte-Carlo CFR (Lanctot et al. 2009, as
OpenSpiel's `outcome_sampling_mccfr`) on the abstraction of `arena_bots.sparring`, over
heads-up one-round full `dice` played by arena's own rules engine.

    python -m arena_bots.sparring_train --iterations 200000 --seed 1 --out bots/sparring.json.gz

Deterministic for a seed: the same seed and iterations write the same bytes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena_bots.sparring import ACTIONS, concrete, situation

from arena.odds import probability
from arena.odds.memory import RoundMemory, space_of
from arena.rules import CHANCE, get_rules
from arena.rules.base import Observation

OPTIONS = {"max_points": 1}
"""One round, heads-up: the loser of the round is out, so a round is worth +1 / -1."""
EXPLORE = 0.6
"""Outcome sampling's exploration at the updated seat's own decisions (OpenSpiel's default)."""


class Trainer:
    """Cumulative regrets and average-strategy weights by abstract situation."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.rules = get_rules("dice")
        self.space = space_of("dice", OPTIONS)
        self.regrets: dict[str, list[float]] = {}
        self.average: dict[str, list[float]] = {}
        self.iterations = 0
        probability.warm_up()

    def run(self, iterations: int) -> None:
        """Play so many sampled rounds, the seat whose regrets are updated alternating."""
        for _ in range(iterations):
            state = self.rules.new_game(2, OPTIONS)
            memories = [RoundMemory(seat, self.space) for seat in (0, 1)]
            self._episode(state, memories, self.iterations % 2, 1.0, 1.0, 1.0)
            self.iterations += 1

    def _advance(self, state: Any, action: Any, memories: Sequence[RoundMemory]) -> Any:
        """Apply an action or chance outcome; each seat remembers what it was shown."""
        after = self.rules.apply(state, action)
        for event in self.rules.events(after):
            for seat, memory in enumerate(memories):
                if event.to is None or event.to == seat:
                    memory.notify(event)
        return after

    def _episode(self, state: Any, memories: Sequence[RoundMemory], update: int,
                 mine: float, theirs: float, sampled: float) -> float:
        """The sampled value of the rest of the round for `update`, updating on the way."""
        while True:
            if self.rules.is_over(state):
                return -1.0 if state.points[update] else 1.0
            seat = self.rules.to_act(state)
            if seat != CHANCE:
                observation = self.rules.observe(state, seat)
                key, names = situation(observation, memories[seat])
                if key is not None:
                    return self._decide(state, memories, update, (mine, theirs, sampled),
                                        observation, key)
                state = self._advance(state, concrete(names[0], observation, memories[seat]),
                                      memories)
                continue
            state = self._advance(state, self.rules.chance(state, self.rng), memories)

    def _decide(self, state: Any, memories: Sequence[RoundMemory], update: int,
                reaches: tuple[float, float, float], observation: Observation,
                key: str) -> float:
        """One sampled decision: recurse on it, then update regrets at the updated seat."""
        mine, theirs, sampled = reaches
        seat = observation.seat
        names = ACTIONS[key[0]]
        regrets = self.regrets.setdefault(key, [0.0] * len(names))
        policy = matched(regrets)
        explore = seat == update
        odds = [EXPLORE / len(names) + (1 - EXPLORE) * p for p in policy] if explore else policy
        pick = _draw(odds, self.rng.random())
        after = self._advance(state, concrete(names[pick], observation, memories[seat]), memories)
        if explore:
            value = self._episode(after, memories, update, mine * policy[pick], theirs,
                                  sampled * odds[pick])
        else:
            value = self._episode(after, memories, update, mine, theirs * policy[pick],
                                  sampled * odds[pick])
        child = value / odds[pick]
        estimate = policy[pick] * child
        if explore:
            weight = theirs / sampled
            average = self.average.setdefault(key, [0.0] * len(names))
            for i, p in enumerate(policy):
                regrets[i] += weight * ((child if i == pick else 0.0) - estimate)
                average[i] += mine * p / sampled
        return estimate

    def average_regret(self) -> float:
        """Sum over situations of the largest positive cumulative regret, per iteration: a
        running bound-like estimate of how far the average strategy is from an equilibrium of
        the abstraction (sampled, so noisy; it should fall as training goes)."""
        total = sum(max(0.0, *r) for r in self.regrets.values())
        return total / max(1, self.iterations)

    def table(self, seed: int) -> dict[str, Any]:
        """The average strategy, normalised and rounded, with how it was made."""
        policy = {}
        for key in sorted(self.average):
            weights = self.average[key]
            total = sum(weights)
            if total > 0:
                policy[key] = [round(w / total, 3) for w in weights]
        return {"format": 1, "game": "dice 5x6, 2 players, one round", "seed": seed,
                "iterations": self.iterations, "actions": ACTIONS, "policy": policy}


def matched(regrets: Sequence[float]) -> list[float]:
    """Regret matching: play in proportion to positive regret, uniformly when none."""
    positive = [r if r > 0 else 0.0 for r in regrets]
    total = sum(positive)
    if total <= 0:
        return [1.0 / len(regrets)] * len(regrets)
    return [p / total for p in positive]


def _draw(odds: Sequence[float], pick: float) -> int:
    for i, p in enumerate(odds):
        pick -= p
        if pick < 0:
            return i
    return len(odds) - 1


def write(path: Path, data: dict[str, Any]) -> None:
    """Write a table as gzip JSON, byte-identical for the same table (no timestamp)."""
    raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    part = path.with_suffix(".part")
    part.write_bytes(gzip.compress(raw, mtime=0))
    part.replace(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Train for so many iterations, logging progress and writing the table as it goes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("sparring.json.gz"))
    parser.add_argument("--every", type=int, default=20_000,
                        help="log and write the table every so many iterations")
    args = parser.parse_args(argv)
    trainer = Trainer(args.seed)
    start = time.monotonic()
    while trainer.iterations < args.iterations:
        trainer.run(min(args.every, args.iterations - trainer.iterations))
        write(args.out, trainer.table(args.seed))
        print(f"iterations {trainer.iterations} situations {len(trainer.regrets)} "
              f"average regret {trainer.average_regret():.4f} "
              f"seconds {time.monotonic() - start:.0f}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
