"""The ladder's Elo fit: the same maximum and intervals as arena.ratings.elo, started from the
last batch's ratings and solved by Cholesky, so that a batch of a thousand players is fitted
in seconds, not hours.

The model is `arena.ratings.elo`'s (Bradley-Terry on the 400-point scale over the pairwise
tally, `prior_draws` virtual draws against a 0-rated opponent, mean 0, intervals from the
observed Fisher information), and so is the stopping rule (damped Newton steps until one
moves no strength by 1e-10): the ratings and intervals agree with `elo_fit` on the same
tally to far below the printed digits (tests/ratings/test_warm.py). What differs is the
work: the information matrix is factored once per step (Cholesky, n³/6, where Gauss-Jordan
costs n³) and inverted once at the end (n³/6 more); only its diagonal and the covariances
asked for are formed. A start near the answer (the previous batch's ratings) takes one or
two steps where a cold start takes six or more.

It must stay pure: no file I/O, no clocks, no randomness; it reads only the tally it is given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import mul

from arena.ratings.elo import (
    _ELO_SCALE,
    _NEWTON_STEPS,
    _NEWTON_TOLERANCE,
    EloRating,
    Tally,
    _elo_row,
    _gradient_and_information,
    _line_search,
)

__all__ = ["WarmFit", "warm_fit"]


@dataclass(frozen=True, slots=True)
class WarmFit:
    """One fit: each entrant's Elo, and what gives the covariance of any two of them."""

    ratings: tuple[EloRating, ...]
    strengths: Mapping[str, float]
    """The fitted entrants' mean-0 strengths (natural-log units): the next fit's start."""
    _index: Mapping[str, int]
    _columns: Sequence[Sequence[float]]
    """Column j of the inverse of the information's Cholesky factor, from row j down."""
    _sums: Sequence[float]
    """The inverse information's row sums."""

    def covariance(self, a: str, b: str) -> float:
        """Covariance of two fitted entrants' mean-0 ratings, in Elo points squared."""
        i, j = sorted((self._index[a], self._index[b]))
        inverse: float = sum(map(mul, self._columns[i][j - i:], self._columns[j]))
        size = len(self._sums)
        total = sum(self._sums)
        centred = inverse - (self._sums[i] + self._sums[j]) / size + total / size**2
        return centred * _ELO_SCALE**2


def warm_fit(tally: Tally, played: Mapping[str, int], names: Sequence[str],
             start: Mapping[str, float] | None = None, prior_draws: float = 1.0) -> WarmFit:
    """Each entrant's Elo fitted to the pairwise tally, in `names` order, from `start`'s
    strengths (an earlier fit's; 0 for an entrant it lacks)."""
    if prior_draws <= 0:
        raise ValueError("the warm fit needs prior_draws > 0")
    fitted = [name for name in names if played[name] > 0]
    index = {name: i for i, name in enumerate(fitted)}
    pairs = [(index[a], index[b], counts[0], counts[1] + counts[3] / 2)
             for (a, b), counts in sorted(tally.items()) if a < b]
    begin = [(start or {}).get(name, 0.0) for name in fitted]
    theta = _newton(begin, pairs, prior_draws)
    _, info = _gradient_and_information(theta, pairs, prior_draws)
    lower = _cholesky(info)
    columns = _inverse_columns(lower)
    sums = _solve(lower, [1.0] * len(theta))
    size = len(theta)
    mean = sum(theta) / size if size else 0.0
    total = sum(sums)
    estimates = {}
    for name, i in index.items():
        variance = sum(map(mul, columns[i], columns[i])) - 2 * sums[i] / size + total / size**2
        estimates[name] = (theta[i] - mean, variance)
    ratings = tuple(_elo_row(name, played[name], estimates.get(name)) for name in names)
    return WarmFit(ratings, {n: s for n, (s, _) in estimates.items()}, index, columns, sums)


def _newton(theta: list[float], pairs: Sequence[tuple[int, int, int, float]],
            prior: float) -> list[float]:
    """Damped Newton steps from `theta` until a step moves no strength by the tolerance."""
    for _ in range(_NEWTON_STEPS):
        if not theta:
            return theta
        gradient, info = _gradient_and_information(theta, pairs, prior)
        step = _solve(_cholesky(info), gradient)
        theta, moved = _line_search(theta, step, pairs, prior)
        if moved < _NEWTON_TOLERANCE:
            return theta
    raise RuntimeError("Elo fit did not converge")


def _cholesky(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    """The lower factor L of a symmetric positive definite matrix, L·Lᵀ = matrix (row i
    holds its i + 1 entries up to the diagonal)."""
    lower: list[list[float]] = []
    for i, row in enumerate(matrix):
        mine: list[float] = []
        for j in range(i):
            theirs = lower[j]
            mine.append((row[j] - sum(map(mul, mine, theirs))) / theirs[j])
        pivot = row[i] - sum(map(mul, mine, mine))
        if not pivot > 0:
            raise ValueError("singular information matrix in the Elo fit")
        mine.append(math.sqrt(pivot))
        lower.append(mine)
    return lower


def _solve(lower: Sequence[Sequence[float]], vector: Sequence[float]) -> list[float]:
    """x with L·Lᵀ·x = vector."""
    found: list[float] = []
    for row, value in zip(lower, vector, strict=True):
        found.append((value - sum(map(mul, row, found))) / row[-1])
    for i in range(len(found) - 1, -1, -1):
        found[i] /= lower[i][i]
        shift = found[i]
        row = lower[i]
        for k in range(i):
            found[k] -= row[k] * shift
    return found


def _inverse_columns(lower: Sequence[Sequence[float]]) -> list[list[float]]:
    """Each column j of L⁻¹ from its diagonal down (L⁻¹ is lower triangular too)."""
    columns = []
    for j in range(len(lower)):
        column = [1 / lower[j][j]]
        for i in range(j + 1, len(lower)):
            row = lower[i]
            column.append(-sum(map(mul, row[j:i], column)) / row[i])
        columns.append(column)
    return columns
