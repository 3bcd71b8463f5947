"""The chances a worker reads from a dice game's record (arena.report.record_chances) are the
very bytes the report reads from its replay (arena.report.chances.viewer_json), in every
dice variant and table size; and each chance is the one a seat's own memory (the bots',
arena.odds.memory), fed from scratch with what that seat was shown, gives the claim: an
independent slow computation, sharing neither walk nor table with either fast path."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena import play_game
from arena.odds.memory import RoundMemory, space_of
from arena.odds.probability import claim_index
from arena.referee import ActionEntry, GameRecord
from arena.replay import game_text
from arena.report.as_played import game_chances
from arena.report.chances import CLAIM_EVENTS, RESPONSES, viewer_json
from arena.report.record_chances import record_json
from arena.rules.base import Event

BOTS = ["random", "statistician", "bluffer", "honest", "boss", "random"]
VARIANTS: dict[str, dict[str, Any]] = {
    "plain": {},
    "straight over full": {"straight_over_full": True},
    "look must reroll": {"look_must_reroll": True, "reroll_once_per": "round"},
    "loser chooses": {"receiver": "loser_chooses", "max_points": 3},
    "reduced 3 dice, 4 faces": {"dice": 3, "faces": 4},
    "reduced 1 die, 2 faces": {"dice": 1, "faces": 2},
    "fault": {"on_fault": "penalty"},
}


def _record(seats: int, seed: int, options: dict[str, Any]) -> GameRecord:
    players = BOTS[seed % 3: seed % 3 + seats] if seats <= 3 else BOTS[:seats]
    return play_game("dice", players, seed=seed, options=options)


def _text(record: GameRecord) -> bytes:
    seats = [{"name": f"p{i}", "bot": "x", "origin": "t", "version": "0", "mode": "inline"}
             for i in range(len(record.players))]  # fmt: skip
    return game_text(record, {"id": "g"}, seats)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("seats", [2, 3, 4, 6])
def test_the_record_gives_the_chances_its_replay_gives(variant: str, seats: int) -> None:
    for seed in range(6):
        record = _record(seats, seed, VARIANTS[variant])
        text = _text(record)
        assert game_chances(record, text) == viewer_json(text)
        assert record_json(record) == viewer_json(text) != b"null"  # reduced games too


def _from_scratch(record: GameRecord) -> list[tuple[int, int, float]]:
    """(decision, seat, chance) of each claim and response, each chance from a new memory of
    that seat fed every event it was shown before it (the claimant's own claim excepted)."""
    space = space_of(record.rules, record.options)
    shown: list[Event] = []
    out, decision, claim = [], -1, None
    for item in record.log:
        if isinstance(item, ActionEntry):
            decision += 1
            kind = type(item.action).__name__.lower()
            if kind in RESPONSES and claim is not None:
                out.append((decision, item.seat, _memory(space, item.seat, shown).holds(
                    claim, use_claims=False)))
        elif isinstance(item, Event):
            if item.kind == "round":
                claim = None
            if item.kind in CLAIM_EVENTS and item.seat is not None:
                claim = claim_index(space, item.data["claim"])
                out.append((decision, item.seat, _memory(space, item.seat, shown).holds(
                    claim, use_claims=False)))
            shown.append(item)
    return out


def _memory(space: Any, seat: int, shown: list[Event]) -> RoundMemory:
    memory = RoundMemory(seat, space)
    for event in shown:
        if event.to is None or event.to == seat:
            memory.notify(event)
    return memory


def _decoded(data: list[int]) -> list[tuple[int, int]]:
    """(decision, chance in thousandths) of the viewer's pairs."""
    out, decision = [], -1
    for step, code in zip(data[::2], data[1::2], strict=True):
        decision += step
        out.append((decision, code // 3))
    return out


@pytest.mark.parametrize("variant", ["plain", "straight over full", "look must reroll",
                                     "reduced 3 dice, 4 faces"])
def test_each_chance_is_the_seats_own_memory_fed_from_scratch(variant: str) -> None:
    for seats, seed in [(2, 1), (3, 2), (4, 3), (5, 4)]:
        record = _record(seats, seed, VARIANTS[variant])
        slow = _from_scratch(record)
        shown = json.loads(record_json(record) or b"null")
        assert [(d, round(p * 1000)) for d, _, p in slow] == _decoded(shown["d"])
        assert slow  # a game of claims


def test_a_game_of_another_rule_set_is_read_from_its_replay() -> None:
    record = play_game("cards", ["random", "statistician", "honest"], seed=4, options={})
    assert record_json(record) is None
    assert game_chances(record, _text(record)) == viewer_json(_text(record)) != b"null"
