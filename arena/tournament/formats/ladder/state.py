"""A ladder season's running state: what its ranking, matchmaking and ladder.json need of
the games, updated by each game as it is logged, so that no batch reads the log again.

It keeps, over the games that count (arena.tournament.formats.ladder.log.counted), the pairwise
tally of the ladder's games (the Elo fit's sufficient statistics), each player's ladder
games and games it faulted in, the highest table played and the final's games; over every
game logged, the last batch each player sat in. The fit (arena.ratings.warm) starts from
the ratings of the history's last line (the previous batch's), never from a fit made in
memory only, so the same files give the same bytes whether or not a run was cut and
resumed. The runner builds it once from games.jsonl when a run starts and feeds it each
game after its line is written; the result is the same as a batch fit of the same games
from scratch (tests/tournament/test_ladder_state.py). It must not write files nor play
games.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.ratings.elo import _ELO_SCALE as ELO_SCALE
from arena.ratings.elo import EloRating, Tally
from arena.ratings.warm import WarmFit, warm_fit

__all__ = ["LadderState"]


@dataclass
class LadderState:
    """The ladder's sufficient statistics after the games fed so far."""

    voided: frozenset[str]
    starts: list[int]
    """How many games had been played when each batch began, batch `earlier` + 1 first."""
    earlier: int = 0
    """Batches begun before the first of `starts` (a state resumed from its file keeps only
    the last start: the games it is fed are all logged after it)."""
    logged: int = 0
    """Games fed (lines of games.jsonl), voided ones too."""
    final_logged: int = 0
    """Games of the final fed, voided ones too."""
    counted: int = 0
    """Games fed that count (not voided), of every stage."""
    tally: Tally = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    faulted: dict[str, int] = field(default_factory=dict)
    last: dict[str, int] = field(default_factory=dict)
    """The last batch each player sat in (any game logged, voided or not)."""
    table: int = 0
    """The highest table of the ladder games that count."""
    finals: list[dict[str, Any]] = field(default_factory=list)
    start: dict[str, float] = field(default_factory=dict)
    """Where the fit starts: the strengths of the history's last line (a function of the
    files, so a resumed run fits exactly as the run it resumes)."""
    _fit: WarmFit | None = None

    @classmethod
    def of(cls, games: Iterable[Mapping[str, Any]], voided: Iterable[str],
           starts: Sequence[int], last: Mapping[str, Any] | None = None) -> LadderState:
        """The state after these games (games.jsonl's, in its order), its fit started from
        the history's `last` line."""
        state = cls(frozenset(voided), list(starts))
        state.restart(last)
        for game in games:
            state.add(game)
        return state

    def restart(self, line: Mapping[str, Any] | None) -> None:
        """Start the next fits from a history line's ratings (none: from 0)."""
        ratings = {} if line is None else line["ratings"]
        self.start = {str(p): float(r[0]) / ELO_SCALE for p, r in ratings.items() if r}
        self._fit = None

    def begin(self, after: int, line: Mapping[str, Any]) -> None:
        """A batch begins after `after` games, its history `line` written."""
        self.starts.append(after)
        self.restart(line)

    @property
    def batches(self) -> int:
        """Batches begun so far."""
        return self.earlier + len(self.starts)

    def add(self, game: Mapping[str, Any]) -> None:
        """Count one game logged after those fed before it."""
        batch = self.earlier + bisect_right(self.starts, self.logged)
        self.logged += 1
        self.final_logged += game["stage"] == "final"
        entrants = [str(name) for name in game["entrants"]]
        for name in entrants:
            self.last[name] = batch
        if str(game["id"]) in self.voided:
            return
        self.counted += 1
        if game["stage"] == "final":
            self.finals.append(dict(game))
        if game["stage"] != "ladder":
            return
        self._fit = None
        self.table = max(self.table, int(game["table"]))
        for seat in {int(f["seat"]) for f in game["faults"] or ()}:
            self.faulted[entrants[seat]] = self.faulted.get(entrants[seat], 0) + 1
        seats = list(zip(entrants, (int(p) for p in game["placements"]), strict=True))
        for a, place in seats:
            self.games[a] = self.games.get(a, 0) + 1
            for b, other in seats:
                if a != b:
                    row = self.tally.setdefault((a, b), [0, 0, 0, 0])
                    row[0] += 1
                    row[1 if place < other else 2 if place > other else 3] += 1

    def kept(self) -> dict[str, Any]:
        """The state as JSON values (insertion orders kept), for the next run to go on from."""
        return {"batches": self.batches, "after": self.starts[-1] if self.starts else None,
                "logged": self.logged, "final_logged": self.final_logged,
                "counted": self.counted, "table": self.table, "finals": self.finals,
                "tally": [[a, b, *row] for (a, b), row in self.tally.items()],
                "games": list(self.games.items()), "faulted": list(self.faulted.items()),
                "last": list(self.last.items())}

    @classmethod
    def resumed(cls, kept: Mapping[str, Any], voided: Iterable[str]) -> LadderState:
        """The state `kept` gave (its fit to start from the history's last line: restart)."""
        after = kept["after"]
        state = cls(frozenset(voided), [] if after is None else [int(after)],
                    int(kept["batches"]) - (after is not None), int(kept["logged"]),
                    int(kept["final_logged"]), int(kept["counted"]))
        state.tally = {(str(a), str(b)): [int(n) for n in row] for a, b, *row in kept["tally"]}
        state.games = {str(p): int(n) for p, n in kept["games"]}
        state.faulted = {str(p): int(n) for p, n in kept["faulted"]}
        state.last = {str(p): int(n) for p, n in kept["last"]}
        state.table, state.finals = int(kept["table"]), [dict(g) for g in kept["finals"]]
        return state

    def fit(self) -> WarmFit:
        """The Elo fit of every player with a ladder game, started from the last fit's."""
        if self._fit is None:
            names = sorted(self.games)
            self._fit = warm_fit(self.tally, self.games, names, self.start)
        return self._fit

    def ratings(self) -> dict[str, EloRating]:
        """Each player's Elo by name (one with no ladder game is absent)."""
        return {row.entrant: row for row in self.fit().ratings}

    def rating(self, player: str) -> EloRating:
        """A player's Elo, unrated (None) when it has no ladder game."""
        return self.ratings().get(player) or EloRating(player, 0, None, None, None)

    def meetings(self, players: Iterable[str]) -> dict[tuple[str, str], int]:
        """(a, b) with a < b, both of `players`: the ladder games they sat at one table."""
        wanted = set(players)
        return {(a, b): row[0] for (a, b), row in self.tally.items()
                if a < b and a in wanted and b in wanted}
