"""What the built-in engines (dice, cards) share: the `Engine` base class (identity,
description, option and player checks), the fault options, option checking, and the seat
helpers (who is next, who is out, places by going-out order).

PURE: no I/O, no clocks, no global random. A plugin's rule set need not use any of this;
the interface every rule set follows is `arena.rules.base.RuleSet`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from operator import attrgetter
from types import MappingProxyType
from typing import Any

from arena.options import Options
from arena.rules.base import Description, Event, OptionError, OptionSpec, RulesError

FAULT_OPTIONS = (
    OptionSpec("on_fault", "forfeit", "what a fault costs: forfeit or penalty",
               choices=("forfeit", "penalty")),
    OptionSpec("max_faults", 3, "with on_fault=penalty: the fault that forfeits", minimum=1),
    OptionSpec("straight_over_full", False, "rank straight above full-house",
               choices=(False, True)),
)


def with_defaults(specs: tuple[OptionSpec, ...],
                  defaults: Mapping[str, object]) -> tuple[OptionSpec, ...]:
    """The option specs with some defaults changed (a variant rule set); each is checked."""
    known = {s.name for s in specs}
    for key in defaults:
        if key not in known:
            raise OptionError(key, f"unknown option (known: {', '.join(sorted(known))})")
    for spec in specs:
        if spec.quiet and spec.name in defaults:
            raise OptionError(spec.name, "its default cannot be changed (it is recorded only "
                              "when it differs): give it as an option of each game")
    changed = tuple(replace(s, default=defaults[s.name]) if s.name in defaults else s
                    for s in specs)
    for spec in changed:
        spec.check(spec.default)
    return changed


def check_options(specs: Sequence[OptionSpec], options: Mapping[str, object] | None) -> Options:
    """Return the options with defaults filled in; raise OptionError on unknown or bad ones."""
    known = {s.name: s for s in specs}
    given = dict(options or {})
    for key in given:
        if key not in known:
            raise OptionError(key, f"unknown option (known: {', '.join(sorted(known))})")
    checked = ((name, spec, spec.check(given.get(name, spec.default)))
               for name, spec in known.items())
    return Options((name, value) for name, spec, value in checked
                   if not (spec.quiet and value == spec.default))


def next_active(active: Sequence[bool], seat: int) -> int:
    """Return the next seat to the left (higher number, wrapping) that is still in the game."""
    n = len(active)
    following = seat + 1 if seat + 1 < n else 0
    if active[following]:
        return following
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if active[candidate]:
            return candidate
    raise RulesError("no seat is still in the game")


def place_by_out_order(n: int, ranked_in: Sequence[Sequence[int]],
                       out: Sequence[int]) -> tuple[int, ...]:
    """Places by seat: groups still in (best first, a group shares a place), then the out seats
    in reverse order of going out."""
    places = [0] * n
    place = 1
    for group in [*ranked_in, *([s] for s in reversed(out))]:
        for seat in group:
            places[seat] = place
        place += len(group)
    return tuple(places)


def add_to_seat(values: tuple[int, ...], seat: int, amount: int) -> tuple[int, ...]:
    """A per-seat tally with `amount` added at one seat."""
    return (*values[:seat], values[seat] + amount, *values[seat + 1 :])


def seat_out(active: tuple[bool, ...], out: tuple[int, ...], seat: int,
             reason: str) -> tuple[tuple[bool, ...], tuple[int, ...], Event]:
    """A seat leaves the game: the new `active` and `out` tuples, and the public event."""
    still = (*active[:seat], False, *active[seat + 1 :])
    return still, (*out, seat), Event("out", seat, MappingProxyType({"reason": reason}))


class Engine:
    """What every built-in rule set shares: identity, description, option and player checks."""

    id: str
    version: int
    min_players: int
    max_players: int
    option_specs: tuple[OptionSpec, ...]
    description: Description

    def __repr__(self) -> str:
        return f"<rules {self.id} v{self.version}>"

    _checked: Options | None = None
    """The options this rule set last returned: each game checks them twice (the referee,
    then new_game), and the second check of the same read-only mapping can only agree."""
    _default_options: Options | None = None

    def check_options(self, options: Mapping[str, object] | None) -> Options:
        """Return options with defaults filled in, or raise OptionError."""
        if options is self._checked and options is not None:
            return options
        checked = self._defaults() if not options else check_options(self.option_specs, options)
        self._checked = checked
        return checked

    def _defaults(self) -> Options:
        """The default options, checked once: most games are played with them."""
        if self._default_options is None:
            self._default_options = check_options(self.option_specs, None)
        return self._default_options

    def describe(self, hand: str, central: bool, score_word: str, decisions: tuple[str, ...],
                 private: str) -> Description:
        """This engine's description, from its identity, player counts and options."""
        return Description(self.id, self.version, hand, central, score_word, decisions,
                           private, self.min_players, self.max_players,
                           tuple((s.name, s.default) for s in self.option_specs
                                 if not s.quiet))

    def check_players(self, players: int) -> None:
        """Raise RulesError unless the player count is allowed."""
        low, high = self.min_players, self.max_players
        if not isinstance(players, int) or not low <= players <= high:
            raise RulesError(f"{self.id} is for {low} to {high} players, not {players!r}")

    events: Callable[[Any], tuple[Event, ...]] = attrgetter("events")
    """Return the events of the step that led to this state: the state's own `events`, read
    by a getter written in C (no Python call at each of the game's steps)."""
