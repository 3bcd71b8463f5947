"""The four formats of fixed schedules: round robin, gauntlet, elimination and Swiss, each
its config keys checked and its plan (the ladder, a season, is formats/ladder/format.py).

Every check fails at the line of its key, in the words the config loader uses; a default is
filled here, so config.yaml as run names every key of the format.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arena.tournament.config import (
    DEFAULT_CAP,
    EntrantConfig,
    KeyPath,
    TournamentConfig,
    describe,
    suggestion,
)
from arena.tournament.formats.base import Format
from arena.tournament.formats.gauntlet import gauntlet
from arena.tournament.formats.plan import EliminationPlan, FlatPlan, Placements, Plan
from arena.tournament.formats.schedule import GameSpec, round_robin, round_robin_count
from arena.tournament.formats.swiss.rounds import Swiss
from arena.tournament.formats.swiss.stages import swiss_stages

if TYPE_CHECKING:
    from arena.tournament.config.checks import FieldChecks

__all__ = ["EliminationFormat", "GauntletFormat", "RoundRobin", "SwissFormat", "default_rounds"]


def default_rounds(n_entrants: int) -> int:
    """A Swiss's rounds when none are given: ceil(log2 n) + 2, enough for one clear
    leader and two more to sort the places behind it."""
    return (n_entrants - 1).bit_length() + 2


def _over_cap(stage: str, asked: int, cap: int, what: str) -> tuple[str, ...]:
    """The note for a round robin over its cap, which balanced random tables replace."""
    if asked <= cap:
        return ()
    instead = f"{cap:,} games at balanced random tables instead"
    return (f"{stage} would be {asked:,} games, more than {what} ({cap:,}): {instead}",)


class RoundRobin(Format):
    """Every table of `seats` entrants, `games` times (balanced random tables over `cap`)."""

    type = "round-robin"
    keys = ("cap",)
    graded = True

    def settings(self, checks: FieldChecks, section: Mapping[str, Any], seats: int,
                 entrants: tuple[EntrantConfig, ...]) -> dict[str, Any]:
        return {"cap": checks.whole(("format", "cap"), section.get("cap", DEFAULT_CAP), 1)}

    def plan(self, cfg: TournamentConfig) -> Plan:
        fmt = cfg.format
        return FlatPlan(cfg, round_robin(len(cfg.entrants), fmt.seats, fmt.games,
                                         cfg.planned_seed, fmt.cap))

    def notes(self, cfg: TournamentConfig) -> tuple[str, ...]:
        fmt = cfg.format
        if fmt.cap is None:
            return ()
        asked = round_robin_count(len(cfg.entrants), fmt.seats, fmt.games)
        return _over_cap("a full round robin", asked, fmt.cap, "format.cap")


class GauntletFormat(Format):
    """Every challenger against every champion equally often; champions never meet."""

    type = "gauntlet"
    keys = ("champions",)
    graded = True

    def settings(self, checks: FieldChecks, section: Mapping[str, Any], seats: int,
                 entrants: tuple[EntrantConfig, ...]) -> dict[str, Any]:
        return {"champions": _champions(checks, section.get("champions"), entrants, seats)}

    def plan(self, cfg: TournamentConfig) -> Plan:
        fmt, names = cfg.format, [e.name for e in cfg.entrants]
        champions = [names.index(name) for name in fmt.champions]
        return FlatPlan(cfg, gauntlet(champions, len(names), fmt.seats, fmt.games,
                                      cfg.planned_seed))


def _champions(checks: FieldChecks, raw: Any, entrants: tuple[EntrantConfig, ...],
               seats: int) -> tuple[str, ...]:
    path: KeyPath = ("format", "champions")
    if not isinstance(raw, list) or not raw:
        checks.doc.fail(
            path, f"a gauntlet needs a non-empty list of champion names, got {describe(raw)}"
        )
    names = [e.name for e in entrants]
    for index, champion in enumerate(raw):
        here = (*path, index)
        if checks.text(here, champion) not in names:
            checks.doc.fail(here, f"unknown entrant {champion!r}{suggestion(champion, names)}")
        if champion in raw[:index]:
            checks.doc.fail(here, f"champion {champion!r} is listed twice")
    if len(raw) >= len(entrants):
        checks.doc.fail(path, "every entrant is a champion; a gauntlet needs a challenger")
    challengers = len(entrants) - len(raw)
    if challengers < seats - 1:
        checks.doc.fail(
            path,
            f"a gauntlet of {seats} seats needs at least {seats - 1} challengers "
            f"(entrants that are not champions), got {challengers}",
        )
    return tuple(raw)


class EliminationFormat(Format):
    """A staged knockout, after an optional seeding round robin."""

    type = "elimination"
    keys = ("advance", "seeding")

    def settings(self, checks: FieldChecks, section: Mapping[str, Any], seats: int,
                 entrants: tuple[EntrantConfig, ...]) -> dict[str, Any]:
        path: KeyPath = ("format", "advance")
        advance = checks.whole(path, section.get("advance", 1), 1)
        if advance >= seats:
            checks.doc.fail(path, f"must be less than seats ({seats}), got {advance}")
        return {"advance": advance,
                "seeding": checks.whole(("format", "seeding"), section.get("seeding", 0), 0)}

    def plan(self, cfg: TournamentConfig) -> Plan:
        return EliminationPlan(cfg)

    def notes(self, cfg: TournamentConfig) -> tuple[str, ...]:
        fmt = cfg.format
        if not fmt.seeding:
            return ()
        asked = round_robin_count(len(cfg.entrants), fmt.seats, fmt.seeding)
        return _over_cap("the seeding round robin", asked, DEFAULT_CAP, "the cap")


class SwissFormat(Format):
    """Rounds of tables of close scores who have not met."""

    type = "swiss"
    keys = ("rounds",)

    def settings(self, checks: FieldChecks, section: Mapping[str, Any], seats: int,
                 entrants: tuple[EntrantConfig, ...]) -> dict[str, Any]:
        rounds = section.get("rounds", default_rounds(len(entrants)))
        return {"rounds": checks.whole(("format", "rounds"), rounds, 1)}

    def plan(self, cfg: TournamentConfig) -> Plan:
        return SwissPlan(cfg)


class SwissPlan(Plan):
    """A Swiss's rounds, each paired from the scores of the rounds before."""

    own_ranking = "scores"

    def __init__(self, cfg: TournamentConfig) -> None:
        super().__init__(cfg)
        fmt, n = cfg.format, len(cfg.entrants)
        rounds = default_rounds(n) if fmt.rounds is None else fmt.rounds
        self.swiss = Swiss(tuple(range(n)), fmt.seats, fmt.games, rounds, cfg.planned_seed)

    def batch(self, results: Mapping[str, Placements]) -> tuple[GameSpec, ...]:
        last = self.swiss.rounds_played(results)[-1]
        return () if last.complete else tuple(g for t in last.tables for g in t.games)

    def total(self) -> int:
        return self.swiss.total  # pairing made-up rounds would only cost time

    def smallest_table(self) -> tuple[str, int] | None:
        return "round-1", self.swiss.seats  # every table is full: the rest have byes

    def stages(
        self, results: Mapping[str, Placements], ranking: Sequence[str] | None = None
    ) -> dict[str, Any]:
        return swiss_stages(self.swiss, self.names, results)
