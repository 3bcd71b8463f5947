"""Every decision of the built-in bots, pinned: whole seeded games replayed against a fixture.

The fixture holds one line per game (rule set, options, seats, seed, and every decision in
order as `seat action`), written by the code before the bots were made faster. A bot builds
its memory from the events of the whole game, so whole games are replayed, not positions;
a failure names the game and the first decision that changed. Regenerate (only when a
decision is meant to change) with `python tests/test_bot_decisions.py --write`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import arena
from arena.referee import ActionEntry, GameRecord

FIXTURE = Path(__file__).parent / "fixtures" / "bot-decisions.jsonl"
LIMITS = arena.Limits(decision=600.0)
"""Time limits no loaded machine reaches: a timeout would change the game, not the bot."""

S, H, B, R = "statistician", "honest", "bluffer", "random"
CASES: tuple[tuple[str, tuple[str, ...], dict[str, Any], range], ...] = (
    ("dice", (S, H), {}, range(16)),
    ("dice", (B, S), {"straight_over_full": True}, range(12)),
    ("dice", (S, B, R), {"look_must_reroll": True, "reroll_once_per": "round"}, range(12)),
    ("dice", (H, S, B, S), {"receiver": "loser_chooses", "max_points": 3}, range(8)),
    ("dice", (R, "statistician?threshold=0.3", "bluffer?doubt=0.2"), {}, range(8)),
    ("dice-cards", (S, H), {}, range(16)),
    ("dice-cards", (B, S), {"straight_over_full": True}, range(16)),
    ("dice-cards", (S, B, R), {"look_must_reroll": True, "reroll_once_per": "round"}, range(12)),
    ("dice-cards", (H, S, B, S), {"receiver": "loser_chooses", "max_points": 3}, range(12)),
    ("dice-cards", (R, "statistician?threshold=0.3", "bluffer?doubt=0.2"), {}, range(8)),
    ("cards", (S, H, B), {}, range(48)),
    ("cards", (S, B, R, S), {"straight_over_full": True}, range(40)),
    ("cards", (H, S, R), {"fresh_hand_to": "rejecter", "accept_reward": 0}, range(40)),
    ("cards", (S, S, H, B), {"chips": 6}, range(32)),
    ("cards", ("statistician?threshold=0.7", R, "bluffer?doubt=0.3"), {}, range(32)),
)
"""The games: every built-in bot, 2-4 seats, the rule options the bots read or must obey."""


def decisions(record: GameRecord) -> list[str]:
    """Every decision of a game in order, as `seat action`."""
    return [f"{entry.seat} {entry.action}" for entry in record.log
            if isinstance(entry, ActionEntry)]


def play(game: dict[str, Any]) -> GameRecord:
    """Play one fixture game with the bots as they are now."""
    return arena.play_game(game["rules"], game["seats"], seed=game["seed"],
                           options=game["options"], limits=LIMITS)


def games() -> list[dict[str, Any]]:
    """The fixture's games."""
    return [json.loads(line) for line in FIXTURE.read_text().splitlines()]


def first_change(expected: list[str], got: list[str]) -> str:
    """Where two decision sequences part, in words."""
    for number, (old, new) in enumerate(zip(expected, got, strict=False)):
        if old != new:
            return f"decision {number}: was {old!r}, now {new!r}"
    return f"{len(expected)} decisions were pinned, {len(got)} were made"


@pytest.mark.parametrize("rules", ["dice", "dice-cards", "cards"])
def test_built_in_bots_decide_as_pinned(rules: str) -> None:
    """Each pinned game, replayed now, makes the very same decisions in the same order."""
    pinned = [game for game in games() if game["rules"] == rules]
    assert len(pinned) >= 10
    for game in pinned:
        record = play(game)
        assert record.faults == ()
        got = decisions(record)
        where = f"{rules} {game['seats']} {game['options']} seed {game['seed']}"
        assert got == game["decisions"], f"{where}: {first_change(game['decisions'], got)}"


def test_the_fixture_pins_thousands_of_statistician_decisions() -> None:
    """The pin is only as good as its size: a few thousand statistician decisions at least."""
    count = 0
    for game in games():
        seats = {i for i, seat in enumerate(game["seats"]) if seat.startswith(S)}
        count += sum(int(line.split(" ", 1)[0]) in seats for line in game["decisions"])
    assert count >= 2000


def test_first_change_names_the_decision() -> None:
    assert first_change(["0 look", "1 challenge"], ["0 look", "1 look"]) == (
        "decision 1: was '1 challenge', now '1 look'")
    assert first_change(["0 look"], ["0 look", "1 look"]) == (
        "1 decisions were pinned, 2 were made")


def write() -> None:
    """Play every case with the current bots and write the fixture."""
    lines = []
    for rules, seats, options, seeds in CASES:
        for seed in seeds:
            game = {"rules": rules, "seats": list(seats), "options": options, "seed": seed}
            record = play(game)
            assert record.faults == (), record.faults
            lines.append(json.dumps({**game, "decisions": decisions(record)}))
    FIXTURE.write_text("\n".join(lines) + "\n")


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    write()
