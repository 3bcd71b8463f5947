"""The figures ``arena compare`` prints: score, Elo and likelihood of superiority, with
95% intervals.

The candidate's score against the baseline is read from the pair counts (two seats, as
fishtest's get_elo computes it) or from the per-group differences (more seats, read as a
head-to-head score (1 + d) / 2); `elo_estimate` carries it over to the logistic Elo scale.
`pentanomial_nelo` and `paired_nelo` give it in normalized Elo, the unit of the sequential
tests' bounds (fishtest's: the score's excess over 0.5 per standard deviation of a game).
`wilson_interval` is the win rate's interval, for measurements in benchmarks/.

This module is pure: no I/O, no clocks, no randomness, no imports from the rest of arena
but `arena.compare.samples`, nothing outside the standard library. It decides nothing
(the sequential tests are `arena.compare.sprt`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

from arena.compare.samples import Summary, moments, regularized_counts, regularized_moments

Z95 = NormalDist().inv_cdf(0.975)
"""The two-sided 95% normal quantile, 1.95996..."""
NELO_PER_T = 800 / math.log(10)
"""Normalized Elo per unit of per-game t-value (fishtest's ``nelo_divided_by_nt``)."""
NELO_CAP = 1200.0
"""Normalized Elo is shown within ±1200, as logistic Elo is (fishtest's cap)."""
_ELO_SCORE_FLOOR = 1e-3  # fishtest caps Elo at about ±1200 rather than reporting infinity
ELO_CAP = -400 * math.log10(1 / (1 - _ELO_SCORE_FLOOR) - 1)
"""Logistic Elo's cap, 1199.8...: the Elo of a score of 0.999."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """A point estimate with the two ends of its confidence interval."""

    value: float
    lower: float
    upper: float


def pentanomial_score(counts: Sequence[float], z: float = Z95) -> Estimate:
    """The candidate's per-game score with a normal interval, computed as fishtest's get_elo."""
    mean, stderr = _pentanomial_mean_stderr(counts)
    return _interval(mean, stderr, z, 0.0, 1.0)


def pentanomial_los(counts: Sequence[float]) -> float:
    """Likelihood of superiority from pair counts, as fishtest computes it."""
    mean, stderr = _pentanomial_mean_stderr(counts)
    return _los(mean - 0.5, stderr)


def paired_difference(summary: Summary, z: float = Z95) -> Estimate:
    """Mean score difference per group with a normal interval."""
    mean, stderr = _paired_mean_stderr(summary)
    return _interval(mean, stderr, z, -1.0, 1.0)


def paired_score(summary: Summary, z: float = Z95) -> Estimate:
    """The difference read as a head-to-head score (1 + d) / 2, so 0.5 means equal strength."""
    diff = paired_difference(summary, z)
    return Estimate(*((1 + d) / 2 for d in (diff.value, diff.lower, diff.upper)))


def paired_los(summary: Summary) -> float:
    """Likelihood of superiority: the probability the true mean difference is above zero."""
    mean, stderr = _paired_mean_stderr(summary)
    return _los(mean, stderr)


def elo_from_score(score: float) -> float:
    """Logistic Elo of a score, capped at about ±1200 as fishtest does."""
    if not 0 <= score <= 1:
        raise ValueError(f"score must be in [0, 1], got {score}")
    capped = min(max(score, _ELO_SCORE_FLOOR), 1 - _ELO_SCORE_FLOOR)
    return -400 * math.log10(1 / capped - 1)


def beyond_scale(value: float, cap: float = NELO_CAP) -> Literal["above", "below"] | None:
    """Which end of the scale a capped figure sits at: there it is a clamp, not a measure."""
    if value >= cap:
        return "above"
    return "below" if value <= -cap else None


def score_from_elo(elo: float) -> float:
    """Expected score at a logistic Elo difference (fishtest's L_)."""
    return 1 / (1 + 10 ** (-elo / 400))


def elo_estimate(score: Estimate) -> Estimate:
    """Carry a score estimate and its interval over to logistic Elo (the map is monotone)."""
    return Estimate(*(elo_from_score(s) for s in (score.value, score.lower, score.upper)))


def pentanomial_nelo(counts: Sequence[float], z: float = Z95) -> Estimate:
    """The candidate's normalized Elo from pair counts, with its 95% interval: a pair's
    excess over 0.5 per standard deviation of a pair, over sqrt(2) for one game."""
    cells = regularized_counts(counts)
    pairs = sum(cells)
    mean, variance = moments(tuple(c / pairs for c in cells))
    return _nelo(mean - 0.5, math.sqrt(variance), pairs, z)


def paired_nelo(summary: Summary, z: float = Z95) -> Estimate:
    """The candidate's normalized Elo from per-group differences, with its 95% interval:
    the mean difference per standard deviation of a group, over sqrt(2) as a pair's is."""
    n, _, variance = regularized_moments(summary)
    return _nelo(summary.mean, math.sqrt(variance), n, z)


def _nelo(excess: float, spread: float, n: float, z: float) -> Estimate:
    """An excess and its interval in normalized Elo, `spread` being a group's deviation,
    capped at ±NELO_CAP: when one side wins (nearly) every group there is no spread to
    measure against, and the figure would say more about the pseudo-counts than the bots."""
    _check_z(z)
    scale = NELO_PER_T / (math.sqrt(2) * spread)  # regularized: never zero
    half = z * spread / math.sqrt(n)
    ends = (excess * scale, (excess - half) * scale, (excess + half) * scale)
    return Estimate(*(min(NELO_CAP, max(-NELO_CAP, x)) for x in ends))


def wilson_interval(wins: float, n: float, z: float = 1.96) -> Estimate:
    """Win rate with Wilson's interval, which stays inside [0, 1] even for 0 or n wins."""
    if not n >= 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if not 0 <= wins <= n:
        raise ValueError(f"wins must be in [0, n={n}], got {wins}")
    _check_z(z)
    if n == 0:
        return Estimate(0.5, 0.0, 1.0)  # the limit of Wilson's interval as n -> 0
    rate = wins / n
    spread = z * z / n
    centre = (rate + spread / 2) / (1 + spread)
    half = z / (1 + spread) * math.sqrt(rate * (1 - rate) / n + spread / (4 * n))
    # min/max keep the rate inside even when rounding nudges an end past it at 0 or n wins
    return Estimate(rate, max(0.0, min(rate, centre - half)), min(1.0, max(rate, centre + half)))


def _pentanomial_mean_stderr(counts: Sequence[float]) -> tuple[float, float]:
    """Per-game mean and its standard error from regularized pair counts."""
    cells = regularized_counts(counts)
    pairs = sum(cells)
    mean, variance = moments(tuple(c / pairs for c in cells))
    return mean, math.sqrt(variance / pairs)


def _paired_mean_stderr(summary: Summary) -> tuple[float, float]:
    """The plain mean difference, with a standard error from the regularized sample."""
    n, _, variance = regularized_moments(summary)  # never zero, even for identical groups
    return summary.mean, math.sqrt(variance / n)


def _interval(mean: float, stderr: float, z: float, low: float, high: float) -> Estimate:
    """mean ± z·stderr, clipped to the range the quantity can take."""
    _check_z(z)
    return Estimate(mean, max(low, mean - z * stderr), min(high, mean + z * stderr))


def _los(excess: float, stderr: float) -> float:
    """Phi(excess / stderr), with the sign of the excess when there is no spread at all."""
    if stderr == 0:
        return 0.5 if excess == 0 else float(excess > 0)
    return NormalDist().cdf(excess / stderr)


def _check_z(z: float) -> None:
    """A quantile for an interval must be positive and finite."""
    if not (math.isfinite(z) and z > 0):
        raise ValueError(f"z must be positive and finite, got {z}")
