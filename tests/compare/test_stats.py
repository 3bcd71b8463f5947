"""Tests for the statistics of arena.compare (samples, sprt, estimates): fishtest's numbers,
Wald's bounds, the paired test, intervals."""

from __future__ import annotations

import math
import statistics
from dataclasses import astuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.compare import estimates, sprt
from arena.compare.estimates import Estimate
from arena.compare.samples import Summary
from arena.compare.sprt import Sprt

# Expected LLRs were computed by running fishtest's own code: LLR_normalized and
# LLR_logistic from official-stockfish/fishtest, server/fishtest/stats/LLRcalc.py at commit
# 121549e530f0913fd2353dc4341d55844cc8213c, pasted unchanged into a scratch script outside
# this repository and run with scipy 1.17.1. The first three rows are fishtest's own
# examples (sprt.py / stat_util.py __main__).
FISHTEST_LLR = [
    ((10789, 19328, 33806, 19402, 10543), -3, 1, "logistic", 2.1310678117940807),
    ((39, 2226, 31451, 2412, 40), 0.764, 3.439, "normalized", 2.162940869584568),
    ((39, 2226, 31451, 2412, 40), 0.2, 0.9, "logistic", 2.1625425800483593),
    ((1187, 7410, 13475, 7378, 1164), 0.0, 2.0, "normalized", -1.7287536221817865),
    ((1187, 7410, 13475, 7378, 1164), -1.75, 0.25, "normalized", 0.04652169672194251),
    ((100, 100, 100, 100, 100), 0.0, 2.0, "normalized", -0.016568074739975718),
    ((10, 30, 50, 40, 20), 0.0, 2.0, "normalized", 0.2123835353589331),
    ((10, 30, 50, 40, 20), 0.0, 10.0, "normalized", 0.9634679586828043),
    ((10, 30, 50, 40, 20), 0.0, 5.0, "logistic", 0.6360721926321867),
    ((0, 3, 10, 2, 0), 0.0, 2.0, "normalized", -0.014582259123587524),
    ((0, 0, 7, 0, 0), 0.0, 2.0, "normalized", -0.00024121276876087192),
    ((0, 0, 0, 0, 0), 0.0, 2.0, "normalized", -1.656807473997572e-07),
    ((2, 5, 20, 60, 40), 0.0, 50.0, "normalized", 15.58035891999346),
    ((40, 60, 20, 5, 2), 0.0, 50.0, "normalized", -20.421938628125226),
    ((2, 5, 20, 60, 40), 0.0, 20.0, "logistic", 6.678060923997715),
    ((300, 1200, 2500, 1500, 400), -1.75, 0.25, "normalized", 4.356210008943838),
]

# (elo, elo95 half-width, LOS) from fishtest's get_elo, server/fishtest/stats/stat_util.py
# at commit 1054c5aa1a415e29dec3cb0937b7927809a64edb, run the same way.
FISHTEST_ELO = [
    ((10, 30, 50, 40, 20), 34.86007028756008, 31.187042180428502, 0.9865038568637989),
    ((1187, 7410, 13475, 7378, 1164), -0.4426077992236841, 1.7298590276177421, 0.3080138791226903),
    ((0, 0, 7, 0, 0), -7.714619732426294e-14, 4.861548235471805, 0.4999999999999938),
    ((2, 5, 20, 60, 40), 198.2222472276411, 36.37236984218512, 1.0),
]

WALD_005 = math.log(0.05 / 0.95)  # -2.944..., fishtest's default lower bound

pair_counts = st.lists(st.integers(0, 30), min_size=5, max_size=5).map(tuple)
diffs = st.lists(st.floats(-1, 1, allow_nan=False), max_size=60)
models = st.sampled_from(["normalized", "logistic"])


# --- the pentanomial LLR --------------------------------------------------------------


@pytest.mark.parametrize(("counts", "elo0", "elo1", "model", "expected"), FISHTEST_LLR)
def test_llr_matches_fishtest(counts, elo0, elo1, model, expected):
    assert sprt.llr_pentanomial(counts, elo0, elo1, model) == pytest.approx(expected, abs=1e-6)


def test_llr_defaults_are_fishtest_standard_stc_in_normalized_elo():
    counts = (1187, 7410, 13475, 7378, 1164)
    assert sprt.llr_pentanomial(counts) == pytest.approx(-1.7287536221817865, abs=1e-6)


@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_candidate_equal_to_baseline_gives_negative_llr(model):
    assert sprt.llr_pentanomial((50, 200, 400, 200, 50), 0.0, 5.0, model) < 0


@given(counts=pair_counts, elo=st.floats(0.5, 50), model=models)
@settings(deadline=None)
def test_llr_is_antisymmetric_under_mirrored_counts(counts, elo, model):
    mirrored = tuple(reversed(counts))
    forward = sprt.llr_pentanomial(counts, -elo, elo, model)
    assert sprt.llr_pentanomial(mirrored, -elo, elo, model) == pytest.approx(-forward, abs=1e-7)


@given(counts=pair_counts, elo1=st.floats(0.5, 50), model=models)
@settings(deadline=None)
def test_llr_grows_when_a_winning_pair_is_added(counts, elo1, model):
    more = (*counts[:4], counts[4] + 1)
    before = sprt.llr_pentanomial(counts, 0.0, elo1, model)
    assert sprt.llr_pentanomial(more, 0.0, elo1, model) >= before - 1e-9


@given(counts=pair_counts, cell=st.integers(0, 3), elo1=st.floats(0.5, 50))
@settings(deadline=None)
def test_llr_grows_when_a_pair_scores_half_a_point_more(counts, cell, elo1):
    """Holds for the normalized model (fishtest's default). Not for the logistic one, whose
    LLR also weighs the spread: (2, 1, 1, 0, 0) -> (2, 0, 2, 0, 0) lowers it at elo1 = 1."""
    if counts[cell] == 0:
        return
    better = list(counts)
    better[cell] -= 1
    better[cell + 1] += 1
    before = sprt.llr_pentanomial(counts, 0.0, elo1, "normalized")
    assert sprt.llr_pentanomial(better, 0.0, elo1, "normalized") >= before - 1e-9


def test_the_logistic_llr_can_fall_when_a_pair_scores_more() -> None:
    before = sprt.llr_pentanomial((2, 1, 1, 0, 0), 0.0, 1.0, "logistic")
    assert sprt.llr_pentanomial((2, 0, 2, 0, 0), 0.0, 1.0, "logistic") < before


def test_bounds_too_wide_for_the_pair_scores_raise():
    with pytest.raises(ValueError, match="too far"):
        sprt.llr_pentanomial((10, 30, 50, 40, 20), 0.0, 1000.0)


# --- bounds and decisions -------------------------------------------------------------


def test_default_bounds_are_walds_at_five_percent():
    lower, upper = sprt.sprt_bounds()
    assert lower == pytest.approx(-2.9444389791664403)
    assert upper == pytest.approx(2.9444389791664403)


def test_bounds_follow_each_error_rate():
    lower, upper = sprt.sprt_bounds(alpha=0.1, beta=0.2)
    assert lower == pytest.approx(math.log(0.2 / 0.9))
    assert upper == pytest.approx(math.log(0.8 / 0.1))


@pytest.mark.parametrize(
    ("llr", "verdict"),
    [(3.0, "H1"), (-3.0, "H0"), (0.0, None), (2.9, None), (-2.9, None), (WALD_005, None)],
)
def test_decision_against_default_bounds(llr, verdict):
    assert sprt.sprt_decision(llr) == verdict


def test_decision_uses_the_given_error_rates():
    assert sprt.sprt_decision(2.5, alpha=0.1, beta=0.1) == "H1"  # bounds ±ln 9 = ±2.197
    assert sprt.sprt_decision(-2.5, alpha=0.1, beta=0.1) == "H0"
    assert sprt.sprt_decision(2.5) is None


def test_sprt_bundles_llr_bounds_and_verdict():
    counts = (300, 1200, 2500, 1500, 400)
    result = sprt.sprt_pentanomial(counts, -1.75, 0.25)
    assert result == Sprt(pytest.approx(4.356210008943838), WALD_005, -WALD_005, "H1")
    assert Sprt.judge(-1.0) == Sprt(-1.0, WALD_005, -WALD_005, None)


# --- the paired test for more seats ---------------------------------------------------


@given(values=diffs)
def test_incremental_summary_equals_batch(values):
    running = Summary()
    for d in values:
        running = running.add(d)
    assert running == Summary.of(values)


@given(values=diffs.filter(lambda xs: len(xs) >= 2))
def test_summary_mean_and_variance_match_the_statistics_module(values):
    summary = Summary.of(values)
    assert summary.n == len(values)
    assert summary.mean == pytest.approx(statistics.fmean(values), abs=1e-12)
    assert summary.variance == pytest.approx(statistics.variance(values), abs=1e-9)


def test_empty_summary_reads_as_zero():
    assert (Summary().mean, Summary().variance, Summary.of([0.4]).variance) == (0.0, 0.0, 0.0)


def test_identical_games_drift_to_h0_at_half_t1_squared_per_group():
    summary = Summary.of([0.0] * 1000)
    assert sprt.llr_paired(summary, 0.0, 0.1) == pytest.approx(-1000 * 0.1**2 / 2, rel=1e-3)


def test_a_few_identical_groups_decide_nothing():
    # the variance of four equal differences is zero; a sound test must not read that as proof
    assert sprt.sprt_paired(Summary.of([0.0] * 4), 0.0, 0.1).verdict is None
    assert sprt.sprt_paired(Summary.of([1.0] * 4), 0.0, 0.1).verdict is None


@pytest.mark.parametrize(
    ("counts", "nelo1"),
    [((10, 30, 50, 40, 20), 10.0), ((1187, 7410, 13475, 7378, 1164), 2.0)],
)
def test_paired_test_agrees_with_pentanomial_on_two_seat_pairs(counts, nelo1):
    # a pair scoring x points per game is a difference of 2x - 1; nelo -> pair t-value
    summary = Summary.of(
        d for d, count in zip((-1, -0.5, 0, 0.5, 1), counts, strict=True) for _ in range(count)
    )
    t1 = nelo1 * math.sqrt(2) / sprt.NELO_PER_T
    expected = sprt.llr_pentanomial(counts, 0.0, nelo1)
    assert sprt.llr_paired(summary, 0.0, t1) == pytest.approx(expected, rel=1e-2)


@st.composite
def two_summaries_differing_in_total(draw):
    """Two feasible summaries with the same n and sum of squares, the second with more total."""
    n = draw(st.integers(1, 500))
    total_squares = draw(st.floats(0, n))
    reach = math.sqrt(n * total_squares)  # Cauchy-Schwarz: |total| <= sqrt(n * total_squares)
    low, high = sorted(draw(st.lists(st.floats(-reach, reach), min_size=2, max_size=2)))
    return Summary(n, low, total_squares), Summary(n, high, total_squares)


@given(pair=two_summaries_differing_in_total(), t0=st.floats(-1, 1), gap=st.floats(0.01, 1))
def test_paired_llr_grows_with_the_mean_at_fixed_spread(pair, t0, gap):
    # the LLR depends on the data only through n and mean / root-mean-square, increasingly
    lower, higher = pair
    assert sprt.llr_paired(higher, t0, t0 + gap) >= sprt.llr_paired(lower, t0, t0 + gap) - 1e-9


@given(values=diffs, t=st.floats(0.01, 1))
def test_paired_llr_is_antisymmetric_under_mirrored_differences(values, t):
    forward = sprt.llr_paired(Summary.of(values), -t, t)
    mirrored = sprt.llr_paired(Summary.of(-d for d in values), -t, t)
    assert mirrored == pytest.approx(-forward, abs=1e-9)


def test_paired_sprt_accepts_a_better_candidate_and_rejects_an_equal_one():
    better = Summary.of([1.0, 0.5, 0.0, -0.5] * 50)  # mean 0.25 over sd 0.56: t = 0.45
    equal = Summary.of([0.5, -0.5] * 500)
    assert sprt.sprt_paired(better, 0.0, 0.2).verdict == "H1"
    assert sprt.sprt_paired(equal, 0.0, 0.2).verdict == "H0"


# --- intervals, Elo, LOS --------------------------------------------------------------


@pytest.mark.parametrize(("counts", "elo", "elo95", "los"), FISHTEST_ELO)
def test_pentanomial_elo_and_los_match_fishtest(counts, elo, elo95, los):
    estimate = estimates.elo_estimate(estimates.pentanomial_score(counts))
    assert estimate.value == pytest.approx(elo, abs=1e-6)
    assert (estimate.upper - estimate.lower) / 2 == pytest.approx(elo95, abs=1e-6)
    assert estimates.pentanomial_los(counts) == pytest.approx(los, abs=1e-9)


@given(counts=pair_counts)
def test_pentanomial_interval_contains_its_score(counts):
    score = estimates.pentanomial_score(counts)
    assert 0 <= score.lower <= score.value <= score.upper <= 1


@given(values=diffs)
def test_paired_interval_contains_its_mean(values):
    summary = Summary.of(values)
    diff = estimates.paired_difference(summary)
    assert -1 <= diff.lower <= diff.value <= diff.upper <= 1
    assert diff.value == summary.mean


def test_paired_interval_narrows_as_groups_accumulate():
    few = estimates.paired_difference(Summary.of([0.5, -0.5] * 10))
    many = estimates.paired_difference(Summary.of([0.5, -0.5] * 1000))
    assert many.upper - many.lower < (few.upper - few.lower) / 5


def test_paired_score_reads_a_difference_as_a_head_to_head_score():
    summary = Summary.of([0.5, 0.0, 0.25, 0.25])
    diff, score = estimates.paired_difference(summary), estimates.paired_score(summary)
    assert astuple(score) == pytest.approx(
        tuple((1 + d) / 2 for d in (diff.value, diff.lower, diff.upper))
    )
    assert score.value == pytest.approx(0.625, abs=1e-3)


def test_paired_los():
    assert estimates.paired_los(Summary.of([0.5, -0.5] * 20)) == pytest.approx(0.5)
    assert estimates.paired_los(Summary.of([0.5, -0.25] * 40)) > 0.99
    assert estimates.paired_los(Summary.of([-0.5, 0.25] * 40)) < 0.01


@pytest.mark.parametrize(
    ("score", "elo"),
    [
        (0.5, 0.0),
        (0.75, 400 * math.log10(3)),
        (0.25, -400 * math.log10(3)),
        (1.0, 400 * math.log10(999)),
    ],
)
def test_elo_from_score(score, elo):
    assert estimates.elo_from_score(score) == pytest.approx(elo, abs=1e-9)


@given(elo=st.floats(-1000, 1000))
def test_score_from_elo_inverts_elo_from_score(elo):
    assert estimates.elo_from_score(estimates.score_from_elo(elo)) == pytest.approx(elo, abs=1e-6)


@pytest.mark.parametrize("score", [-0.1, 1.1, math.nan])
def test_elo_from_score_rejects_impossible_scores(score):
    with pytest.raises(ValueError, match="score"):
        estimates.elo_from_score(score)


def test_wilson_interval_for_no_wins_has_its_closed_form_upper_end():
    z = 1.96
    assert astuple(estimates.wilson_interval(0, 10)) == pytest.approx(
        (0.0, 0.0, z * z / (10 + z * z))
    )


def test_wilson_interval_is_symmetric_about_one_half():
    half = estimates.wilson_interval(5, 10)
    assert half.lower == pytest.approx(1 - half.upper)
    assert half.value == 0.5


@given(n=st.integers(1, 10_000), data=st.data())
def test_wilson_interval_contains_the_rate(n, data):
    wins = data.draw(st.integers(0, n))
    interval = estimates.wilson_interval(wins, n)
    assert 0 <= interval.lower <= interval.value <= interval.upper <= 1


def test_wilson_interval_without_games_is_the_whole_range():
    assert estimates.wilson_interval(0, 0) == Estimate(0.5, 0.0, 1.0)


# --- errors name the offending value --------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ((1, 2, -3, 4, 5), "-3"),
        ((1, 2, 3, 4), "5 entries"),
        ((1, 2, 3, 4, 5, 6), "5 entries"),
        ((1, 2, math.nan, 4, 5), "nan"),
    ],
)
def test_bad_counts_raise(counts, message):
    with pytest.raises(ValueError, match=message):
        sprt.llr_pentanomial(counts)
    with pytest.raises(ValueError, match=message):
        estimates.pentanomial_score(counts)


@pytest.mark.parametrize(
    ("alpha", "beta", "message"),
    [
        (0.0, 0.05, "alpha.*0.0"),
        (1.0, 0.05, "alpha.*1.0"),
        (0.05, -0.1, "beta.*-0.1"),
        (0.6, 0.5, "alpha \\+ beta"),
    ],
)
def test_bad_error_rates_raise(alpha, beta, message):
    with pytest.raises(ValueError, match=message):
        sprt.sprt_bounds(alpha, beta)
    with pytest.raises(ValueError, match=message):
        sprt.sprt_decision(0.0, alpha, beta)


@pytest.mark.parametrize(("elo0", "elo1"), [(2.0, 2.0), (3.0, 1.0), (0.0, math.inf)])
def test_bad_elo_bounds_raise(elo0, elo1):
    with pytest.raises(ValueError, match=f"elo0={elo0}, elo1={elo1}"):
        sprt.llr_pentanomial((1, 2, 3, 4, 5), elo0, elo1)


def test_unknown_model_raises():
    with pytest.raises(ValueError, match="'bayes'"):
        sprt.llr_pentanomial((1, 2, 3, 4, 5), model="bayes")


@pytest.mark.parametrize(("d0", "d1"), [(0.1, 0.1), (0.2, 0.1), (math.nan, 0.1)])
def test_bad_paired_hypotheses_raise(d0, d1):
    with pytest.raises(ValueError, match=f"d0={d0}, d1={d1}"):
        sprt.llr_paired(Summary.of([0.1, 0.2]), d0, d1)


@pytest.mark.parametrize("diff", [1.5, -1.01, math.nan])
def test_differences_outside_the_score_range_raise(diff):
    with pytest.raises(ValueError, match=str(diff)):
        Summary().add(diff)


@pytest.mark.parametrize(
    ("n", "total", "total_squares", "name"),
    [(-1, 0.0, 0.0, "n"), (2, 3.0, 2.0, "total"), (2, 0.0, 2.5, "total_squares")],
)
def test_impossible_summaries_raise(n, total, total_squares, name):
    with pytest.raises(ValueError, match=name):
        Summary(n, total, total_squares)


@pytest.mark.parametrize(
    ("wins", "n", "message"), [(11, 10, "wins.*11"), (-1, 10, "wins.*-1"), (0, -2, "n.*-2")]
)
def test_bad_win_counts_raise(wins, n, message):
    with pytest.raises(ValueError, match=message):
        estimates.wilson_interval(wins, n)


def test_bad_quantile_raises():
    with pytest.raises(ValueError, match=r"z.*-1"):
        estimates.wilson_interval(3, 10, z=-1)


def test_nan_llr_raises():
    with pytest.raises(ValueError, match="nan"):
        sprt.sprt_decision(math.nan)
