"""The ladder's warm fit is the batch fit: the same ratings, intervals and covariances as
arena.ratings.elo's on the same tally, cold or started from an earlier fit's ratings."""

from __future__ import annotations

import random

import pytest

from arena.ratings.summary import Summary
from arena.ratings.warm import warm_fit


def _games(seed: int, players: int, count: int, seats: int) -> list[dict[str, object]]:
    """Games of players of spread strengths, some ties, some players who never play."""
    rng = random.Random(seed)
    strength = [rng.gauss(0, 1) for _ in range(players)]
    games = []
    for number in range(count):
        table = rng.sample(range(players - 1), seats)  # the last player never plays
        scores = [strength[p] + rng.gauss(0, 1) for p in table]
        places = [1 + sum(round(o, 1) > round(s, 1) for o in scores) for s in scores]
        games.append({"id": f"ld-{number:08d}", "entrants": [f"p{p:03d}" for p in table],
                      "placements": places, "faults": []})
    return games


@pytest.mark.parametrize(("seed", "players", "count", "seats"),
                         [(1, 3, 5, 2), (2, 12, 200, 2), (3, 25, 400, 3), (4, 40, 300, 4)])
def test_the_warm_fit_is_the_batch_fit(seed: int, players: int, count: int, seats: int) -> None:
    games = _games(seed, players, count, seats)
    names = [f"p{p:03d}" for p in range(players)]
    summary = Summary(names, rate=False)
    previous = None
    for part in (games[: count // 3], games[count // 3:]):
        for game in part:
            summary.add(game)
        batch = summary.elo_fit()
        played = {row.entrant: row.games for row in batch.ratings}
        for start in (None, previous):
            warm = warm_fit(summary._pairs, played, names, start)
            for mine, theirs in zip(warm.ratings, batch.ratings, strict=True):
                assert (mine.entrant, mine.games) == (theirs.entrant, theirs.games)
                for value, expected in ((mine.rating, theirs.rating), (mine.low, theirs.low),
                                        (mine.high, theirs.high)):
                    assert (value is None) == (expected is None)
                    if value is not None and expected is not None:
                        assert value == pytest.approx(expected, abs=1e-9)
            for (a, b), covariance in batch.covariance.items():
                assert warm.covariance(a, b) == pytest.approx(covariance, abs=1e-9)
        previous = warm.strengths
