"""The verdict of `arena compare`: running totals over groups and the two sequential tests.

The results of the groups are folded into running totals strictly in group order, and both
tests are looked at again after every group. So the verdict is a function of the settings
and the seed alone: never of the number of workers, of timing, or of the order games finish
in.

Two one-sided tests run side by side on the same groups: *better?* (the candidate is
`elo1` better, against `elo0`) and its mirror *worse?* (the baseline is `elo1` better).
The verdict is `better` or `worse` when either accepts its H1, `same` when both accept H0,
and `inconclusive` when the game limit comes first. Here too: the exit status of each
verdict and the JSON summary of a comparison.

This module must not play games, print, parse command lines, or compute statistics itself:
the numbers come from `arena.compare.sprt` and `arena.compare.estimates`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from arena.compare.estimates import (
    ELO_CAP,
    NELO_PER_T,
    Estimate,
    beyond_scale,
    elo_estimate,
    paired_difference,
    paired_los,
    paired_nelo,
    paired_score,
    pentanomial_los,
    pentanomial_nelo,
    pentanomial_score,
)
from arena.compare.groups import CompareError, GroupResult, Setup
from arena.compare.samples import Summary
from arena.compare.sprt import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    Sprt,
    sprt_paired,
    sprt_pentanomial,
)

Verdict = Literal["better", "same", "worse", "inconclusive"]

DEFAULT_ELO0 = 0.0
DEFAULT_ELO1 = 10.0
"""Normalized Elo. fishtest's [0, 2] needs ~80 000 pairs; [0, 10] about 3 200 (see docs)."""


@dataclass(frozen=True, slots=True)
class Bounds:
    """The sequential tests' hypotheses (normalized Elo) and error rates."""

    elo0: float = DEFAULT_ELO0
    elo1: float = DEFAULT_ELO1
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA

    def group_t_values(self) -> tuple[float, float]:
        """The bounds as group t-values for the paired test (a pair's t is √2 per-game t)."""
        scale = math.sqrt(2) / NELO_PER_T
        return self.elo0 * scale, self.elo1 * scale


@dataclass(frozen=True, slots=True)
class Tally:
    """Running totals over groups, in group order."""

    groups: int = 0
    games: int = 0
    pentanomial: tuple[int, ...] = (0, 0, 0, 0, 0)
    summary: Summary = dataclasses.field(default_factory=Summary)
    candidate_faults: int = 0
    baseline_faults: int = 0

    def add(self, result: GroupResult) -> Tally:
        """Return the totals with one more group."""
        cell = min(4, max(0, round(2 * (result.diff + 1))))
        counts = tuple(c + (i == cell) for i, c in enumerate(self.pentanomial))
        return Tally(
            self.groups + 1, self.games + result.games, counts,
            self.summary.add(result.diff),
            self.candidate_faults + result.candidate_faults,
            self.baseline_faults + result.baseline_faults,
        )


@dataclass(frozen=True, slots=True)
class Look:
    """One sequential test's state: its last SPRT look, and the group it decided at, if any."""

    sprt: Sprt
    decided_at: int | None = None


@dataclass(frozen=True, slots=True)
class Comparison:
    """Where a comparison stands: settings, totals, both tests, and the figures to print."""

    setup: Setup
    bounds: Bounds
    max_games: int
    tally: Tally
    better: Look
    worse: Look

    @property
    def decision(self) -> Verdict | None:
        """The verdict once a test has settled it; None while play should go on."""
        if self.better.sprt.verdict == "H1":
            return "better"
        if self.worse.sprt.verdict == "H1":
            return "worse"
        if self.better.sprt.verdict == self.worse.sprt.verdict == "H0":
            return "same"
        return None

    @property
    def verdict(self) -> Verdict:
        """The decision, or `inconclusive` when play stopped without one."""
        return self.decision or "inconclusive"

    @property
    def score(self) -> Estimate:
        """The candidate's head-to-head score with its 95% interval (0.5 is equal)."""
        if self.setup.seats == 2:
            return pentanomial_score(self.tally.pentanomial)
        return paired_score(self.tally.summary)

    @property
    def elo(self) -> Estimate:
        """The score on the logistic Elo scale, interval included."""
        return elo_estimate(self.score)

    @property
    def nelo(self) -> Estimate:
        """The candidate's normalized Elo, the unit of the tests' bounds, interval included."""
        if self.setup.seats == 2:
            return pentanomial_nelo(self.tally.pentanomial)
        return paired_nelo(self.tally.summary)

    @property
    def to_decision(self) -> float:
        """How near the tests are to a verdict, 0 to 1: the furthest an LLR has gone toward
        a bound that decides (either test's upper bound; for `same`, the lower bound of
        the test still further from its own)."""
        better, worse = self.better.sprt, self.worse.sprt
        up = max(better.llr / better.upper, worse.llr / worse.upper)
        down = min(better.llr / better.lower, worse.llr / worse.lower)
        return min(1.0, max(0.0, up, down))

    @property
    def los(self) -> float:
        """Likelihood of superiority: the chance the candidate is truly the better."""
        if self.setup.seats == 2:
            return pentanomial_los(self.tally.pentanomial)
        return paired_los(self.tally.summary)

    @property
    def difference(self) -> Estimate:
        """Mean paired score difference per group, in [-1, 1], with its 95% interval."""
        return paired_difference(self.tally.summary)

    def add(self, result: GroupResult) -> Comparison:
        """Fold in the next group and look at both tests again."""
        tally = self.tally.add(result)
        better = _look(self.better, tally, self.setup.seats, self.bounds, mirror=False)
        worse = _look(self.worse, tally, self.setup.seats, self.bounds, mirror=True)
        return Comparison(self.setup, self.bounds, self.max_games, tally, better, worse)


def _look(previous: Look, tally: Tally, seats: int, bounds: Bounds, mirror: bool) -> Look:
    """Look at one test again, unless it has already decided (a decided SPRT stays decided)."""
    if previous.decided_at is not None:
        return previous
    sprt = sprt_of(tally, seats, bounds, mirror)
    return Look(sprt, tally.groups if sprt.verdict else None)


def sprt_of(tally: Tally, seats: int, bounds: Bounds, mirror: bool = False) -> Sprt:
    """The better? test on the totals, or with `mirror` the worse? test (sides swapped)."""
    if seats == 2:
        counts = tally.pentanomial[::-1] if mirror else tally.pentanomial
        try:
            return sprt_pentanomial(
                counts, bounds.elo0, bounds.elo1, bounds.alpha, bounds.beta
            )
        except ValueError as exc:
            raise CompareError(f"--elo0/--elo1: {exc}") from exc
    summary = tally.summary
    if mirror:
        summary = Summary(summary.n, -summary.total, summary.total_squares)
    d0, d1 = bounds.group_t_values()
    return sprt_paired(summary, d0, d1, bounds.alpha, bounds.beta)


def start(setup: Setup, bounds: Bounds, max_games: int) -> Comparison:
    """A comparison before any group: both tests at LLR 0."""
    tally = Tally()
    begin = Look(Sprt.judge(0.0, bounds.alpha, bounds.beta))
    return Comparison(setup, bounds, max_games, tally, begin, begin)


# --- exit status and the JSON summary ------------------------------------------------------

EXIT_STATUS: Mapping[Verdict, int] = MappingProxyType(
    {"better": 0, "same": 0, "worse": 1, "inconclusive": 3}
)


def exit_status(verdict: Verdict, require_better: bool = False) -> int:
    """0 not worse (with require_better: better), 1 worse (or not better), 3 inconclusive."""
    if require_better and verdict == "same":
        return 1
    return EXIT_STATUS[verdict]


def summary_dict(state: Comparison, require_better: bool = False) -> dict[str, Any]:
    """The comparison as plain JSON-ready values (the keys are documented in docs/compare.md)."""
    setup, bounds, tally = state.setup, state.bounds, state.tally
    out: dict[str, Any] = {
        "candidate": setup.candidate.label,
        "baseline": setup.baseline.label,
        "rules": setup.rules,
        "options": dict(setup.options),
        "seats": setup.seats,
        "field": [e.label for e in setup.field],
        "seed": setup.seed,
        "games": tally.games,
        "groups": tally.groups,
        "max_games": state.max_games,
        "score": _estimate(state.score),
        "elo": {**_estimate(state.elo), "beyond_scale": beyond_scale(state.elo.value, ELO_CAP)},
        "nelo": {**_estimate(state.nelo), "beyond_scale": beyond_scale(state.nelo.value)},
        "los": state.los,
        "bounds": {"elo0": bounds.elo0, "elo1": bounds.elo1,
                   "alpha": bounds.alpha, "beta": bounds.beta},
        "better": _look_dict(state.better),
        "worse": _look_dict(state.worse),
        "faults": {"candidate": tally.candidate_faults, "baseline": tally.baseline_faults},
        "verdict": state.verdict,
        "exit_status": exit_status(state.verdict, require_better),
    }
    if setup.seats == 2:
        out["pentanomial"] = list(tally.pentanomial)
    else:
        out["difference"] = _estimate(state.difference)
    return out


def _estimate(estimate: Estimate) -> dict[str, float]:
    return {"value": estimate.value, "lower": estimate.lower, "upper": estimate.upper}


def _look_dict(look: Look) -> dict[str, Any]:
    sprt = look.sprt
    return {"llr": sprt.llr, "lower": sprt.lower, "upper": sprt.upper,
            "verdict": sprt.verdict, "decided_at_group": look.decided_at}
