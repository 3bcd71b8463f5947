"""`arena compare`: duplicate play of a candidate bot against a baseline, stopped by a test.

A comparison plays *groups* of games that share one seed (see docs/compare.md). It plans
each group's tables (who sits where, on which seed), plays the groups (in a worker pool when
asked), folds the results into running totals strictly in group order, and looks at the
sequential tests after every group. So the verdict is a function of the settings and the
seed alone: never of the number of workers, of timing, or of the order games finish in.

Two one-sided tests run side by side on the same groups: *better?* (the candidate is
`elo1` better, against `elo0`) and its mirror *worse?* (the baseline is `elo1` better).
The verdict is `better` or `worse` when either accepts its H1, `same` when both accept H0,
and `inconclusive` when the game limit comes first.

This module must not print, parse command lines, or compute statistics itself: the
numbers come from `arena.compare.sprt` and `arena.compare.estimates`, the games from the
referee.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Generator, Mapping
from contextlib import closing
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, TypeVar

from arena.bot import Limits
from arena.compare.estimates import (
    Estimate,
    elo_estimate,
    paired_difference,
    paired_los,
    paired_score,
    pentanomial_los,
    pentanomial_score,
)
from arena.compare.samples import Summary
from arena.compare.sprt import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    NELO_PER_T,
    Sprt,
    sprt_bounds,
    sprt_paired,
    sprt_pentanomial,
)
from arena.entrants import EntrantError, KeptHosts, Reference, checked, resolve
from arena.options import Options
from arena.referee import Player
from arena.seeds import derive_seed

Verdict = Literal["better", "same", "worse", "inconclusive"]
Role = Literal["candidate", "baseline"]

DEFAULT_ELO0 = 0.0
DEFAULT_ELO1 = 10.0
"""Normalized Elo. fishtest's [0, 2] needs ~80 000 pairs; [0, 10] about 3 200 (see docs)."""
DEFAULT_MAX_GROUPS = 15_000
"""Without a game limit: 15 000 groups, 30 000 games for two seats (3-5x the expected length)."""
DEFAULT_SEED = 1
DEFAULT_FIELD = ("statistician", "honest", "bluffer", "random")
"""The built-in bots that fill the other seats, in this order, those that are installed."""


class CompareError(EntrantError):
    """A comparison that cannot start: unknown bot, bad option, seat count or bounds."""


# --- who plays -------------------------------------------------------------------------


Entrant = Reference
"""A bot as named by the user: its reference, bot options and mode (arena.entrants)."""


def build_player(entrant: Entrant, registry: Any = None, seat: int = 0,
                 hosts: KeptHosts | None = None) -> Player:
    """Make the seat's Player, hosted by the trust policy of arena.entrants; its process is
    kept in `hosts` (one per worker) across games."""
    resolved = resolve(entrant, registry)
    if hosts is None:
        return resolved.player(resolved.host())
    return resolved.player(hosts.host((entrant.label, seat), resolved))


def check_entrant(entrant: Entrant, rules: str, registry: Any = None) -> None:
    """Raise EntrantError unless the bot resolves, plays these rules and knows its options."""
    checked(entrant, rules, registry, who=entrant.ref)


def check_start(entrant: Entrant, setup: Setup, registry: Any = None) -> None:
    """Raise CompareError unless the bot starts, hosted as it will play, for a game of this
    comparison: a bot that refuses its options or the rule set can only fault."""
    from arena.plugins import default_registry
    from arena.trial import command_problem, entrant_problem

    known = registry or default_registry()
    if entrant.command is not None:
        problem = command_problem(entrant.command)
        if problem is not None:
            raise CompareError(f"bot {entrant.label!r}: {problem}")
    options = known.rules[setup.rules].check_options(dict(setup.options))
    names = [entrant.label, *(e.label for e in setup.field)]
    problem = entrant_problem(resolve(entrant, known), setup.rules, options, setup.seats,
                              setup.limits, names)
    if problem is not None:
        raise CompareError(f"bot {entrant.label!r} does not start for a {setup.rules!r} game "
                           f"of {setup.seats} seats: {problem}")


def default_field(rules: str, seats: int, registry: Any = None) -> tuple[Entrant, ...]:
    """The other seats when none are named: DEFAULT_FIELD's installed bots, cycled."""
    from arena.plugins import default_registry

    known = registry or default_registry()
    mix = [
        name for name in DEFAULT_FIELD
        if name in known.bots and rules in known.bots[name].rules
    ] or ["random"]
    return tuple(Entrant(mix[i % len(mix)]) for i in range(seats - 1))


# --- what is played --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything that fixes which games a comparison plays."""

    candidate: Entrant
    baseline: Entrant
    rules: str = "dice"
    seats: int = 2
    field: tuple[Entrant, ...] = ()
    options: tuple[tuple[str, Any], ...] = ()
    seed: int = DEFAULT_SEED
    limits: Limits = dataclasses.field(default_factory=Limits)
    duplicate: bool = True
    """False gives every game its own seed: unpaired play, for measuring what pairing saves."""

    @property
    def group_games(self) -> int:
        """Games in one group: the pair for two seats, two per rotation for more."""
        return 2 if self.seats == 2 else 2 * self.seats

    def default_max_games(self) -> int:
        """The game limit when none is given: DEFAULT_MAX_GROUPS groups."""
        return DEFAULT_MAX_GROUPS * self.group_games


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
class Table:
    """One game of a group: its seed, the bot in each seat, and the seats being compared."""

    seed: int
    seats: tuple[Entrant, ...]
    candidate_seat: int | None
    baseline_seat: int | None


def group_seed(setup: Setup, index: int) -> int:
    """The seed every game of group `index` shares."""
    return derive_seed(setup.seed, "compare", index)


def plan_group(setup: Setup, index: int) -> tuple[Table, ...]:
    """The games of one group, in the order they are played.

    Two seats: the pair, candidate in seat 0 then in seat 1, the baseline opposite. More
    seats: for each rotation s, the candidate in seat s with the field after it (seats s+1,
    s+2, ... wrapping, so neighbours never change), then the same table with the baseline.
    """
    seed = group_seed(setup, index)

    def seed_of(game: int) -> int:
        return seed if setup.duplicate else derive_seed(seed, "unpaired", game)

    cand, base = setup.candidate, setup.baseline
    if setup.seats == 2:
        return (Table(seed_of(0), (cand, base), 0, 1), Table(seed_of(1), (base, cand), 1, 0))
    tables: list[Table] = []
    for s in range(setup.seats):
        for role, bot in (("candidate", cand), ("baseline", base)):
            seats = _seat_field(setup.seats, s, bot, setup.field)
            tested = (s, None) if role == "candidate" else (None, s)
            tables.append(Table(seed_of(len(tables)), seats, *tested))
    return tuple(tables)


_Seated = TypeVar("_Seated")
"""What a table's seats hold: entrants, or their indexes in a scheduled game."""


def _seat_field(seats: int, tested: int, bot: _Seated,
                others: tuple[_Seated, ...]) -> tuple[_Seated, ...]:
    """Put `bot` in seat `tested` and the field in the seats after it, in order."""
    table: list[_Seated] = [bot] * seats
    for i, other in enumerate(others):
        table[(tested + 1 + i) % seats] = other
    return tuple(table)


def seat_score(placements: tuple[int, ...], seat: int) -> float:
    """Share of the other seats this seat beat, ties counting half: 1 first, 0 last."""
    mine = placements[seat]
    others = [p for i, p in enumerate(placements) if i != seat]
    beaten = sum(1.0 if p > mine else 0.5 if p == mine else 0.0 for p in others)
    return beaten / len(others)


@dataclass(frozen=True, slots=True)
class GroupResult:
    """One group's outcome: the paired score difference and the faults of each side."""

    index: int
    diff: float
    games: int
    candidate_faults: int = 0
    baseline_faults: int = 0


# --- running totals and the tests --------------------------------------------------------


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


# --- checking and running ----------------------------------------------------------------


def check(setup: Setup, bounds: Bounds, max_games: int, registry: Any = None) -> None:
    """Raise CompareError for anything that would stop the comparison before its first game."""
    from arena.plugins import default_registry

    known = registry or default_registry()
    _check_table(setup, known)
    for entrant in (setup.candidate, setup.baseline, *setup.field):
        check_entrant(entrant, setup.rules, known)
    _check_bounds(bounds)
    if max_games < setup.group_games:
        raise CompareError(
            f"--games {max_games} is less than one group ({setup.group_games} games)"
        )
    for entrant in dict.fromkeys((setup.candidate, setup.baseline, *setup.field)):
        check_start(entrant, setup, known)


def _check_table(setup: Setup, registry: Any) -> None:
    """The rule set exists, takes this many seats and these options; the field fits."""
    ruleset = registry.rules.get(setup.rules)
    if ruleset is None:
        known = ", ".join(sorted(registry.rules))
        raise CompareError(f"unknown rule set {setup.rules!r} (known: {known})")
    if not ruleset.min_players <= setup.seats <= ruleset.max_players:
        raise CompareError(
            f"{setup.rules} is for {ruleset.min_players}-{ruleset.max_players} players, "
            f"not {setup.seats}"
        )
    try:
        ruleset.check_options(dict(setup.options))
    except ValueError as exc:
        raise CompareError(f"rule option {exc}") from exc
    wanted = 0 if setup.seats == 2 else setup.seats - 1
    if len(setup.field) != wanted:
        raise CompareError(f"{setup.seats} seats take {wanted} field bots, "
                           f"got {len(setup.field)}")


def _check_bounds(bounds: Bounds) -> None:
    """The tests need 0 <= elo0 < elo1 and error rates stats accepts, fit to the data."""
    if not (math.isfinite(bounds.elo0) and math.isfinite(bounds.elo1)):
        raise CompareError("--elo0 and --elo1 must be numbers")
    if not 0 <= bounds.elo0 < bounds.elo1:
        raise CompareError(
            f"need 0 <= elo0 < elo1 (got {bounds.elo0:g}, {bounds.elo1:g}): "
            "the worse? test mirrors the better? one"
        )
    try:
        sprt_bounds(bounds.alpha, bounds.beta)
    except ValueError as exc:
        raise CompareError(str(exc)) from exc
    for probe in ((1, 1, 1, 1, 1), (0, 0, 1, 0, 0), (1, 0, 0, 0, 0)):
        sprt_of(Tally(pentanomial=probe), 2, bounds)  # too-wide bounds fit no pair counts


def group_results(setup: Setup, groups: int, workers: int = 1) -> Generator[GroupResult]:
    """Results of groups 0..groups-1 in group order: their games are scheduled games with
    the group's seed, played by the tournament's worker on the one executor."""
    from arena.executor.local import ordered_map
    from arena.tournament.run import LostGames, TournamentError, game_job

    games = (game for index in range(groups) for game in compare_games(setup, index))
    played = ordered_map(game_job(game_setup(setup)), games, workers, LostGames(hint="stopped"))
    try:
        for index in range(groups):
            yield group_result(setup, index, [next(played) for _ in range(setup.group_games)])
    except TournamentError as exc:
        raise CompareError(str(exc)) from None
    finally:
        played.close()


def game_setup(setup: Setup) -> Any:
    """The comparison as the tournament's worker takes it: entrants candidate, baseline,
    then the field, each its own entrant (a command bot gets its own process per seat)."""
    from arena.tournament.run import GameSetup

    entrants = tuple(_entrant_config(e) for e in (setup.candidate, setup.baseline, *setup.field))
    return GameSetup("compare", setup.rules, Options.of(dict(setup.options)), setup.limits,
                     entrants, None)


def _entrant_config(entrant: Entrant) -> Any:
    """The entrant as the tournament's worker hosts it, by the one trust policy: a `cmd:`
    bot as its program, a Python bot where its reference's mode (or its origin) says."""
    from arena.tournament.config import EntrantConfig

    options = Options.of(dict(entrant.options))
    if entrant.command is not None:
        return EntrantConfig(entrant.label, command=entrant.command, options=options,
                             mode="command")
    return EntrantConfig(entrant.label, bot=entrant.ref, options=options, mode=entrant.mode)


def compare_games(setup: Setup, index: int) -> tuple[Any, ...]:
    """Group `index` as scheduled games (GameSpec): entrant indexes as in `game_setup`."""
    from arena.tournament.schedule import GameSpec

    field = tuple(range(2, 2 + len(setup.field)))
    games = []
    for number, table in enumerate(plan_group(setup, index)):
        seats: tuple[int, ...]
        if setup.seats == 2:
            seats = (0, 1) if table.candidate_seat == 0 else (1, 0)
        elif table.candidate_seat is not None:
            seats = _seat_field(setup.seats, table.candidate_seat, 0, field)
        else:
            assert table.baseline_seat is not None
            seats = _seat_field(setup.seats, table.baseline_seat, 1, field)
        games.append(GameSpec(f"compare-{index:06d}-{number}", "compare", index, seats,
                              table.seed, str(index)))
    return tuple(games)


def group_result(setup: Setup, index: int, played: list[Any]) -> GroupResult:
    """A group's paired score difference and faults from its played games, in plan order."""
    import json

    total = 0.0
    faults = [0, 0]
    for table, game in zip(plan_group(setup, index), played, strict=True):
        seat_faults = [f["seat"] for f in json.loads(game.line)["faults"]]
        for side, seat, sign in ((0, table.candidate_seat, 1), (1, table.baseline_seat, -1)):
            if seat is not None:
                total += sign * seat_score(game.placements, seat)
                faults[side] += seat_faults.count(seat)
    diff = max(-1.0, min(1.0, total / setup.seats))  # clamp: float sums may stray by 1 ulp
    return GroupResult(index, diff, len(played), faults[0], faults[1])


def run_compare(setup: Setup, bounds: Bounds | None = None,
                max_games: int | None = None, workers: int = 1,
                progress: Callable[[Comparison], None] | None = None) -> Comparison:
    """Play groups until the tests decide or the next group would pass `max_games`."""
    bounds = bounds or Bounds()
    max_games = max_games or setup.default_max_games()
    check(setup, bounds, max_games)
    state = start(setup, bounds, max_games)
    with closing(group_results(setup, max_games // setup.group_games, workers)) as results:
        for result in results:
            state = state.add(result)
            if progress is not None:
                progress(state)
            if state.decision is not None:
                break
    return state


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
        "elo": _estimate(state.elo),
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
