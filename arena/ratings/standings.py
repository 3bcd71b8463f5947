"""Ratings, standings and the crosstable, derived from finished-game results.

This module turns the results in ``games.jsonl`` (already parsed into mappings) into
OpenSkill ratings, Elo ratings with confidence intervals, standings and a crosstable,
and renders them as JSON, CSV and Markdown text.

It must stay pure: no file I/O (renderers return strings; the tournament layer writes
files atomically), no clocks, no randomness. Games are always processed sorted by id,
so the output bytes never depend on the order in which games finished.

One pass, in memory that does not grow with the games: `summarise` feeds the games to a
`Summary`, which keeps running totals only: each entrant's OpenSkill rating (updated game
by game in id order), games, wins, placement sum and faults, and the pairwise tally of
who placed above whom (all the crosstable and the Elo fit need). Games that come in id
order (the games.jsonl of a round robin or a gauntlet) are read once and never held.
Games in another order give the same results, read a second time:

- a few ascending runs (an elimination's games.jsonl: its seeding ``rr-...`` before its
  knockout ``el-...``) are merged, holding one game per run;
- more runs (a shuffled list, such as the seeding stage's) are parsed and sorted in memory;
- so out-of-order games must be iterable again (a list, `arena.tournament.results.GameFile`): a
  one-shot iterator (a generator) found out of order cannot be rewound, and is refused
  with a ValueError rather than rated in the wrong order.

The functions `standings`, `openskill_ratings`, `elo_ratings` and `crosstable` each make
such a pass; the tournament makes one pass for all the derived files with `summarise`.

Choices made here (the brief left them open):

- Wins: a seat placed 1st wins, and a shared first place counts as a win for each seat.
- Standings rank by the Elo below, a batch fit over all games at once, so the order never
  depends on the order the games were played in (OpenSkill's does, and its sigma stays
  wide), then by win rate, then by name. An entrant whose 95% Elo interval overlaps the one
  ranked just above it is marked `tied`: the games cannot yet tell the two apart; ranks stay
  1, 2, 3 so a chain of overlaps never merges a whole field into one rank. An elimination
  passes its bracket's ranking instead (`Summary.standings(ranking)`); ratings are then
  columns only. Entrants with no games come last, unranked, with empty stats.
- The OpenSkill ordinal (mu - 3 sigma) stays a column (`rating`), game by game in id order.
- Elo: Bradley-Terry (logistic, 400-point scale) fitted by maximum likelihood with
  damped Newton steps over pairwise placements (win 1, draw 1/2, loss 0). Each entrant
  gets a weak prior of ``prior_draws`` virtual draws (default 1) against a 0-rated
  opponent, so all-wins or all-losses stay finite. Ratings are then shifted so their mean
  is 0. Intervals use the observed Fisher information (the exact curvature at the
  estimate): deterministic, cheap, and free of the degenerate resamples a bootstrap
  produces on short runs. Seats at one table are not independent comparisons, so for
  tables of more than two the intervals are somewhat narrow.
- Intervals are 95%, with z = 1.959964 (the normal 97.5% quantile) everywhere.
- OpenSkill uses ``PlackettLuce()`` with the library defaults (mu 25, sigma 25/3, tau
  25/300); an entrant with no games keeps the model's prior rating.
"""

from __future__ import annotations

import csv
import heapq
import io
import itertools
import json
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from statistics import NormalDist
from typing import Any

from openskill.models import PlackettLuce

FAULT_KINDS: tuple[str, ...] = ("timeout", "crash", "illegal", "protocol")

_Z95 = NormalDist().inv_cdf(0.975)
_ELO_SCALE = 400 / math.log(10)  # Elo points per natural-log unit of strength
_DECIMALS = 6
_NEWTON_STEPS = 200
_NEWTON_TOLERANCE = 1e-10
MERGED_RUNS = 8
_MESSAGES_KEPT = 100  # distinct fault messages counted per entrant: memory stays bounded
_MESSAGE_CHARS = 200
"""Out-of-order games in at most this many ascending runs are merged, not sorted in memory."""

_Pair = tuple[int, int, int, float]  # (i, j, games shared, score of i against j)
_Tally = dict[tuple[str, str], list[int]]  # (a, b) -> [shared, a above, a below, ties]


# --- values ---------------------------------------------------------------------------


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
class OpenSkillRating:
    """An entrant's Plackett-Luce rating with its 95% interval (mu ± z·sigma)."""

    entrant: str
    games: int
    mu: float
    sigma: float
    ordinal: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class EloRating:
    """An entrant's Elo with its 95% interval; None when the entrant played no game."""

    entrant: str
    games: int
    rating: float | None
    low: float | None
    high: float | None


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


@dataclass(frozen=True, slots=True)
class CrossRow:
    """How ``entrant`` fared against ``opponent`` over the games they shared."""

    entrant: str
    opponent: str
    games: int
    above: int
    below: int
    ties: int


@dataclass(frozen=True, slots=True)
class _Game:
    id: str
    entrants: tuple[str, ...]
    placements: tuple[int, ...]
    faults: tuple[tuple[int, str, str], ...]
    """(seat, kind, message) of each fault."""


@dataclass(slots=True)
class _Totals:
    """One entrant's running counts over the games fed so far."""

    games: int = 0
    wins: int = 0
    placements: int = 0
    faults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULT_KINDS, 0))
    messages: Counter[str] | None = field(default_factory=Counter)
    """Its faults as `kind: message`, while every game it played so far had one (then None:
    a bot that can only fail is worth a warning, one that sometimes fails is in the tables)."""


class _OutOfOrder(ValueError):
    """A game whose id sorts before the id of the game fed just before it."""


# --- parsing ----------------------------------------------------------------------------


def _check_entrants(entrants: Sequence[str]) -> tuple[str, ...]:
    names = tuple(entrants)
    if len(set(names)) != len(names):
        raise ValueError(f"entrant names must be unique: {list(names)}")
    return names


def _parse_game(raw: Mapping[str, Any], known: set[str]) -> _Game:
    game_id = str(raw["id"])
    seats = tuple(str(name) for name in raw["entrants"])
    placements = tuple(int(place) for place in raw["placements"])
    if len(seats) < 2:
        raise ValueError(f"game {game_id}: a table needs at least two seats")
    if len(set(seats)) != len(seats):
        raise ValueError(f"game {game_id}: the same entrant sits twice at one table")
    if unknown := sorted(set(seats) - known):
        raise ValueError(f"game {game_id}: unknown entrants {unknown}")
    if len(placements) != len(seats) or min(placements) < 1:
        raise ValueError(f"game {game_id}: need one placement >= 1 per seat")
    return _Game(game_id, seats, placements, _parse_faults(raw, game_id, len(seats)))


def _parse_faults(
    raw: Mapping[str, Any], game_id: str, seats: int
) -> tuple[tuple[int, str, str], ...]:
    faults = []
    for fault in raw.get("faults") or ():
        seat, kind = int(fault["seat"]), str(fault["kind"])
        if kind not in FAULT_KINDS or not 0 <= seat < seats:
            raise ValueError(f"game {game_id}: bad fault {dict(fault)!r}")
        faults.append((seat, kind, " ".join(str(fault.get("message") or "").split())))
    return tuple(faults)


def _game_id(game: _Game) -> str:
    return game.id


def _runs(games: Iterable[Mapping[str, Any]]) -> list[tuple[int, int]]:
    """[start, stop) of each stretch of ascending ids, from one pass that keeps only ids."""
    starts, last, count = [0], "", 0
    for count, raw in enumerate(games, 1):
        game_id = str(raw["id"])
        if game_id < last:
            starts.append(count - 1)
        last = game_id
    return list(zip(starts, [*starts[1:], count], strict=True))


def _in_id_order(games: Iterable[Mapping[str, Any]], known: set[str]) -> Iterator[_Game]:
    """Parse games that can be read again in id order: merge a few runs, else sort them."""
    runs = _runs(games)
    if len(runs) > MERGED_RUNS:
        return iter(sorted((_parse_game(raw, known) for raw in games), key=_game_id))
    parsed = [
        (_parse_game(raw, known) for raw in itertools.islice(games, start, stop))
        for start, stop in runs
    ]
    return heapq.merge(*parsed, key=_game_id)


# --- one pass -----------------------------------------------------------------------------


class Summary:
    """Running totals of the games fed in id order: all that the derived tables need.

    Memory depends on the entrants, never on the games. `rate=False` skips OpenSkill (the
    one costly update) when only the crosstable or Elo is wanted.
    """

    def __init__(self, entrants: Sequence[str], *, rate: bool = True) -> None:
        self.names = _check_entrants(entrants)
        self.rate = rate
        self._known = set(self.names)
        self._model = PlackettLuce()
        self._ratings = {name: self._model.rating(name=name) for name in self.names}
        self._totals = {name: _Totals() for name in self.names}
        self._pairs: _Tally = {}
        self._last: str | None = None
        self._fits: dict[float, tuple[EloRating, ...]] = {}
        """Elo fits by prior, kept until the next game: a fit costs O(entrants³) per step."""

    def add(self, raw: Mapping[str, Any]) -> None:
        """Count one game, whose id must sort after the last one's (ValueError if not)."""
        self._add(_parse_game(raw, self._known))

    def _add(self, game: _Game) -> None:
        if self._last is not None and game.id <= self._last:
            if game.id == self._last:
                raise ValueError(f"game {game.id} appears twice")
            raise _OutOfOrder(f"game {game.id} comes after game {self._last}, out of id order")
        self._last = game.id
        self._fits.clear()
        if self.rate:
            self._rate(game)
        self._count(game)
        _tally_game(self._pairs, game)

    def _rate(self, game: _Game) -> None:
        teams = [[self._ratings[name]] for name in game.entrants]
        rated = self._model.rate(teams, ranks=list(game.placements))
        for name, team in zip(game.entrants, rated, strict=True):
            self._ratings[name] = team[0]

    def _count(self, game: _Game) -> None:
        for name, place in zip(game.entrants, game.placements, strict=True):
            totals = self._totals[name]
            totals.games += 1
            totals.wins += place == 1
            totals.placements += place
        for seat, kind, _ in game.faults:
            self._totals[game.entrants[seat]].faults[kind] += 1
        _keep_messages(self._totals, game)

    def _played(self) -> dict[str, int]:
        return {name: self._totals[name].games for name in self.names}

    def openskill(self) -> tuple[OpenSkillRating, ...]:
        """Each entrant's OpenSkill rating after the games fed so far, in entrant order."""
        if not self.rate:
            raise ValueError("this summary was made without OpenSkill (rate=False)")
        return tuple(
            _openskill_row(name, self._totals[name].games, self._ratings[name])
            for name in self.names
        )

    def elo(self, prior_draws: float = 1.0) -> tuple[EloRating, ...]:
        """Fit Bradley-Terry Elo to the pairwise tally (see `elo_ratings`)."""
        if prior_draws < 0:
            raise ValueError("prior_draws must be >= 0")
        fit = self._fits.get(prior_draws)
        if fit is None:
            fit = self._fits[prior_draws] = _elo(
                self._pairs, self._played(), self.names, prior_draws
            )
        return fit

    def always_faulted(self) -> tuple[tuple[str, int, str], ...]:
        """Entrants that faulted in every game they played, in entrant order: each with its
        games and its commonest fault (`kind: message`), for a warning at the end of a run."""
        return tuple(
            (name, totals.games, totals.messages.most_common(1)[0][0])
            for name, totals in self._totals.items()
            if totals.games and totals.messages
        )

    def crosstable(self) -> tuple[CrossRow, ...]:
        """Head-to-head counts for every ordered pair of entrants, in entrant order."""
        return tuple(
            CrossRow(a, b, *self._pairs.get((a, b), (0, 0, 0, 0)))
            for a in self.names
            for b in self.names
            if a != b
        )

    def standings(self, ranking: Sequence[str] | None = None) -> list[StandingRow]:
        """The standings ranked by Elo (then win rate, then name), each row marked `tied`
        when the games cannot separate it from the one above; or, given a `ranking` (an
        elimination's bracket, best first), in that order with the ratings as columns."""
        skill = {row.entrant: row for row in self.openskill()}
        elo = {row.entrant: row for row in self.elo()}
        rows = [_standing(name, self._totals[name], skill[name], elo[name]) for name in self.names]
        if ranking is not None:
            return _in_ranking(rows, ranking)
        ranked = sorted((r for r in rows if r.games), key=_standing_order)
        unranked = sorted((r for r in rows if not r.games), key=lambda r: r.entrant)
        marked = [_with_rank(r, i, _overlaps(r, ranked[i - 2]) if i > 1 else False)
                  for i, r in enumerate(ranked, 1)]  # fmt: skip
        return marked + unranked


def _clip(text: str, limit: int = _MESSAGE_CHARS) -> str:
    """The text whole when it is short, else cut at the last word that fits, with "…"."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if text[limit - 1] != " " and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip() + "…"


def _keep_messages(totals: Mapping[str, _Totals], game: _Game) -> None:
    """Count the game's fault messages of each entrant that has faulted in every game so
    far; forget them at its first game without a fault."""
    said: dict[str, list[str]] = {}
    for seat, kind, message in game.faults:
        said.setdefault(game.entrants[seat], []).append(_clip(f"{kind}: {message}"))
    for name in game.entrants:
        messages = totals[name].messages
        if messages is None:
            continue
        if name not in said:
            totals[name].messages = None
            continue
        for text in said[name]:
            if text in messages or len(messages) < _MESSAGES_KEPT:
                messages[text] += 1


def summarise(
    games: Iterable[Mapping[str, Any]], entrants: Sequence[str], *, rate: bool = True
) -> Summary:
    """Feed every game to a Summary in id order: one pass when they come in that order,
    a second (merged or sorted) when they do not, which needs games it can read again."""
    summary = Summary(entrants, rate=rate)
    try:
        for raw in games:
            summary.add(raw)
    except _OutOfOrder as problem:
        if iter(games) is games:
            raise ValueError(
                f"{problem}: games from a one-shot iterator must come in id order "
                "(pass a list to have them sorted)"
            ) from None
        summary = Summary(entrants, rate=rate)
        for game in _in_id_order(games, summary._known):
            summary._add(game)
    return summary


# --- OpenSkill --------------------------------------------------------------------------


def openskill_ratings(
    games: Iterable[Mapping[str, Any]], entrants: Sequence[str]
) -> tuple[OpenSkillRating, ...]:
    """Rate entrants with Plackett-Luce over placements, one team per seat, ties equal."""
    return summarise(games, entrants).openskill()


def _openskill_row(name: str, games: int, rating: Any) -> OpenSkillRating:
    mu, sigma = float(rating.mu), float(rating.sigma)
    return OpenSkillRating(
        entrant=name,
        games=games,
        mu=mu,
        sigma=sigma,
        ordinal=mu - 3 * sigma,
        low=mu - _Z95 * sigma,
        high=mu + _Z95 * sigma,
    )


# --- crosstable -------------------------------------------------------------------------


def _tally_game(counts: _Tally, game: _Game) -> None:
    """Add one game to the [shared, above, below, ties] of each ordered pair at its table."""
    seats = list(zip(game.entrants, game.placements, strict=True))
    for a, place_a in seats:
        for b, place_b in seats:
            if a == b:
                continue
            row = counts.setdefault((a, b), [0, 0, 0, 0])
            row[0] += 1
            row[1 if place_a < place_b else 2 if place_a > place_b else 3] += 1


def crosstable(games: Iterable[Mapping[str, Any]], entrants: Sequence[str]) -> tuple[CrossRow, ...]:
    """Return head-to-head counts for every ordered pair of entrants, in config order."""
    return summarise(games, entrants, rate=False).crosstable()


# --- Elo --------------------------------------------------------------------------------


def elo_ratings(
    games: Iterable[Mapping[str, Any]], entrants: Sequence[str], *, prior_draws: float = 1.0
) -> tuple[EloRating, ...]:
    """Fit Bradley-Terry Elo to pairwise placements, mean 0, with 95% Fisher intervals."""
    if prior_draws < 0:
        raise ValueError("prior_draws must be >= 0")
    return summarise(games, entrants, rate=False).elo(prior_draws)


def _elo(
    tally: _Tally, played: Mapping[str, int], names: Sequence[str], prior_draws: float
) -> tuple[EloRating, ...]:
    fitted = [name for name in names if played[name] > 0]
    index = {name: i for i, name in enumerate(fitted)}
    pairs = [
        (index[a], index[b], counts[0], counts[1] + counts[3] / 2)
        for (a, b), counts in sorted(tally.items())
        if a < b
    ]
    if prior_draws == 0:
        _require_finite_maximum(len(fitted), pairs)
    strengths, variances = _fit_bradley_terry(len(fitted), pairs, prior_draws)
    estimates = {name: (strengths[i], variances[i]) for name, i in index.items()}
    return tuple(_elo_row(name, played[name], estimates.get(name)) for name in names)


def _elo_row(name: str, games: int, estimate: tuple[float, float] | None) -> EloRating:
    if estimate is None:
        return EloRating(name, games, None, None, None)
    strength, variance = estimate
    half_width = _Z95 * math.sqrt(max(variance, 0.0)) * _ELO_SCALE
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
) -> tuple[list[float], list[float]]:
    """Return mean-0 strengths (natural log units) and their variances."""
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
    return [t - mean for t in theta], _centred_variances(_inverse(info))


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


def _centred_variances(covariance: Sequence[Sequence[float]]) -> list[float]:
    """Return the variances of each strength minus the mean strength."""
    size = len(covariance)
    row_means = [sum(row) / size for row in covariance]
    grand_mean = sum(row_means) / size
    return [covariance[i][i] - 2 * row_means[i] + grand_mean for i in range(size)]


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
    """Solve matrix · X = right by Gauss-Jordan elimination with partial pivoting."""
    size = len(matrix)
    rows = [list(matrix[i]) + list(right[i]) for i in range(size)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-300:
            raise ValueError("singular information matrix in the Elo fit")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][col]
        rows[col] = [cell / lead for cell in rows[col]]
        for r in range(size):
            if r != col and rows[r][col] != 0:
                factor = rows[r][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [row[size:] for row in rows]


# --- standings --------------------------------------------------------------------------


def wilson_interval(successes: int, trials: int, z: float = _Z95) -> tuple[float, float]:
    """Return the Wilson score interval for a proportion; honest even at 0 or n wins."""
    if trials <= 0 or not 0 <= successes <= trials:
        raise ValueError("need 0 <= successes <= trials and trials > 0")
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def standings(
    games: Iterable[Mapping[str, Any]],
    entrants: Sequence[str],
    ranking: Sequence[str] | None = None,
) -> list[StandingRow]:
    """Return the standings ranked by Elo, then win rate, then name (see Summary.standings)."""
    return summarise(games, entrants).standings(ranking)


def _standing_order(row: StandingRow) -> tuple[float, float, str]:
    # Compare at the printed precision, so equal-looking ratings fall to the tie-breaks.
    return (
        -round(row.elo or 0.0, _DECIMALS),
        -round(row.win_rate or 0.0, _DECIMALS),
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


_OPTIONAL_STATS: tuple[str, ...] = (
    "win_rate", "win_low", "win_high", "mean_placement",
    "rating", "mu", "sigma", "elo", "elo_low", "elo_high",
)  # fmt: skip


def _standing(name: str, totals: _Totals, skill: OpenSkillRating, elo: EloRating) -> StandingRow:
    counts = FaultCounts(**totals.faults)
    if not totals.games:
        empty: dict[str, Any] = dict.fromkeys(_OPTIONAL_STATS)
        return StandingRow(rank=None, entrant=name, games=0, wins=0, faults=counts, **empty)
    games, wins = totals.games, totals.wins
    low, high = wilson_interval(wins, games)
    return StandingRow(
        rank=None,
        entrant=name,
        games=games,
        wins=wins,
        win_rate=wins / games,
        win_low=low,
        win_high=high,
        mean_placement=totals.placements / games,
        rating=skill.ordinal,
        mu=skill.mu,
        sigma=skill.sigma,
        elo=elo.rating,
        elo_low=elo.low,
        elo_high=elo.high,
        faults=counts,
    )


# --- renderers --------------------------------------------------------------------------


def _rounded(value: float | None) -> float | None:
    # Adding 0.0 turns -0.0 into 0.0, so a sign of zero never changes the bytes.
    return None if value is None else round(value, _DECIMALS) + 0.0


def _fixed(value: float | None) -> str:
    return "" if value is None else f"{_rounded(value):.{_DECIMALS}f}"


def ratings_json(openskill: Sequence[OpenSkillRating], elo: Sequence[EloRating]) -> str:
    """Render both rating systems as JSON keyed by entrant, sorted keys, 6 decimals."""
    by_name = {row.entrant: row for row in elo}
    document = {
        "interval": 0.95,
        "entrants": {
            row.entrant: {
                "games": row.games,
                "openskill": {
                    "mu": _rounded(row.mu),
                    "sigma": _rounded(row.sigma),
                    "ordinal": _rounded(row.ordinal),
                    "low": _rounded(row.low),
                    "high": _rounded(row.high),
                },
                "elo": _elo_json(by_name.get(row.entrant)),
            }
            for row in openskill
        },
    }
    return json.dumps(document, sort_keys=True, indent=2, allow_nan=False) + "\n"


def _elo_json(row: EloRating | None) -> dict[str, float | None] | None:
    if row is None or row.rating is None:
        return None
    return {"rating": _rounded(row.rating), "low": _rounded(row.low), "high": _rounded(row.high)}


_STANDING_COLUMNS: tuple[str, ...] = (
    "rank", "entrant", "games", "wins", "win_rate", "win_low", "win_high", "mean_placement",
    "rating", "mu", "sigma", "elo", "elo_low", "elo_high", *FAULT_KINDS, "tied",
)  # fmt: skip
"""`rating` is the OpenSkill ordinal; `tied` (1 or 0) was added last, so readers by position
of older files still find every other column where it was."""


def _csv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def standings_csv(rows: Sequence[StandingRow]) -> str:
    """Render the standings as CSV, one column per stat and per fault kind."""
    return _csv(_STANDING_COLUMNS, (_standing_cells(row) for row in rows))


def _standing_cells(row: StandingRow) -> list[object]:
    floats = (
        row.win_rate, row.win_low, row.win_high, row.mean_placement,
        row.rating, row.mu, row.sigma, row.elo, row.elo_low, row.elo_high,
    )  # fmt: skip
    faults = [getattr(row.faults, kind) for kind in FAULT_KINDS]
    rank = "" if row.rank is None else row.rank
    tied = int(row.tied) if row.rank is not None else ""
    return [rank, row.entrant, row.games, row.wins, *(_fixed(v) for v in floats), *faults, tied]


def crosstable_csv(rows: Sequence[CrossRow]) -> str:
    """Render the crosstable as CSV, one line per ordered pair."""
    header = ("entrant", "opponent", "games", "above", "below", "ties")
    return _csv(header, ((r.entrant, r.opponent, r.games, r.above, r.below, r.ties) for r in rows))


_MD_HEADER: tuple[str, ...] = (
    "#", "entrant", "games", "wins", "win rate (CI)", "place", "Elo ±95%", "OpenSkill", "faults",
)  # fmt: skip
_MD_LEFT = frozenset({"entrant", "faults"})
_TIE_MARK = "~"
MD_NOTE = (
    "Ranked by Elo (Bradley-Terry over all games, ±95% CI); ~: CI overlaps the one above, a tie. "
    "OpenSkill: mu - 3 sigma."
)
MD_BRACKET_NOTE = (
    "Ranked by the bracket: champion first, then by round reached. Elo (±95% CI) and OpenSkill "
    "(mu - 3 sigma): columns."
)


def standings_md(rows: Sequence[StandingRow], *, bracket: bool = False) -> str:
    """Render the standings as an aligned Markdown table that also reads well in a terminal
    (at most 120 columns for entrant names of up to 24 characters), with one line saying
    what orders it: Elo and its ties, or an elimination's `bracket`."""
    table = [list(_MD_HEADER), *(_md_cells(row) for row in rows)]
    # At least three wide, so every rule cell holds a hyphen as Markdown requires.
    widths = [max(3, *(len(line[col]) for line in table)) for col in range(len(_MD_HEADER))]
    left = [name in _MD_LEFT for name in _MD_HEADER]
    rule = [
        "-" * w if is_left else "-" * (w - 1) + ":" for w, is_left in zip(widths, left, strict=True)
    ]
    lines = [_md_line(line, widths, left) for line in table]
    lines.insert(1, "| " + " | ".join(rule) + " |")
    return "\n".join(lines) + "\n\n" + (MD_BRACKET_NOTE if bracket else MD_NOTE) + "\n"


def _md_line(cells: Sequence[str], widths: Sequence[int], left: Sequence[bool]) -> str:
    padded = (
        cell.ljust(width) if is_left else cell.rjust(width)
        for cell, width, is_left in zip(cells, widths, left, strict=True)
    )
    return "| " + " | ".join(padded) + " |"


def _md_cells(row: StandingRow) -> list[str]:
    rank = "-" if row.rank is None else (_TIE_MARK if row.tied else "") + str(row.rank)
    return [
        rank,
        row.entrant,
        str(row.games),
        str(row.wins),
        _md_win_rate(row),
        "-" if row.mean_placement is None else f"{row.mean_placement:.2f}",
        _md_elo(row),
        "-" if row.rating is None else f"{_rounded(row.rating):.2f}",
        _md_faults(row.faults),
    ]


def _md_faults(faults: FaultCounts) -> str:
    """The total and its kind, or `mixed`: one short cell however many kinds occurred (each
    kind has its own column in standings.csv)."""
    if not faults.total:
        return "-"
    kinds = [kind for kind in FAULT_KINDS if getattr(faults, kind)]
    return f"{faults.total} {kinds[0] if len(kinds) == 1 else 'mixed'}"


def _md_win_rate(row: StandingRow) -> str:
    if row.win_rate is None or row.win_low is None or row.win_high is None:
        return "-"
    return f"{100 * row.win_rate:.1f}% ({100 * row.win_low:.0f}-{100 * row.win_high:.0f})"


def _md_elo(row: StandingRow) -> str:
    if row.elo is None or row.elo_low is None or row.elo_high is None:
        return "-"
    half = (row.elo_high - row.elo_low) / 2  # a Fisher interval is symmetric
    return f"{round(row.elo) + 0:+d} ±{half:.0f}"
