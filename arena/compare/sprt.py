"""The sequential tests behind ``arena compare``: generalized SPRTs and Wald's bounds.

* two seats: `llr_pentanomial` is fishtest's generalized SPRT on the pentanomial
  (official-stockfish/fishtest, server/fishtest/stats/LLRcalc.py), reproduced number for
  number without scipy.
* more seats: `llr_paired` is a Gaussian generalized SPRT on the t-value of the per-group
  difference d (its mean over its standard deviation).

`Sprt` bundles one look at a test: its LLR, Wald's bounds and the verdict once reached. The
maths is written out for strategy authors in docs/compare.md.

This module is pure: no I/O, no clocks, no randomness, no imports from the rest of arena
but the statistics beside it (`samples`, `estimates`), nothing outside the standard library.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from arena.compare.estimates import NELO_PER_T, score_from_elo
from arena.compare.samples import (
    PAIR_AVERAGES,
    PENTANOMIAL_CELLS,
    Summary,
    moments,
    regularized_counts,
    regularized_moments,
)

Verdict = Literal["H0", "H1"]
PentanomialModel = Literal["normalized", "logistic"]

DEFAULT_ELO0 = 0.0
DEFAULT_ELO1 = 2.0
"""fishtest's "standard STC" bounds, in normalized Elo, the model fishtest uses now."""

DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05

_MLE_ROUNDS = 10  # fishtest's MLE_t_value: at most ten fixed-point rounds...
_MLE_TOLERANCE = 1e-9  # ...stopping once no probability moves by this much
_SECULAR_MARGIN = 1e-9  # fishtest keeps the root search this far inside the poles
_ROOT_WIDTH = 1e-14


@dataclass(frozen=True, slots=True)
class Sprt:
    """One look at a sequential test: the LLR, Wald's bounds, and the verdict if reached."""

    llr: float
    lower: float
    upper: float
    verdict: Verdict | None

    @classmethod
    def judge(cls, llr: float, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA) -> Sprt:
        """Bundle an LLR with its bounds and verdict so callers print one value."""
        lower, upper = sprt_bounds(alpha, beta)
        return cls(llr, lower, upper, sprt_decision(llr, alpha, beta))


# --- the pentanomial SPRT (two seats) ---------------------------------------------------


def llr_pentanomial(
    counts: Sequence[float],
    elo0: float = DEFAULT_ELO0,
    elo1: float = DEFAULT_ELO1,
    model: PentanomialModel = "normalized",
) -> float:
    """Log-likelihood ratio of elo1 against elo0 for pair counts, exactly as fishtest does."""
    _check_elos(elo0, elo1)
    total, observed = _pair_distribution(counts)
    if model == "normalized":
        # a pair is two games: its t-value is sqrt(2) times the per-game one
        t0, t1 = (elo * math.sqrt(2) / NELO_PER_T for elo in (elo0, elo1))
        fitted0, fitted1 = _mle_t_value(observed, t0), _mle_t_value(observed, t1)
    elif model == "logistic":
        s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
        fitted0, fitted1 = _mle_expected(observed, s0), _mle_expected(observed, s1)
    else:
        raise ValueError(f"model must be 'normalized' or 'logistic', got {model!r}")
    jumps = (
        p * (math.log(q1) - math.log(q0))
        for p, q0, q1 in zip(observed, fitted0, fitted1, strict=True)
    )
    return total * sum(jumps)


def sprt_pentanomial(
    counts: Sequence[float],
    elo0: float = DEFAULT_ELO0,
    elo1: float = DEFAULT_ELO1,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    model: PentanomialModel = "normalized",
) -> Sprt:
    """Test pair counts against fishtest-style bounds in one call."""
    _check_error_rates(alpha, beta)
    return Sprt.judge(llr_pentanomial(counts, elo0, elo1, model), alpha, beta)


def sprt_bounds(alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA) -> tuple[float, float]:
    """Wald's log bounds, as fishtest sets them: accept H0 below the first, H1 above the second."""
    _check_error_rates(alpha, beta)
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def sprt_decision(
    llr: float, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA
) -> Verdict | None:
    """'H1' (candidate better), 'H0' (not better) or None (keep playing), as fishtest decides."""
    if math.isnan(llr):
        raise ValueError(f"llr must be a number, got {llr}")
    lower, upper = sprt_bounds(alpha, beta)
    if llr < lower:
        return "H0"
    if llr > upper:
        return "H1"
    return None


def _pair_distribution(counts: Sequence[float]) -> tuple[float, tuple[float, ...]]:
    """fishtest's results_to_pdf: regularized total and cell frequencies."""
    cells = regularized_counts(counts)
    total = sum(cells)
    return total, tuple(c / total for c in cells)


def _mle_expected(observed: Sequence[float], score: float) -> tuple[float, ...]:
    """The distribution nearest the observed one with the given mean (fishtest's MLE_expected)."""
    shifted = tuple(a - score for a in PAIR_AVERAGES)
    x = _secular(shifted, observed)
    return tuple(p / (1 + x * a) for a, p in zip(shifted, observed, strict=True))


def _mle_t_value(observed: Sequence[float], t: float) -> tuple[float, ...]:
    """The distribution nearest the observed one with t-value t about 1/2 (MLE_t_value)."""
    fitted = tuple(1 / PENTANOMIAL_CELLS for _ in observed)
    for _ in range(_MLE_ROUNDS):
        previous = fitted
        mean, variance = moments(fitted)
        sigma = math.sqrt(variance)
        shifted = tuple(
            a - 0.5 - t * sigma * (1 + ((mean - a) / sigma) ** 2) / 2 for a in PAIR_AVERAGES
        )
        x = _secular(shifted, observed)
        fitted = tuple(p / (1 + x * a) for a, p in zip(shifted, observed, strict=True))
        if max(abs(old - new) for old, new in zip(previous, fitted, strict=True)) < _MLE_TOLERANCE:
            break
    return fitted


def _secular(values: Sequence[float], probs: Sequence[float]) -> float:
    """Solve sum p*a/(1+x*a) = 0 for x between the poles (fishtest's secular, by bisection)."""
    low_value, high_value = min(values), max(values)
    if not low_value < 0 < high_value:
        raise ValueError(
            "elo bounds too far from these counts: no distribution on the pair scores fits them"
        )

    def secular(x: float) -> float:
        return sum(p * a / (1 + x * a) for a, p in zip(values, probs, strict=True))

    # the left side falls from +inf to -inf between the poles, so bisection cannot miss
    return _bisect(secular, -1 / high_value + _SECULAR_MARGIN, -1 / low_value - _SECULAR_MARGIN)


def _bisect(falling: Callable[[float], float], low: float, high: float) -> float:
    """Root of a decreasing function on [low, high], to about 1e-14."""
    while high - low > _ROOT_WIDTH:
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if falling(middle) > 0:
            low = middle
        else:
            high = middle
    return (low + high) / 2


# --- the paired SPRT (any number of seats) ----------------------------------------------


def llr_paired(summary: Summary, d0: float, d1: float) -> float:
    """Generalized log-likelihood ratio of t-value d1 against d0 for per-group differences.

    A t-value is the mean difference over its standard deviation per group (fishtest's
    normalized idea). The likelihood is Gaussian with sigma fitted under each hypothesis;
    see docs/compare.md for why t-values rather than score units.
    """
    _check_hypotheses(d0, d1)
    n, mean, variance = regularized_moments(summary)
    return n * (_t_value_loglik(mean, variance, d1) - _t_value_loglik(mean, variance, d0))


def sprt_paired(
    summary: Summary,
    d0: float,
    d1: float,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
) -> Sprt:
    """Test per-group differences against Wald's bounds in one call."""
    _check_error_rates(alpha, beta)
    return Sprt.judge(llr_paired(summary, d0, d1), alpha, beta)


def _t_value_loglik(mean: float, variance: float, t: float) -> float:
    """Per-group Gaussian log-likelihood (less a constant), best sigma given mu = t*sigma."""
    second = variance + mean * mean
    # d/d(1/sigma) of the log-likelihood is a quadratic in 1/sigma; take its positive root
    inverse_sigma = (t * mean + math.sqrt(t * t * mean * mean + 4 * second)) / (2 * second)
    return (
        math.log(inverse_sigma)
        - second * inverse_sigma**2 / 2
        + t * mean * inverse_sigma
        - t * t / 2
    )


# --- input checks -----------------------------------------------------------------------


def _check_elos(elo0: float, elo1: float) -> None:
    """H1 must claim more than H0, and both must be numbers."""
    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        raise ValueError(f"elo0 and elo1 must be finite, got elo0={elo0}, elo1={elo1}")
    if not elo0 < elo1:
        raise ValueError(f"elo0 must be below elo1, got elo0={elo0}, elo1={elo1}")


def _check_hypotheses(d0: float, d1: float) -> None:
    """H1 must claim a larger difference than H0, and both must be numbers."""
    if not (math.isfinite(d0) and math.isfinite(d1)):
        raise ValueError(f"d0 and d1 must be finite, got d0={d0}, d1={d1}")
    if not d0 < d1:
        raise ValueError(f"d0 must be below d1, got d0={d0}, d1={d1}")


def _check_error_rates(alpha: float, beta: float) -> None:
    """Each error rate in (0, 1), and together below 1 so the bounds straddle zero."""
    for name, rate in (("alpha", alpha), ("beta", beta)):
        if not 0 < rate < 1:
            raise ValueError(f"{name} must be in (0, 1), got {rate}")
    if not alpha + beta < 1:
        raise ValueError(f"alpha + beta must be below 1, got alpha={alpha}, beta={beta}")
