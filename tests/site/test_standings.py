"""The leaderboard's reading of ladder.json: its ranking alone, exactly as the whole file has
it, however long the history of batches before it grows (past the size of a whole file the
site would parse), and never a ranking a name or a nested key fakes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.site.contest import standings
from arena.site.contest.board import board
from arena.site.contest.contest import Contest
from arena.tournament import safe_read


def _row(player: str, rank: int) -> dict[str, Any]:
    return {"player": player, "entrant": player.partition("@")[0], "version": 1,
            "elo": 100.0 - rank, "low": 50.0, "high": 150.0, "games": 30, "faults": 0,
            "provisional": False, "rank": rank, "tied": False}


def _ladder(ranking: list[dict[str, Any]], batches: int = 3,
            name: str = "alice@1") -> dict[str, Any]:
    """ladder.json's document with a final (its own nested `ranking`), a history, versions."""
    return {"format": "ladder", "rules": "dice", "seats": 2, "min_games": 4, "games": 90,
            "batches": batches, "top": 4, "ranking": ranking, "unresolved": [],
            "final": {"top": ["impostor@1"], "games": 2, "played": 2, "complete": True,
                      "ranking": ["impostor@1"]},
            "history": [{"batch": n, "after": n * 16, "ratings": {name: [1.0, 0.0, 2.0]}}
                        for n in range(1, batches + 1)],
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
def test_a_name_cannot_fake_where_the_ranking_starts(contest: Contest) -> None:
    # a bot named so that its text, unescaped, would read as the top-level key
    fake = 'x\n "ranking": [{"player": "mallory@1", "rank": 1}]'
    rows = [_row("alice@1", 1)]
    _write(contest, _ladder(rows, name=fake + "@1") | {"unresolved": [{"above": fake}]})
    assert standings.ranking(contest) == rows


@pytest.mark.django_db
def test_a_ladder_json_laid_out_otherwise_is_read_whole(contest: Contest) -> None:
    rows = [_row("alice@1", 1)]
    _write(contest, _ladder(rows), indent=None)
    assert standings.ranking(contest) == rows


@pytest.mark.django_db
def test_a_history_larger_than_a_whole_file_may_be_leaves_the_leaderboard_up(
    contest: Contest, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the history of every batch grows with the season; past the whole-file bound the site
    # would refuse the file: the ranking at its end is read all the same
    monkeypatch.setattr(safe_read, "FILE_BYTES", 64 * 1024)
    rows = [_row(f"bot{n:03d}@1", n) for n in range(1, 101)]
    _write(contest, _ladder(rows, batches=3000))
    assert (contest.results / "ladder.json").stat().st_size > 3 * safe_read.FILE_BYTES
    shown = board(contest, None)
    assert shown.problem == ""
    assert [row.bot for row in shown.ranked] == [f"bot{n:03d}" for n in range(1, 101)]


@pytest.mark.django_db
def test_a_ranking_that_is_not_json_is_a_problem_the_page_says(contest: Contest) -> None:
    contest.results.mkdir(parents=True, exist_ok=True)
    (contest.results / "ladder.json").write_text('{\n "history": [],\n "ranking": [{"a": NaN}]\n}',
                                                 encoding="utf-8")
    with pytest.raises(safe_read.Unreadable, match=r"ladder\.json"):
        standings.ranking(contest)
    assert "cannot be read" in board(contest, None).problem
