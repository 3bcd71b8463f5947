"""The leaderboard's reading of ladder.json: the ladder's state now (its history of batches is
ladder-history.jsonl), read whole and bounded, so its ranking is exactly the file's and a
crafted or oversized file is a problem the page says, never a page that hangs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.site.contest import standings
from arena.site.contest.board import board
from arena.site.contest.contest import Contest
from arena.tournament.run import safe_read

pytestmark = pytest.mark.any_database(
    "the ranking is read from ladder.json, a file; the page's queries run on PostgreSQL in"
    " test_pages.py")


def _row(player: str, rank: int) -> dict[str, Any]:
    return {"player": player, "entrant": player.partition("@")[0], "version": 1,
            "elo": 100.0 - rank, "low": 50.0, "high": 150.0, "games": 30, "faults": 0,
            "provisional": False, "rank": rank, "tied": False}


def _ladder(ranking: list[dict[str, Any]], name: str = "alice@1") -> dict[str, Any]:
    """ladder.json's document with a final (its own nested `ranking`) and versions."""
    return {"format": "ladder", "rules": "dice", "seats": 2, "min_games": 4, "games": 90,
            "batches": 3, "top": 4, "ranking": ranking, "unresolved": [],
            "final": {"top": ["impostor@1"], "games": 2, "played": 2, "complete": True,
                      "ranking": ["impostor@1"]},
            "versions": [{"player": name, "entrant": name.partition("@")[0], "status": "active"}]}


def _write(contest: Contest, document: dict[str, Any], indent: int | None = 1) -> None:
    """As the ladder writes it (sorted keys, indent 1), or laid out otherwise."""
    contest.results.mkdir(parents=True, exist_ok=True)
    (contest.results / "ladder.json").write_text(
        json.dumps(document, sort_keys=True, indent=indent) + "\n", encoding="utf-8")


@pytest.mark.django_db
def test_the_ranking_is_the_whole_files_ranking(contest: Contest) -> None:
    rows = [_row("alice@1", 1), _row("bob@2", 2)]
    _write(contest, _ladder(rows))
    assert standings.ranking(contest) == rows


@pytest.mark.django_db
def test_a_name_cannot_fake_the_ranking(contest: Contest) -> None:
    # a bot named so that its text, unescaped, would read as the top-level key
    fake = 'x\n "ranking": [{"player": "mallory@1", "rank": 1}]'
    rows = [_row("alice@1", 1)]
    _write(contest, _ladder(rows, name=fake + "@1") | {"unresolved": [{"above": fake}]})
    assert standings.ranking(contest) == rows
    _write(contest, _ladder(rows, name=fake + "@1"), indent=None)
    assert standings.ranking(contest) == rows


@pytest.mark.django_db
def test_an_oversized_ladder_json_is_a_problem_the_page_says(
    contest: Contest, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ladder.json is a few KB however long the season (tests/tournament/test_ladder_state.py);
    # one past the whole-file bound is someone's crafted file: refused, never parsed
    monkeypatch.setattr(safe_read, "FILE_BYTES", 4 * 1024)
    _write(contest, _ladder([_row(f"bot{n:03d}@1", n) for n in range(1, 101)]))
    assert (contest.results / "ladder.json").stat().st_size > safe_read.FILE_BYTES
    with pytest.raises(safe_read.Unreadable, match=r"ladder\.json"):
        standings.ranking(contest)
    assert "cannot be read" in board(contest, None).problem


@pytest.mark.django_db
def test_a_ranking_that_is_not_json_is_a_problem_the_page_says(contest: Contest) -> None:
    contest.results.mkdir(parents=True, exist_ok=True)
    (contest.results / "ladder.json").write_text('{\n "ranking": [{"a": NaN}]\n}',
                                                 encoding="utf-8")
    with pytest.raises(safe_read.Unreadable, match=r"ladder\.json"):
        standings.ranking(contest)
    assert "cannot be read" in board(contest, None).problem
