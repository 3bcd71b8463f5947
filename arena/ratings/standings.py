"""The standings: what a row holds, how rows are ranked and marked tied, and the win rate's
interval.

Choices made here (the brief left them open):

- Wins: a seat placed 1st wins, and a shared first place counts as a win for each seat.
- Standings rank by Elo (`arena.ratings.elo`), a batch fit over all games at once, so the
  order never depends on the order the games were played in (OpenSkill's does, and its sigma
  stays wide), then by win rate, then by name. An entrant whose 95% Elo interval overlaps the
  one ranked just above it is marked `tied`: the games cannot yet tell the two apart; ranks
  stay 1, 2, 3 so a chain of overlaps never merges a whole field into one rank. An
  elimination passes its bracket's ranking instead (`Summary.standings(ranking)`); ratings
  are then columns only. A gauntlet's champions never play each other, so they are not
  ranked: they follow the challengers' ranking, unranked, in the order given (`champions`).
  Entrants with no games come last, unranked, with empty stats.
- The OpenSkill ordinal (mu - 3 sigma) stays a column (`rating`).

It must stay pure: no file I/O, no clocks, no randomness. It reads no games: the rows are
built from the running totals of `arena.ratings.summary`, and rendered by
`arena.ratings.render`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from arena.ratings.elo import Z95

DECIMALS = 6
"""Ratings and rates are compared, and printed, at this many decimals."""


@dataclass(frozen=True, slots=True)
class FaultCounts:
    """How many faults of each kind an entrant committed."""

    timeout: int = 0
    crash: int = 0
    illegal: int = 0
    protocol: int = 0

    @property
    def total(self) -> int:
        """Return all faults together, for a quick health check."""
        return self.timeout + self.crash + self.illegal + self.protocol


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line of the standings; stats are None for an entrant with no games."""

    rank: int | None
    entrant: str
    games: int
    wins: int
    win_rate: float | None
    win_low: float | None
    win_high: float | None
    mean_placement: float | None
    rating: float | None
    mu: float | None
    sigma: float | None
    elo: float | None
    elo_low: float | None
    elo_high: float | None
    faults: FaultCounts
    tied: bool = False
    """Its 95% Elo interval overlaps that of the entrant ranked just above it."""


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Return the Wilson score interval for a proportion; honest even at 0 or n wins."""
    if trials <= 0 or not 0 <= successes <= trials:
        raise ValueError("need 0 <= successes <= trials and trials > 0")
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def rank(
    rows: Sequence[StandingRow],
    ranking: Sequence[str] | None = None,
    champions: Collection[str] = (),
) -> list[StandingRow]:
    """The rows ranked by Elo (then win rate, then name), each marked `tied` when the games
    cannot separate it from the one above; or, given a `ranking`, in that order. Champions
    (a gauntlet's, who never meet) follow unranked, in the order they are given."""
    if ranking is not None:
        return _in_ranking(rows, ranking)
    by_name = {row.entrant: row for row in rows}
    if unknown := sorted(set(champions) - set(by_name)):
        raise ValueError(f"unknown entrants among the champions: {unknown}")
    ranked = sorted((r for r in rows if r.games and r.entrant not in champions),
                    key=_standing_order)  # fmt: skip
    apart = [by_name[name] for name in champions]
    unranked = sorted((r for r in rows if not r.games and r.entrant not in champions),
                      key=lambda r: r.entrant)  # fmt: skip
    marked = [_with_rank(r, i, _overlaps(r, ranked[i - 2]) if i > 1 else False)
              for i, r in enumerate(ranked, 1)]  # fmt: skip
    return marked + apart + unranked


def _standing_order(row: StandingRow) -> tuple[float, float, str]:
    # Compare at the printed precision, so equal-looking ratings fall to the tie-breaks.
    return (
        -round(row.elo or 0.0, DECIMALS),
        -round(row.win_rate or 0.0, DECIMALS),
        row.entrant,
    )


def _overlaps(row: StandingRow, above: StandingRow) -> bool:
    """Whether two entrants' 95% Elo intervals overlap: the games cannot rank them apart."""
    low, high, above_low, above_high = row.elo_low, row.elo_high, above.elo_low, above.elo_high
    if low is None or high is None or above_low is None or above_high is None:
        return False
    return high >= above_low and above_high >= low


def _in_ranking(rows: Sequence[StandingRow], ranking: Sequence[str]) -> list[StandingRow]:
    """Rows in a given order, ranked 1, 2, ...; entrants it leaves out come after, unranked."""
    if len(set(ranking)) != len(ranking):
        raise ValueError(f"an entrant appears twice in the ranking: {list(ranking)}")
    by_name = {row.entrant: row for row in rows}
    if unknown := sorted(set(ranking) - set(by_name)):
        raise ValueError(f"unknown entrants in the ranking: {unknown}")
    ranked = [_with_rank(by_name[name], i) for i, name in enumerate(ranking, 1)]
    rest = sorted((r for r in rows if r.entrant not in set(ranking)), key=lambda r: r.entrant)
    return ranked + rest


def _with_rank(row: StandingRow, rank: int, tied: bool = False) -> StandingRow:
    return replace(row, rank=rank, tied=tied)
