"""The Swiss schedule: rounds of tables of players with close scores who have not met, as
a pure state machine, `Swiss`.

Guarantees (pinned by tests/tournament/test_swiss.py; ids and seeds as in
arena/tournament/formats/schedule.py):

- Round r + 1 is a function of (entrant order, settings, seed, the results of rounds
  1..r) only, so a resumed run rebuilds exactly the rounds it played. A round is one batch:
  it is seated only once every game of the round before has a result.
- Before each round the players stand in order of score, then Buchholz, then seed order
  (the entrants' config order); `pair_round` (arena/tournament/formats/swiss/pairing.py) seats
  them from that order: byes first, then tables top-down with no repeat meeting while the
  search can avoid one.
- Each table plays `games` deals; each deal is played at every cyclic rotation of the
  table (standing order first), so every player sits in every seat once per deal (seats
  balanced at every table), and the rotations of one deal share its seed,
  `derive_seed(seed, group)`. Ids: `sw-r01-t01-d01-1` (round, table, deal, rotation),
  zero-padded to widths fixed by the settings, so they sort in play order.
- Scores: a game gives a seat (k - place) / (k - 1) points for k seats (two seats: a win
  1, a loss 0); a player's round score is the mean over its games of the round, so a
  round is worth 0 to 1 whatever `games` and `seats` are, as a chess round is; a bye
  is worth a won round, 1. Scores are exact fractions, so ties are real ties.
- Buchholz: the sum, over every round a player sat at a table, of its table mates'
  current scores; a bye round counts as seats - 1 table mates with the player's own score
  (a virtual opponent of equal standing: it neither helps nor harms a player against the
  ones it is tied with on score, where Buchholz decides).

This module is pure: no I/O, no clocks, no random draws at all, no games played, no rule
of the game known (a round scores the placements it is given). The final ranking's third
tie-break, the batch Elo rating, is passed in by the plan (arena/tournament/formats/plan.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from arena.seeds import derive_seed
from arena.tournament.formats.schedule import GameSpec, check_count, check_seats, id_width
from arena.tournament.formats.swiss.pairing import Pairing, pair_key, pair_round

__all__ = ["Round", "Standing", "Swiss", "SwissTable"]

Results = Mapping[str, Sequence[int]]


@dataclass(frozen=True, slots=True)
class SwissTable:
    """One table of a round: its players, its games, and each player's round score."""

    number: int
    entrants: tuple[int, ...]  # standing order, which is also game 1's seat order
    games: tuple[GameSpec, ...]
    scores: tuple[Fraction, ...] = ()
    """Each entrant's round score, by `entrants`; empty until every game has a result."""


@dataclass(frozen=True, slots=True)
class Round:
    """One round: its tables, its byes, and whether every game of it has a result."""

    number: int
    tables: tuple[SwissTable, ...]
    byes: tuple[int, ...]
    repeats: int
    """Earlier meetings among the players of its tables (0 when none met again)."""
    complete: bool

    @property
    def name(self) -> str:
        """The stage name of its games: `round-1`, `round-2`, ..."""
        return f"round-{self.number}"


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's place after some rounds: its score, Buchholz and byes so far."""

    entrant: int
    score: Fraction
    buchholz: Fraction
    byes: int


@dataclass(frozen=True, slots=True)
class Swiss:
    """A Swiss tournament as a pure value: the settings; `rounds_played` replays results."""

    order: tuple[int, ...]  # entrant indexes in seed order
    seats: int
    games: int
    rounds: int
    seed: int

    def __post_init__(self) -> None:
        check_seats(len(self.order), self.seats)
        check_count("games", self.games, 1)
        check_count("rounds", self.rounds, 1)
        if len(set(self.order)) != len(self.order):
            raise ValueError(f"order={list(self.order)!r}: an entrant appears twice")

    @property
    def total(self) -> int:
        """How many games the whole tournament has: its shape never depends on who wins."""
        return self.rounds * (len(self.order) // self.seats) * self.games * self.seats

    def rounds_played(self, results: Results) -> list[Round]:
        """The rounds so far: every complete one, then the one being played (if any)."""
        history = _History(self)
        played: list[Round] = []
        for number in range(1, self.rounds + 1):
            pairing = pair_round(history.order(), self.seats, history.met, history.byes)
            this = self._round(number, pairing, results)
            played.append(this)
            if not this.complete:
                break
            history.add(this)
        return played

    def finished(self, played: Sequence[Round]) -> bool:
        """Whether `played` (from `rounds_played`) ends with the last round, complete."""
        return len(played) == self.rounds and played[-1].complete

    def standings(self, played: Sequence[Round]) -> tuple[Standing, ...]:
        """Everyone after the complete rounds of `played`, in standing order."""
        history = _History(self)
        for this in played:
            if this.complete:
                history.add(this)
        return tuple(history.standing(p) for p in history.order())

    def ranking(
        self, played: Sequence[Round], elo: Mapping[int, float], names: Sequence[str]
    ) -> tuple[int, ...]:
        """The final order: score, Buchholz, then `elo` (higher first; 0 for a player
        without one), then name: every tie-break the standings state, and no other."""
        rows = self.standings(played)

        def key(row: Standing) -> tuple[Fraction, Fraction, float, str]:
            return (-row.score, -row.buchholz, -elo.get(row.entrant, 0.0), names[row.entrant])

        return tuple(row.entrant for row in sorted(rows, key=key))

    def _round(self, number: int, pairing: Pairing, results: Results) -> Round:
        tables = []
        for t, entrants in enumerate(pairing.tables, 1):
            games = self._table_games(number, t, entrants)
            tables.append(_settle(SwissTable(t, entrants, games), results, self.seats))
        complete = all(table.scores for table in tables)
        return Round(number, tuple(tables), pairing.byes, pairing.repeats, complete)

    def _table_games(self, number: int, t: int, entrants: tuple[int, ...]) -> tuple[GameSpec, ...]:
        n = len(self.order)
        prefix = (
            f"sw-r{number:0{id_width(self.rounds, 2)}d}"
            f"-t{t:0{id_width(n // self.seats, 2)}d}"
        )
        specs = []
        for d in range(1, self.games + 1):
            group = f"{prefix}-d{d:0{id_width(self.games, 2)}d}"
            seed = derive_seed(self.seed, group)
            for r in range(len(entrants)):
                game_id = f"{group}-{r + 1:0{id_width(self.seats, 1)}d}"
                seating = entrants[r:] + entrants[:r]
                specs.append(GameSpec(game_id, f"round-{number}", t, seating, seed, group))
        return tuple(specs)


def _settle(table: SwissTable, results: Results, seats: int) -> SwissTable:
    """The table with each player's round score, once every game of it has a result."""
    if any(g.id not in results for g in table.games):
        return table
    points = dict.fromkeys(table.entrants, Fraction(0))
    for game in table.games:
        placements = results[game.id]
        if len(placements) != len(game.seats):
            raise ValueError(f"result for {game.id!r}: {list(placements)!r} is not one place "
                             f"for each of its {len(game.seats)} seats")
        for entrant, place in zip(game.seats, placements, strict=True):
            points[entrant] += Fraction(seats - place, seats - 1)
    each = len(table.games)  # every player sits in every game of its table
    return SwissTable(table.number, table.entrants, table.games,
                      tuple(points[e] / each for e in table.entrants))


class _History:
    """The running state pairing reads: scores, table mates, meetings and byes."""

    def __init__(self, swiss: Swiss) -> None:
        self.seeds = {p: i for i, p in enumerate(swiss.order)}
        self.seats = swiss.seats
        self.score = dict.fromkeys(swiss.order, Fraction(0))
        self.mates: dict[int, list[int]] = {p: [] for p in swiss.order}
        self.byes = dict.fromkeys(swiss.order, 0)
        self.met: dict[tuple[int, int], int] = {}

    def add(self, played: Round) -> None:
        for table in played.tables:
            for entrant, score in zip(table.entrants, table.scores, strict=True):
                self.score[entrant] += score
                self.mates[entrant].extend(p for p in table.entrants if p != entrant)
            for i, a in enumerate(table.entrants):
                for b in table.entrants[i + 1 :]:
                    self.met[pair_key(a, b)] = self.met.get(pair_key(a, b), 0) + 1
        for entrant in played.byes:
            self.score[entrant] += 1
            self.byes[entrant] += 1

    def buchholz(self, p: int) -> Fraction:
        virtual = (self.seats - 1) * self.byes[p] * self.score[p]
        return sum((self.score[m] for m in self.mates[p]), Fraction(0)) + virtual

    def standing(self, p: int) -> Standing:
        return Standing(p, self.score[p], self.buchholz(p), self.byes[p])

    def order(self) -> tuple[int, ...]:
        """Score, then Buchholz (both higher first), then seed order."""
        key = {p: (-self.score[p], -self.buchholz(p), self.seeds[p]) for p in self.score}
        return tuple(sorted(self.score, key=key.__getitem__))
