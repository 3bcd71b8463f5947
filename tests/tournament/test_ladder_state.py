"""The ladder's running state is the whole log's: fed game by game, with a fit between
batches started from the last one, it ranks as a batch fit of the same games from scratch
(ratings, intervals and covariances within 1e-9); and a season's history is append-only,
each batch's ratings written once, while ladder.json holds only the state now."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from test_ladder_runs import _play, _season

from arena.ratings.summary import Summary
from arena.tournament.formats.ladder.state import LadderState


def _games(seed: int, players: int, count: int, seats: int) -> list[dict[str, Any]]:
    """Ladder games of spread strengths, with ties, faults, and a final game at the end."""
    rng = random.Random(seed)
    strength = [rng.gauss(0, 1) for _ in range(players)]
    games = []
    for number in range(count):
        table = rng.sample(range(players), seats)
        scores = [round(strength[p] + rng.gauss(0, 1), 1) for p in table]
        faults = [{"seat": 0, "kind": "timeout"}] if rng.random() < 0.05 else []
        games.append({"id": f"ld-{number + 1:08d}", "stage": "ladder", "table": number // 2 + 1,
                      "entrants": [f"p{p:03d}@1" for p in table], "faults": faults,
                      "placements": [1 + sum(o > s for o in scores) for s in scores]})
    games.append({**games[0], "id": "fn-000001", "stage": "final", "table": 1})
    return games


@pytest.mark.parametrize(("seed", "players", "count", "seats"),
                         [(1, 4, 30, 2), (2, 16, 400, 2), (3, 30, 600, 3), (4, 9, 200, 4)])
def test_the_running_state_ranks_as_a_fit_from_scratch(seed: int, players: int, count: int,
                                                       seats: int) -> None:
    games = _games(seed, players, count, seats)
    voided = {g["id"] for g in random.Random(seed).sample(games, 3)}
    state = LadderState.of([], voided, [])
    for start in range(0, len(games), 37):  # a batch at a time, a warm fit between
        state.begin(start, {"ratings": {n: None if r.rating is None else [r.rating]
                                        for n, r in state.ratings().items()}})
        for game in games[start:start + 37]:
            state.add(game)
        counted = [g for g in games[: start + 37] if g["id"] not in voided]
        ladder = [g for g in counted if g["stage"] == "ladder"]
        names = sorted({n for g in ladder for n in g["entrants"]})
        scratch = Summary(names, rate=False)
        for game in ladder:
            scratch.add(game)
        batch = scratch.elo_fit()
        assert state.ratings().keys() == set(names)
        for row in batch.ratings:
            mine = state.rating(row.entrant)
            assert mine.games == row.games == state.games[row.entrant]
            for value, expected in ((mine.rating, row.rating), (mine.low, row.low),
                                    (mine.high, row.high)):
                assert value == pytest.approx(expected, abs=1e-9)
        for (a, b), covariance in batch.covariance.items():
            assert state.fit().covariance(a, b) == pytest.approx(covariance, abs=1e-9)
        assert {n: state.faulted.get(n, 0) for n in names} == scratch.faulted()
        assert state.meetings(names) == {(r.entrant, r.opponent): r.games
                                         for r in scratch.crosstable()
                                         if r.entrant < r.opponent and r.games}
        assert state.counted == len(counted)
        assert state.table == max(int(g["table"]) for g in ladder)
        assert state.finals == [g for g in counted if g["stage"] == "final"]


def _history(out: Path) -> list[str]:
    return (out / "ladder-history.jsonl").read_text(encoding="utf-8").splitlines()


def test_each_batch_s_ratings_are_written_once_and_ladder_json_holds_the_state_now(
    tmp_path: Path
) -> None:
    config, out = _season(tmp_path), tmp_path / "out"
    _play(config, out, 8)
    first = _history(out)
    batches = (out / "ladder-batches.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["batch"] for line in first] == list(range(1, len(batches) + 1))
    assert [json.loads(line)["after"] for line in first] == [
        json.loads(line)["after"] for line in batches]
    _play(config, out, 8)
    again = _history(out)
    assert again[: len(first)] == first and len(again) > len(first)  # appended, never redone
    ladder = json.loads((out / "ladder.json").read_text(encoding="utf-8"))
    assert "history" not in ladder
    assert set(ladder) == {"format", "rules", "seats", "min_games", "games", "batches", "top",
                           "ranking", "unresolved", "versions", "final"}
