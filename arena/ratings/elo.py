"""Elo ratings with 95% intervals: a batch Bradley-Terry fit over pairwise placements.

Bradley-Terry (logistic, 400-point scale) fitted by maximum likelihood with damped Newton
steps over pairwise placements (win 1, draw 1/2, loss 0), from the tally of who placed above
whom that `arena.ratings.summary` keeps. Each entrant gets a weak prior of ``prior_draws``
virtual draws (default 1) against a 0-rated opponent, so all-wins or all-losses stay finite.
Ratings are then shifted so their mean is 0. Intervals use the observed Fisher information
(the exact curvature at the estimate): deterministic, cheap, and free of the degenerate
resamples a bootstrap produces on short runs. The inverse of that information is also the
ratings' covariance (`elo_fit`): Var(a) + Var(b) - 2 Cov(a, b) is the variance of a
difference, which `arena.ratings.confidence` turns into a z. Seats at one table are not
independent comparisons, so for tables of more than two the intervals are somewhat narrow.
Intervals are 95%, with z = 1.959964 (the normal 97.5% quantile) everywhere in the ratings
(`Z95`).

A batch fit over all games at once: its result never depends on the order the games were
played in. It must stay pure: no file I/O, no clocks, no randomness; it reads no games
(it is given the tally) and knows nothing of OpenSkill or the standings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)
_ELO_SCALE = 400 / math.log(10)  # Elo points per natural-log unit of strength
_NEWTON_STEPS = 200
_NEWTON_TOLERANCE = 1e-10

_Pair = tuple[int, int, int, float]  # (i, j, games shared, score of i against j)
Tally = dict[tuple[str, str], list[int]]  # (a, b) -> [shared, a above, a below, ties]


@dataclass(frozen=True, slots=True)
class EloRating:
    """An entrant's Elo with its 95% interval; None when the entrant played no game."""

    entrant: str
    games: int
    rating: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True, slots=True)
class EloFit:
    """One batch fit: each entrant's Elo, and the covariance of the fitted ones' ratings."""

    ratings: tuple[EloRating, ...]
    covariance: Mapping[tuple[str, str], float]
    """(a, b) -> covariance of the two mean-0 ratings, in Elo points squared, for every
    ordered pair of entrants that played (a == b: the variance)."""


def elo_fit(
    tally: Tally, played: Mapping[str, int], names: Sequence[str], prior_draws: float
) -> EloFit:
    """Each entrant's Elo fitted to the pairwise tally, in `names` order, with the
    covariance that gives the standard error of a difference of two ratings."""
    fitted = [name for name in names if played[name] > 0]
    index = {name: i for i, name in enumerate(fitted)}
    pairs = [
        (index[a], index[b], counts[0], counts[1] + counts[3] / 2)
        for (a, b), counts in sorted(tally.items())
        if a < b
    ]
    if prior_draws == 0:
        _require_finite_maximum(len(fitted), pairs)
    strengths, covariance = _fit_bradley_terry(len(fitted), pairs, prior_draws)
    estimates = {name: (strengths[i], covariance[i][i]) for name, i in index.items()}
    ratings = tuple(_elo_row(name, played[name], estimates.get(name)) for name in names)
    squared = _ELO_SCALE**2
    return EloFit(ratings, {(a, b): covariance[i][j] * squared
                            for a, i in index.items() for b, j in index.items()})


def _elo_row(name: str, games: int, estimate: tuple[float, float] | None) -> EloRating:
    if estimate is None:
        return EloRating(name, games, None, None, None)
    strength, variance = estimate
    half_width = Z95 * math.sqrt(max(variance, 0.0)) * _ELO_SCALE
    rating = strength * _ELO_SCALE
    return EloRating(name, games, rating, rating - half_width, rating + half_width)


def _require_finite_maximum(size: int, pairs: Sequence[_Pair]) -> None:
    """Without a prior the likelihood peaks at a finite point only if every entrant
    has scored against, and been scored on by, a path through every other (Hunter 2004)."""
    scored: list[set[int]] = [set() for _ in range(size)]
    for i, j, games, score in pairs:
        if score > 0:
            scored[i].add(j)
        if score < games:
            scored[j].add(i)
    conceded: list[set[int]] = [set() for _ in range(size)]
    for i, beaten in enumerate(scored):
        for j in beaten:
            conceded[j].add(i)
    if size and (len(_reach(scored)) < size or len(_reach(conceded)) < size):
        raise ValueError(
            "Elo without a prior is infinite here (someone never lost or never scored "
            "against part of the field); use prior_draws > 0"
        )


def _reach(edges: Sequence[set[int]]) -> set[int]:
    seen, frontier = {0}, [0]
    while frontier:
        for nxt in edges[frontier.pop()] - seen:
            seen.add(nxt)
            frontier.append(nxt)
    return seen


def _log_sigmoid(x: float) -> float:
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


def _log_likelihood(theta: Sequence[float], pairs: Sequence[_Pair], prior: float) -> float:
    total = sum(
        score * _log_sigmoid(theta[i] - theta[j])
        + (games - score) * _log_sigmoid(theta[j] - theta[i])
        for i, j, games, score in pairs
    )
    return total + sum(prior * (_log_sigmoid(t) + _log_sigmoid(-t)) / 2 for t in theta)


def _gradient_and_information(
    theta: Sequence[float], pairs: Sequence[_Pair], prior: float
) -> tuple[list[float], list[list[float]]]:
    """Return the score vector and the observed information (minus the Hessian)."""
    size = len(theta)
    gradient = [prior * (0.5 - _sigmoid(t)) for t in theta]
    info = [[0.0] * size for _ in range(size)]
    for i, t in enumerate(theta):
        info[i][i] = prior * _sigmoid(t) * (1 - _sigmoid(t))
    for i, j, games, score in pairs:
        p = _sigmoid(theta[i] - theta[j])
        gradient[i] += score - games * p
        gradient[j] -= score - games * p
        weight = games * p * (1 - p)
        info[i][i] += weight
        info[j][j] += weight
        info[i][j] -= weight
        info[j][i] -= weight
    if prior == 0:  # ratings are only defined up to a shift: pin the step to mean 0
        info = [[cell + 1 / size for cell in row] for row in info]
    return gradient, info


def _fit_bradley_terry(
    size: int, pairs: Sequence[_Pair], prior: float
) -> tuple[list[float], list[list[float]]]:
    """Return mean-0 strengths (natural log units) and their covariance matrix."""
    if size == 0:
        return [], []
    theta = [0.0] * size
    for _ in range(_NEWTON_STEPS):
        gradient, info = _gradient_and_information(theta, pairs, prior)
        step = _solve(info, gradient)
        theta, moved = _line_search(theta, step, pairs, prior)
        if moved < _NEWTON_TOLERANCE:
            break
    else:
        raise RuntimeError("Elo fit did not converge")
    mean = sum(theta) / size
    _, info = _gradient_and_information(theta, pairs, prior)
    return [t - mean for t in theta], _centred_covariance(_inverse(info))


def _line_search(
    theta: list[float], step: Sequence[float], pairs: Sequence[_Pair], prior: float
) -> tuple[list[float], float]:
    """Halve the Newton step until the likelihood does not fall (keeps big leaps safe)."""
    start = _log_likelihood(theta, pairs, prior)
    scale = 1.0
    for _ in range(60):
        trial = [t + scale * s for t, s in zip(theta, step, strict=True)]
        if _log_likelihood(trial, pairs, prior) >= start - 1e-12 * (1 + abs(start)):
            return trial, scale * max((abs(s) for s in step), default=0.0)
        scale /= 2
    return theta, 0.0


def _centred_covariance(covariance: Sequence[Sequence[float]]) -> list[list[float]]:
    """Return the covariance of the strengths each minus the mean strength."""
    size = len(covariance)
    row_means = [sum(row) / size for row in covariance]
    grand_mean = sum(row_means) / size
    return [[covariance[i][j] - row_means[i] - row_means[j] + grand_mean for j in range(size)]
            for i in range(size)]


def _solve(matrix: Sequence[Sequence[float]], vector: Sequence[float]) -> list[float]:
    columns = _gauss_jordan(matrix, [[v] for v in vector])
    return [row[0] for row in columns]


def _inverse(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    size = len(matrix)
    identity = [[float(i == j) for j in range(size)] for i in range(size)]
    return _gauss_jordan(matrix, identity)


def _gauss_jordan(
    matrix: Sequence[Sequence[float]], right: Sequence[Sequence[float]]
) -> list[list[float]]:
    """Solve matrix · X = right by Gauss-Jordan elimination with partial pivoting.

    Each row keeps only its columns from the one being eliminated on: a column left of it
    is never read again (for a pivot, a factor or the result), so dropping it gives the
    same bits as reworking whole rows, in half the work (a 200-entrant contest's fit)."""
    size = len(matrix)
    rows = [[*matrix[i], *right[i]] for i in range(size)]
    for col in range(size):  # rows[r][0] is column `col`
        pivot = max(range(col, size), key=lambda r: abs(rows[r][0]))
        if abs(rows[pivot][0]) < 1e-300:
            raise ValueError("singular information matrix in the Elo fit")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][0]
        live = [cell / lead for cell in rows[col][1:]]
        for r, row in enumerate(rows):
            factor = row[0]
            if r == col:
                rows[r] = live
            elif factor != 0:
                rows[r] = [a - factor * b for a, b in zip(row[1:], live, strict=True)]
            else:
                del row[0]
    return rows
