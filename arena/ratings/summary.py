"""The one pass over finished games: running totals, OpenSkill, and the tables they give.

This module turns the results in ``games.jsonl`` (already parsed into mappings) into
OpenSkill ratings, Elo ratings with confidence intervals, standings and a crosstable.

One pass, in memory that does not grow with the games: `summarise` feeds the games to a
`Summary`, which keeps running totals only: each entrant's OpenSkill rating (updated game
by game in id order), games, wins, placement sum and faults, and the pairwise tally of
who placed above whom (all the crosstable and the Elo fit need). Games that come in id
order (the games.jsonl of a round robin or a gauntlet) are read once and never held.
Games in another order give the same results, read a second time (`arena.ratings.games`
merges or sorts them), so out-of-order games must be iterable again (a list,
`arena.tournament.run.results.GameFile`): a one-shot iterator (a generator) found out of order
cannot be rewound, and is refused with a ValueError rather than rated in the wrong order.

The functions `standings`, `openskill_ratings`, `elo_ratings` and `crosstable` each make
such a pass; the tournament makes one pass for all the derived files with `summarise`.

OpenSkill uses ``PlackettLuce()`` with the library defaults (mu 25, sigma 25/3, tau
25/300), game by game in id order; an entrant with no games keeps the model's prior rating.

It must stay pure: no file I/O, no clocks, no randomness. Games are always processed
sorted by id, so the results never depend on the order in which games finished.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from arena.ratings.elo import Z95, EloFit, EloRating, Tally, elo_fit
from arena.ratings.games import FAULT_KINDS, Game, check_entrants, in_id_order, parse_game
from arena.ratings.standings import FaultCounts, StandingRow, rank, wilson_interval

_MESSAGES_KEPT = 100  # distinct fault messages counted per entrant: memory stays bounded
_MESSAGE_CHARS = 200


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
class CrossRow:
    """How ``entrant`` fared against ``opponent`` over the games they shared."""

    entrant: str
    opponent: str
    games: int
    above: int
    below: int
    ties: int


@dataclass(slots=True)
class _Totals:
    """One entrant's running counts over the games fed so far."""

    games: int = 0
    wins: int = 0
    placements: int = 0
    faults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULT_KINDS, 0))
    faulted: int = 0
    """Games in which it faulted at least once."""
    messages: Counter[str] | None = field(default_factory=Counter)
    """Its faults as `kind: message`, while every game it played so far had one (then None:
    a bot that can only fail is worth a warning, one that sometimes fails is in the tables)."""


class _OutOfOrder(ValueError):
    """A game whose id sorts before the id of the game fed just before it."""


class Summary:
    """Running totals of the games fed in id order: all that the derived tables need.

    Memory depends on the entrants, never on the games. `rate=False` skips OpenSkill (the
    one costly update) when only the crosstable or Elo is wanted.
    """

    def __init__(self, entrants: Sequence[str], *, rate: bool = True) -> None:
        self.names = check_entrants(entrants)
        self.rate = rate
        self._known = set(self.names)
        self._model = PlackettLuce()
        self._ratings = {name: self._model.rating(name=name) for name in self.names}
        self._totals = {name: _Totals() for name in self.names}
        self._pairs: Tally = {}
        self._last: str | None = None
        self._fits: dict[float, EloFit] = {}
        """Elo fits by prior, kept until the next game: a fit costs O(entrants³) per step."""

    def add(self, raw: Mapping[str, Any]) -> None:
        """Count one game, whose id must sort after the last one's (ValueError if not)."""
        self._add(parse_game(raw, self._known))

    def _add(self, game: Game) -> None:
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

    def _rate(self, game: Game) -> None:
        teams = [[self._ratings[name]] for name in game.entrants]
        rated = self._model.rate(teams, ranks=list(game.placements))
        for name, team in zip(game.entrants, rated, strict=True):
            self._ratings[name] = team[0]

    def _count(self, game: Game) -> None:
        for name, place in zip(game.entrants, game.placements, strict=True):
            totals = self._totals[name]
            totals.games += 1
            totals.wins += place == 1
            totals.placements += place
        for seat, kind, _ in game.faults:
            self._totals[game.entrants[seat]].faults[kind] += 1
        for seat in {seat for seat, _, _ in game.faults}:
            self._totals[game.entrants[seat]].faulted += 1
        _keep_messages(self._totals, game)

    def _played(self) -> dict[str, int]:
        return {name: self._totals[name].games for name in self.names}

    def kept(self) -> dict[str, Any]:
        """The running totals as JSON values (orders kept), for a season's next run to go
        on from (`resumed`) without feeding every game again."""
        return {"last": self._last,
                "ratings": [[n, float(self._ratings[n].mu), float(self._ratings[n].sigma)]
                            for n in self.names],
                "totals": [[n, t.games, t.wins, t.placements, t.faults, t.faulted,
                            None if t.messages is None else list(t.messages.items())]
                           for n, t in ((n, self._totals[n]) for n in self.names)],
                "pairs": [[a, b, *row] for (a, b), row in self._pairs.items()]}

    @classmethod
    def resumed(cls, kept: Mapping[str, Any], entrants: Sequence[str]) -> Summary:
        """The summary `kept` gave, its entrants those of `entrants` (new ones unplayed)."""
        summary = cls(entrants)
        if not {str(row[0]) for row in kept["totals"]} <= summary._known:
            raise ValueError("the kept totals name an entrant not given")
        summary._last = kept["last"]
        for name, mu, sigma in kept["ratings"]:
            summary._ratings[name] = summary._model.rating(mu=mu, sigma=sigma, name=name)
        for name, games, wins, placements, faults, faulted, messages in kept["totals"]:
            counts = {**dict.fromkeys(FAULT_KINDS, 0), **faults}
            summary._totals[name] = _Totals(games, wins, placements, counts, faulted,
                                            None if messages is None else Counter(dict(messages)))
        summary._pairs = {(a, b): list(row) for a, b, *row in kept["pairs"]}
        return summary

    def admit(self, entrants: Sequence[str]) -> None:
        """Make `entrants` (every entrant so far among them) the summary's, the new ones
        unplayed: a season's new players, without feeding its games again."""
        names = check_entrants(entrants)
        if not self._known <= set(names):
            raise ValueError("an entrant of the summary is missing from the new entrants")
        for name in set(names) - self._known:
            self._ratings[name] = self._model.rating(name=name)
            self._totals[name] = _Totals()
        self.names, self._known = names, set(names)
        self._fits.clear()

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
        return self.elo_fit(prior_draws).ratings

    def elo_fit(self, prior_draws: float = 1.0) -> EloFit:
        """The Elo fit with the ratings' covariance, for how far apart two entrants are."""
        if prior_draws < 0:
            raise ValueError("prior_draws must be >= 0")
        fit = self._fits.get(prior_draws)
        if fit is None:
            fit = self._fits[prior_draws] = elo_fit(
                self._pairs, self._played(), self.names, prior_draws
            )
        return fit

    def faulted(self) -> dict[str, int]:
        """Each entrant's games in which it faulted at least once, in entrant order."""
        return {name: self._totals[name].faulted for name in self.names}

    def always_faulted(self) -> tuple[tuple[str, int, str], ...]:
        """Entrants that faulted in every game they played, in entrant order: each with its
        games and its commonest fault (`kind: message`, its trace's frames on the lines
        below), for a warning at the end of a run."""
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

    def standings(
        self, ranking: Sequence[str] | None = None, champions: Sequence[str] = ()
    ) -> list[StandingRow]:
        """The standings ranked by Elo (then win rate, then name), each row marked `tied`
        when the games cannot separate it from the one above; or, given a `ranking` (an
        elimination's bracket, best first), in that order with the ratings as columns. A
        gauntlet's `champions` never met each other: they follow, unranked."""
        skill = {row.entrant: row for row in self.openskill()}
        elo = {row.entrant: row for row in self.elo()}
        rows = [_standing(name, self._totals[name], skill[name], elo[name]) for name in self.names]
        return rank(rows, ranking, champions)


def _clip(text: str, limit: int = _MESSAGE_CHARS) -> str:
    """The text whole when it is short, else cut at the last word that fits, with "…"."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if text[limit - 1] != " " and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip() + "…"


def _keep_messages(totals: Mapping[str, _Totals], game: Game) -> None:
    """Count the game's fault messages of each entrant that has faulted in every game so
    far; forget them at its first game without a fault."""
    said: dict[str, list[str]] = {}
    for seat, kind, message in game.faults:
        words, _, frames = message.partition("\n")  # the trace's frames stay whole, below
        shown = _clip(f"{kind}: {words}") + (f"\n{frames}" if frames else "")
        said.setdefault(game.entrants[seat], []).append(shown)
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
        for game in in_id_order(games, summary._known):
            summary._add(game)
    return summary


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
        low=mu - Z95 * sigma,
        high=mu + Z95 * sigma,
    )


def _tally_game(counts: Tally, game: Game) -> None:
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


def elo_ratings(
    games: Iterable[Mapping[str, Any]], entrants: Sequence[str], *, prior_draws: float = 1.0
) -> tuple[EloRating, ...]:
    """Fit Bradley-Terry Elo to pairwise placements, mean 0, with 95% Fisher intervals."""
    if prior_draws < 0:
        raise ValueError("prior_draws must be >= 0")
    return summarise(games, entrants, rate=False).elo(prior_draws)


def standings(
    games: Iterable[Mapping[str, Any]],
    entrants: Sequence[str],
    ranking: Sequence[str] | None = None,
    champions: Sequence[str] = (),
) -> list[StandingRow]:
    """Return the standings ranked by Elo, then win rate, then name (see Summary.standings)."""
    return summarise(games, entrants).standings(ranking, champions)


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
