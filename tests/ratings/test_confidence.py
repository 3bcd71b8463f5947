"""Tests for arena.ratings.confidence: the z of a gap from the fit's covariance, by hand for
two players, clear and coin-flip gaps among three, and the same gaps whatever the order."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings.confidence import Gap, gaps
from arena.ratings.summary import summarise

ELO_SCALE = 400 / math.log(10)
Z95 = 1.959963984540054


def games(results: list[tuple[str, str, int, int]]) -> list[dict[str, Any]]:
    """Heads-up games: (a, b, wins of a, wins of b), a seated first, ids in list order."""
    played: list[dict[str, Any]] = []
    for a, b, wins, losses in results:
        for placements in [[1, 2]] * wins + [[2, 1]] * losses:
            played.append({"id": f"g{len(played):05d}", "entrants": [a, b],
                           "placements": placements})
    return played


def test_two_players_by_hand() -> None:
    # 7-3 without a prior: the gap is 400 log10(7/3); the information of the difference is
    # n p (1 - p) = 10 * 0.7 * 0.3 = 2.1, so its error is sqrt(1 / 2.1) natural units.
    summary = summarise(games([("a", "b", 7, 3)]), ["a", "b"])
    (gap,) = gaps(summary, ["a", "b"], prior_draws=0)
    assert gap.difference == pytest.approx(400 * math.log10(7 / 3), rel=1e-9)
    assert gap.error == pytest.approx(ELO_SCALE * math.sqrt(1 / 2.1), rel=1e-6)
    assert gap.z == pytest.approx(gap.difference / gap.error)
    assert 1.2 < gap.z < 1.25 and not gap.separated


def test_two_players_with_the_prior_is_twice_each_ratings_error() -> None:
    # Alone, the two mean-0 ratings are a and -a: the difference's error is 2 sd(a).
    summary = summarise(games([("a", "b", 30, 10)]), ["a", "b"])
    (gap,) = gaps(summary, ["a", "b"])
    a, _ = summary.elo()
    assert a.rating is not None and a.low is not None and a.high is not None
    assert gap.difference == pytest.approx(2 * a.rating)
    assert gap.error == pytest.approx((a.high - a.low) / Z95)
    assert gap.separated


def test_a_clear_gap_is_separated_and_a_coin_flip_is_not() -> None:
    summary = summarise(games([("a", "b", 30, 10), ("b", "c", 20, 20), ("a", "c", 30, 10)]),
                        ["a", "b", "c"])
    top, coin = gaps(summary, ["a", "b", "c"])
    assert (top.above, top.below, coin.above, coin.below) == ("a", "b", "b", "c")
    assert top.z > Z95 and top.separated
    assert coin.difference == pytest.approx(0, abs=1e-6) and not coin.separated


def test_the_wrong_way_round_is_negative() -> None:
    summary = summarise(games([("a", "b", 30, 10), ("b", "c", 25, 15)]), ["a", "b", "c"])
    down = gaps(summary, ["a", "b", "c"])
    up = gaps(summary, ["c", "b", "a"])
    assert [g.z for g in up] == pytest.approx([-g.z for g in reversed(down)])
    assert [g.error for g in up] == pytest.approx([g.error for g in reversed(down)])
    assert not any(g.separated for g in up)


def test_a_player_without_a_game_is_never_separated() -> None:
    # Its rating counts as 0, the field's mean, and its error as infinite.
    summary = summarise(games([("a", "b", 40, 0)]), ["a", "b", "new"])
    first, second = gaps(summary, ["a", "new", "b"])
    a, b, _ = summary.elo()
    assert first == Gap("a", "new", a.rating, math.inf, 0.0)
    assert second == Gap("new", "b", -b.rating, math.inf, 0.0)  # type: ignore[operator]
    assert not first.separated and not second.separated


def test_bad_orders_are_refused_in_one_line() -> None:
    summary = summarise(games([("a", "b", 3, 1)]), ["a", "b"])
    with pytest.raises(ValueError, match=r"players the games do not know: \['zed'\]"):
        gaps(summary, ["a", "zed"])
    with pytest.raises(ValueError, match="appears twice"):
        gaps(summary, ["a", "b", "a"])
    assert gaps(summary, ["a"]) == ()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcd"), st.sampled_from("abcd"),
                          st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=8),
       st.randoms(use_true_random=False))
def test_shuffled_games_give_the_same_gaps(
    results: list[tuple[str, str, int, int]], shuffle: random.Random
) -> None:
    played = games([r for r in results if r[0] != r[1]])
    order = ["a", "b", "c", "d"]
    expected = gaps(summarise(played, order), order)
    shuffle.shuffle(played)
    again = gaps(summarise(played, order), order)
    assert [(g.above, g.below) for g in again] == [(g.above, g.below) for g in expected]
    for got, want in zip(again, expected, strict=True):
        assert got.difference == pytest.approx(want.difference, abs=1e-9)
        assert got.z == pytest.approx(want.z, abs=1e-9)
