"""Reproducibility across versions: a seed names one game. Pinned fingerprints of a game per
rule set through the referee, and of playouts with a plain generator (what the benchmarks
play), so a change to how chance is drawn shows up here and goes with a rule-set version."""

from __future__ import annotations

import hashlib
import random

import pytest
from arena_bots.random_bot import RandomBot

from arena.referee import ActionEntry, FaultEntry, GameRecord, play_game
from arena.rules import get_rules
from arena.rules.playout import playout


def fingerprint(record: GameRecord) -> str:
    """The chance outcomes, actions and events of a game, without its think times."""
    parts = [str(e.action) if isinstance(e, ActionEntry) else str(e)
             for e in record.log if not isinstance(e, FaultEntry)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


@pytest.mark.parametrize(("rules", "players", "digest", "placements"), [
    ("dice", 2, "cf55b5a181d693e2", (2, 1)),
    ("dice-cards", 3, "33ecec000865af47", (2, 1, 3)),
    ("cards", 3, "2b2528cb482b9b10", (3, 1, 2)),
])
def test_a_seed_plays_the_game_it_always_played(
    rules: str, players: int, digest: str, placements: tuple[int, ...]
) -> None:
    record = play_game(rules, [RandomBot] * players, seed=11)
    assert fingerprint(record) == digest
    assert record.result.placements == placements


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
