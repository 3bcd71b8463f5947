"""Paired statistics and the sequential test behind ``arena compare``.

A candidate bot plays a baseline in groups of games that share one seed (duplicate play).
This module turns the group results into the figures `arena compare` prints and the
decision it stops on:

* two seats: a group is a *pair* of games with seats swapped, scored 0, 0.5, 1, 1.5 or 2
  points for the candidate; the five counts are the *pentanomial*. `llr_pentanomial` is
  fishtest's generalized SPRT (official-stockfish/fishtest, server/fishtest/stats/LLRcalc.py),
  reproduced number for number without scipy.
* more seats: a group yields one difference d = score(candidate) - score(baseline) in
  [-1, 1]; `Summary` keeps running totals and `llr_paired` is a Gaussian generalized SPRT
  on the t-value of d (its mean over its standard deviation).

The maths is written out for strategy authors in docs/compare.md.

This module is pure: no I/O, no clocks, no randomness, no imports from the rest of arena,
nothing outside the standard library.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

Verdict = Literal["H0", "H1"]
PentanomialModel = Literal["normalized", "logistic"]

NELO_PER_T = 800 / math.log(10)
"""Normalized Elo per unit of per-game t-value (fishtest's ``nelo_divided_by_nt``)."""

DEFAULT_ELO0 = 0.0
DEFAULT_ELO1 = 2.0
"""fishtest's "standard STC" bounds, in normalized Elo, the model fishtest uses now."""

DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05

Z95 = NormalDist().inv_cdf(0.975)
"""The two-sided 95% normal quantile, 1.95996..."""

REGULARIZER = 1e-3
"""fishtest's pseudo-count: empty pentanomial cells get this weight, paired samples get
this weight at each end of [-1, 1], so no figure is undefined with few or identical groups."""

PENTANOMIAL_CELLS = 5
_PAIR_AVERAGES = (0.0, 0.25, 0.5, 0.75, 1.0)  # a pair's points per game, cell by cell
_ELO_SCORE_FLOOR = 1e-3  # fishtest caps Elo at about ±1200 rather than reporting infinity
_MLE_ROUNDS = 10  # fishtest's MLE_t_value: at most ten fixed-point rounds...
_MLE_TOLERANCE = 1e-9  # ...stopping once no probability moves by this much
_SECULAR_MARGIN = 1e-9  # fishtest keeps the root search this far inside the poles
_ROOT_WIDTH = 1e-14


@dataclass(frozen=True, slots=True)
class Estimate:
    """A point estimate with the two ends of its confidence interval."""

    value: float
    lower: float
    upper: float


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


@dataclass(frozen=True, slots=True)
class Summary:
    """Running totals of per-group score differences, so the test updates one group at a time."""

    n: int = 0
    total: float = 0.0
    total_squares: float = 0.0

    def __post_init__(self) -> None:
        if self.n < 0:
            raise ValueError(f"n must be >= 0, got {self.n}")
        if not abs(self.total) <= self.n:
            raise ValueError(f"total must be in [-n, n] for n={self.n}, got {self.total}")
        if not 0 <= self.total_squares <= self.n:
            raise ValueError(f"total_squares must be in [0, n={self.n}], got {self.total_squares}")

    @classmethod
    def of(cls, diffs: Iterable[float]) -> Summary:
        """Summarize a batch of differences at once (same totals as adding them one by one)."""
        values = tuple(_checked_diff(d) for d in diffs)
        return cls(len(values), float(sum(values)), float(sum(d * d for d in values)))

    def add(self, diff: float) -> Summary:
        """Return the summary with one more group's difference."""
        d = _checked_diff(diff)
        return Summary(self.n + 1, self.total + d, self.total_squares + d * d)

    @property
    def mean(self) -> float:
        """Mean difference; 0.0 before any group."""
        return self.total / self.n if self.n else 0.0

    @property
    def variance(self) -> float:
        """Sample variance (n - 1 denominator); 0.0 before two groups."""
        if self.n < 2:
            return 0.0
        spread = self.total_squares - self.total * self.total / self.n
        return max(spread, 0.0) / (self.n - 1)


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
    cells = _regularized_counts(counts)
    total = sum(cells)
    return total, tuple(c / total for c in cells)


def _regularized_counts(counts: Sequence[float]) -> tuple[float, ...]:
    """fishtest's regularize: an empty cell gets a tiny pseudo-count so no log is of zero."""
    checked = _checked_counts(counts)
    return tuple(c if c != 0 else REGULARIZER for c in checked)


def _moments(probs: Sequence[float]) -> tuple[float, float]:
    """Mean and variance of a distribution over the pair averages (fishtest's stats)."""
    mean = sum(p * a for a, p in zip(_PAIR_AVERAGES, probs, strict=True))
    variance = sum(p * (a - mean) ** 2 for a, p in zip(_PAIR_AVERAGES, probs, strict=True))
    return mean, variance


def _mle_expected(observed: Sequence[float], score: float) -> tuple[float, ...]:
    """The distribution nearest the observed one with the given mean (fishtest's MLE_expected)."""
    shifted = tuple(a - score for a in _PAIR_AVERAGES)
    x = _secular(shifted, observed)
    return tuple(p / (1 + x * a) for a, p in zip(shifted, observed, strict=True))


def _mle_t_value(observed: Sequence[float], t: float) -> tuple[float, ...]:
    """The distribution nearest the observed one with t-value t about 1/2 (MLE_t_value)."""
    fitted = tuple(1 / PENTANOMIAL_CELLS for _ in observed)
    for _ in range(_MLE_ROUNDS):
        previous = fitted
        mean, variance = _moments(fitted)
        sigma = math.sqrt(variance)
        shifted = tuple(
            a - 0.5 - t * sigma * (1 + ((mean - a) / sigma) ** 2) / 2 for a in _PAIR_AVERAGES
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
    n, mean, variance = _regularized_moments(summary)
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


def _regularized_moments(summary: Summary) -> tuple[float, float, float]:
    """Weight, mean and (maximum-likelihood) variance after a pseudo-group at -1 and at +1."""
    n = summary.n + 2 * REGULARIZER
    mean = summary.total / n
    second = (summary.total_squares + 2 * REGULARIZER) / n
    return n, mean, max(second - mean * mean, 0.0)


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


# --- intervals, Elo, LOS ----------------------------------------------------------------


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


def score_from_elo(elo: float) -> float:
    """Expected score at a logistic Elo difference (fishtest's L_)."""
    return 1 / (1 + 10 ** (-elo / 400))


def elo_estimate(score: Estimate) -> Estimate:
    """Carry a score estimate and its interval over to logistic Elo (the map is monotone)."""
    return Estimate(*(elo_from_score(s) for s in (score.value, score.lower, score.upper)))


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
    cells = _regularized_counts(counts)
    pairs = sum(cells)
    mean, variance = _moments(tuple(c / pairs for c in cells))
    return mean, math.sqrt(variance / pairs)


def _paired_mean_stderr(summary: Summary) -> tuple[float, float]:
    """The plain mean difference, with a standard error from the regularized sample."""
    n, _, variance = _regularized_moments(summary)  # never zero, even for identical groups
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


# --- input checks -----------------------------------------------------------------------


def _checked_counts(counts: Sequence[float]) -> tuple[float, ...]:
    """Five finite, non-negative pair counts, lowest score first."""
    cells = tuple(counts)
    if len(cells) != PENTANOMIAL_CELLS:
        raise ValueError(f"counts must have {PENTANOMIAL_CELLS} entries (0 to 2 points): {cells}")
    for cell in cells:
        if not (math.isfinite(cell) and cell >= 0):
            raise ValueError(f"counts must be finite and >= 0, got {cell} in {cells}")
    return cells


def _checked_diff(diff: float) -> float:
    """A group's score difference, which cannot leave [-1, 1]."""
    if not -1 <= diff <= 1:
        raise ValueError(f"a score difference must be in [-1, 1], got {diff}")
    return float(diff)


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


def _check_z(z: float) -> None:
    """A quantile for an interval must be positive and finite."""
    if not (math.isfinite(z) and z > 0):
        raise ValueError(f"z must be positive and finite, got {z}")
