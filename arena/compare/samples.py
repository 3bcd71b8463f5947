"""The samples behind ``arena compare``'s statistics: pair counts and per-group differences.

A candidate bot plays a baseline in groups of games that share one seed (duplicate play):

* two seats: a group is a *pair* of games with seats swapped, scored 0, 0.5, 1, 1.5 or 2
  points for the candidate; the five counts are the *pentanomial*;
* more seats: a group yields one difference d = score(candidate) - score(baseline) in
  [-1, 1]; `Summary` keeps running totals of them.

Both are regularized the way fishtest does (`REGULARIZER`), so neither the sequential tests
(`arena.compare.sprt`) nor the estimates (`arena.compare.estimates`) meet an undefined
figure with few or identical groups.

This module is pure: no I/O, no clocks, no randomness, no imports from the rest of arena,
nothing outside the standard library. It tests nothing and estimates nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

REGULARIZER = 1e-3
"""fishtest's pseudo-count: empty pentanomial cells get this weight, paired samples get
this weight at each end of [-1, 1], so no figure is undefined with few or identical groups."""

PENTANOMIAL_CELLS = 5
PAIR_AVERAGES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""A pair's points per game, cell by cell."""


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


def regularized_counts(counts: Sequence[float]) -> tuple[float, ...]:
    """fishtest's regularize: an empty cell gets a tiny pseudo-count so no log is of zero."""
    checked = _checked_counts(counts)
    return tuple(c if c != 0 else REGULARIZER for c in checked)


def moments(probs: Sequence[float]) -> tuple[float, float]:
    """Mean and variance of a distribution over the pair averages (fishtest's stats)."""
    mean = sum(p * a for a, p in zip(PAIR_AVERAGES, probs, strict=True))
    variance = sum(p * (a - mean) ** 2 for a, p in zip(PAIR_AVERAGES, probs, strict=True))
    return mean, variance


def regularized_moments(summary: Summary) -> tuple[float, float, float]:
    """Weight, mean and (maximum-likelihood) variance after a pseudo-group at -1 and at +1."""
    n = summary.n + 2 * REGULARIZER
    mean = summary.total / n
    second = (summary.total_squares + 2 * REGULARIZER) / n
    return n, mean, max(second - mean * mean, 0.0)


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
