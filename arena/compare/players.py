"""Who plays in `arena compare`, and whether a comparison can start at all.

The seats beside the two bots compared (the default field), each seat's Player hosted by
the one trust policy of `arena.entrants`, and every check that stops a comparison before its
first game: the rule set, its seats and options, the field, the bounds of the tests, and each
bot starting, hosted as it will play, for a game of this comparison.

It must not play a game of the comparison, print, or parse command lines; a problem is a
`CompareError` (an `EntrantError`) for the command line to show.
"""

from __future__ import annotations

import math
from typing import Any

from arena.botcard import BotCard
from arena.compare.groups import CompareError, Entrant, Setup
from arena.compare.sprt import sprt_bounds
from arena.compare.verdict import Bounds, Tally, sprt_of
from arena.entrants import EntrantError, checked, resolve
from arena.kept import KeptHosts
from arena.referee import Player

DEFAULT_FIELD = ("statistician", "honest", "bluffer", "random")
"""The built-in bots that fill the other seats, in this order, those that are installed."""


def build_player(entrant: Entrant, registry: Any = None, seat: int = 0,
                 hosts: KeptHosts | None = None) -> Player:
    """Make the seat's Player, hosted by the trust policy of arena.entrants; its process is
    kept in `hosts` (one per worker) across games."""
    resolved = resolve(entrant, registry)
    if hosts is None:
        return resolved.player(resolved.host(seat))
    return resolved.player(hosts.host((entrant.label, seat), resolved, seat=seat))


def check_entrant(entrant: Entrant, rules: str, registry: Any = None) -> None:
    """Raise EntrantError unless the bot resolves, plays these rules and knows its options."""
    checked(entrant, rules, registry, who=entrant.ref)


def check_start(entrant: Entrant, setup: Setup, registry: Any = None) -> BotCard | None:
    """Raise CompareError unless the bot starts, hosted as it will play, for a game of this
    comparison (a dry run: a bot in its own process says what it is at hello, from there),
    plays its rules and takes its options; return what it said it is."""
    from arena.entrants import command_problem
    from arena.plugins import default_registry
    from arena.trial import CardError, StartError, dry_run

    known = registry or default_registry()
    if entrant.command is not None:
        problem = command_problem(entrant.command)
        if problem is not None:
            raise CompareError(f"bot {entrant.label!r}: {problem}")
    options = known.rules[setup.rules].check_options(dict(setup.options))
    names = [entrant.label, *(e.label for e in setup.field)]
    try:
        return dry_run(resolve(entrant, known), setup.rules, options, setup.seats,
                       setup.limits, names, who=entrant.ref).card
    except StartError as exc:
        raise CompareError(f"bot {entrant.label!r} does not start for a {setup.rules!r} game "
                           f"of {setup.seats} seats: {exc}") from None
    except (CardError, EntrantError) as exc:
        raise CompareError(str(exc)) from None


def default_field(rules: str, seats: int, registry: Any = None) -> tuple[Entrant, ...]:
    """The other seats when none are named: DEFAULT_FIELD's installed bots, cycled."""
    from arena.plugins import default_registry

    known = registry or default_registry()
    mix = [
        name for name in DEFAULT_FIELD
        if name in known.bots and rules in known.bots[name].rules
    ] or ["random"]
    return tuple(Entrant(mix[i % len(mix)]) for i in range(seats - 1))


def check(setup: Setup, bounds: Bounds, max_games: int,
          registry: Any = None) -> dict[Entrant, BotCard | None]:
    """Raise CompareError for anything that would stop the comparison before its first game;
    return what each bot said it is at its dry run."""
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
    return {entrant: check_start(entrant, setup, known)
            for entrant in dict.fromkeys((setup.candidate, setup.baseline, *setup.field))}


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
