"""Reproducibility across versions: a seed names one game. Pinned counts of playouts with a
plain generator (what the benchmarks play), so a change to how chance is drawn shows up here
and goes with a rule-set version; games through the referee are written out move by move in
tests/playthroughs/ (tests/test_playthroughs.py)."""

from __future__ import annotations

import random

import pytest

from arena.rules import get_rules
from arena.rules.playout import playout


@pytest.mark.parametrize(("rules", "players", "decisions", "chances", "placements"), [
    ("dice", 2, 68, 21, (2, 1)),
    ("dice-cards", 3, 91, 14, (3, 2, 1)),
    ("cards", 4, 50, 1, (2, 3, 1, 4)),
])
def test_a_plain_generator_plays_the_pinned_playouts(
    rules: str, players: int, decisions: int, chances: int, placements: tuple[int, ...]
) -> None:
    game = playout(get_rules(rules), players, random.Random(21))
    assert (game.decisions, game.chances) == (decisions, chances)
    assert get_rules(rules).result(game.state).placements == placements
