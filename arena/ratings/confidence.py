"""How sure the games are of an order: the z of each adjacent gap, from one batch fit.

For two players a above b, the gap is Elo(a) - Elo(b) from the Bradley-Terry fit of
`arena.ratings.elo`, and its standard error is sqrt(Var(a) + Var(b) - 2 Cov(a, b)) from
that fit's covariance (the inverse of the observed Fisher information). Its z is the gap
over that error; the gap is `separated` when z >= Z95 (1.959964): the games put a above b
at 95%, one-sided against a tie. The standings' `~` mark asks instead whether the two
95% intervals overlap, which keeps them tied until the gap is Z95 * (error(a) + error(b)):
never less, and with more than two players well more, than Z95 times the difference's
own error. The z answers the ranking's question (is a above b?) with no more games than
it needs.

A player with no game is never separated from anyone: its gap counts its rating as 0
and its error as infinite (z 0).

It must stay pure: no file I/O, no clocks, no randomness; it reads only the `Summary` it
is given (`arena.ratings.summary`). The ladder (arena/tournament/formats/ladder/season.py) asks it
whether its top K are separated and which pairs are not.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from arena.ratings.elo import Z95, EloFit
from arena.ratings.summary import Summary

__all__ = ["Gap", "gaps"]


@dataclass(frozen=True, slots=True)
class Gap:
    """Two players of an order, the one above first, and how sure the games are of it."""

    above: str
    below: str
    difference: float
    """Elo(above) - Elo(below)."""
    error: float
    """Standard error of the difference, Elo points (infinite when one has no game)."""
    z: float
    """difference / error."""

    @property
    def separated(self) -> bool:
        """Whether the games put `above` above `below` at 95%."""
        return self.z >= Z95


def gaps(summary: Summary, order: Sequence[str], prior_draws: float = 1.0) -> tuple[Gap, ...]:
    """The adjacent pairs of `order` (1-2, 2-3, ...), each with its z from one batch fit."""
    if unknown := sorted(set(order) - set(summary.names)):
        raise ValueError(f"players the games do not know: {unknown}")
    if len(set(order)) != len(order):
        raise ValueError(f"a player appears twice in the order: {list(order)}")
    fit = summary.elo_fit(prior_draws)
    ratings = {row.entrant: row.rating for row in fit.ratings}
    return tuple(_gap(fit, ratings, a, b) for a, b in pairwise(order))


def _gap(fit: EloFit, ratings: Mapping[str, float | None], above: str, below: str) -> Gap:
    high, low = ratings[above], ratings[below]
    if high is None or low is None:
        return Gap(above, below, (high or 0.0) - (low or 0.0), math.inf, 0.0)
    cov = fit.covariance
    error = math.sqrt(max(cov[above, above] + cov[below, below] - 2 * cov[above, below], 0.0))
    return Gap(above, below, high - low, error, (high - low) / error if error > 0 else 0.0)
