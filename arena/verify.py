"""Re-applying a replay through the rules, without the bots: `verify_replay` walks the log
once, applying every chance outcome, action and fault, and reports the first line where the
replay disagrees with the rules (an event, the seat to act, the time limits, the result).

The replay file itself (its format, writing and reading) is arena.replay. This module must
not run bots, read configs or know about tournaments, and must not write anything: it reads
a replay and the rules, and says whether they agree.
"""

from __future__ import annotations

import json
import os
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.hosts.codec import CodecError, action_from_json, event_to_json
from arena.hosts.text import SECONDS_DECIMALS
from arena.replay import Replay, read_replay
from arena.rules import CHANCE, RulesError, RuleSet, get_rules
from arena.rules.actions import Chance


@dataclass(frozen=True, slots=True)
class Difference:
    """Where a replay first disagrees with the rules: the line (1 is the header) and how."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def verify_replay(
    source: str | os.PathLike[str] | bytes | Replay, rules: Mapping[str, RuleSet] | None = None
) -> Difference | None:
    """Re-apply a replay through the rules, without the bots; return the first difference.

    Checks that every chance outcome, action and fault is legal where it stands, that the
    events after each step are exactly the ones the rules produce (private ones too), and
    that the result line matches the rules' result. `rules` maps ids to rule sets
    (default: the built-in and installed ones).
    """
    replay = source if isinstance(source, Replay) else read_replay(source)
    try:
        _Verifier(replay, _ruleset(replay.header, rules)).run()
    except _Mismatch as mismatch:
        return mismatch.difference
    return None


class _Mismatch(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.difference = Difference(line, message)


def _ruleset(header: Mapping[str, Any], rules: Mapping[str, RuleSet] | None) -> RuleSet:
    wanted = header.get("rules") or {}
    rules_id = str(wanted.get("id"))
    try:
        ruleset = rules[rules_id] if rules is not None else get_rules(rules_id)
    except (KeyError, RulesError):
        raise _Mismatch(1, f"unknown rule set {wanted.get('id')!r}") from None
    if ruleset.version != wanted.get("version"):
        raise _Mismatch(
            1,
            f"rule set {ruleset.id!r} is version {ruleset.version}, "
            f"the replay was played under version {wanted.get('version')!r}",
        )
    return ruleset


def _plain(value: object) -> object:
    """The value as a replay reads it back (json.loads(json.dumps(value))), walked without
    the text for the strings, numbers, lists and tuples events are made of (a cluster's
    organiser checks every game with it)."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if kind is list or kind is tuple:
        return [_plain(item) for item in value]  # type: ignore[attr-defined]
    if kind is dict and all(type(key) is str for key in value):  # type: ignore[attr-defined]
        return {key: _plain(item) for key, item in value.items()}  # type: ignore[attr-defined]
    return json.loads(json.dumps(value))


class _Verifier:
    """Walks the log once, keeping the rules state and the events still to be seen."""

    def __init__(self, replay: Replay, ruleset: RuleSet) -> None:
        self.replay = replay
        self.rules = ruleset
        header = replay.header
        try:
            self.options = ruleset.check_options(header.get("options"))
            self.state = ruleset.new_game(len(header.get("entrants") or ()), self.options)
        except RulesError as exc:
            raise _Mismatch(1, f"cannot start the game: {exc}") from None
        self.sof = bool(self.options.get("straight_over_full", False))
        self.expected: deque[Any] = deque()
        self.decisions = 0
        self.clock = _Clock(header.get("limits"), len(header.get("entrants") or ()))

    def run(self) -> None:
        for line, entry in enumerate(self.replay.log, 2):
            if entry.get("type") == "event":
                self.event(line, entry.get("event"))
                continue
            self.no_events_left(line)
            self.step(line, entry)
            self.expected.extend(_plain(event_to_json(e)) for e in self.rules.events(self.state))
        self.finish(len(self.replay.log) + 2)

    def event(self, line: int, event: object) -> None:
        if not self.expected:
            raise _Mismatch(line, f"event {_show(event)} was not produced by the rules here")
        wanted = self.expected.popleft()
        if event != wanted:
            raise _Mismatch(line, f"event {_show(event)} differs from the rules' {_show(wanted)}")

    def no_events_left(self, line: int) -> None:
        if self.expected:
            raise _Mismatch(line, f"missing event {_show(self.expected[0])}")

    def step(self, line: int, entry: Mapping[str, Any]) -> None:
        kind = entry.get("type")
        to_act = self.rules.to_act(self.state)
        try:
            if kind == "chance":
                if to_act != CHANCE:
                    raise _Mismatch(line, f"a chance outcome where seat {to_act} is to act")
                self.state = self.rules.apply(self.state, Chance(tuple(entry["outcome"])))
            elif kind in ("action", "fault"):
                self.seat_step(line, entry, to_act)
            else:
                raise _Mismatch(line, f"unexpected line type {kind!r}")
        except (RulesError, CodecError, KeyError, TypeError) as exc:
            raise _Mismatch(line, f"{kind} cannot be applied: {_reason(exc)}") from None

    def seat_step(self, line: int, entry: Mapping[str, Any], to_act: int) -> None:
        if entry["type"] == "fault" and entry.get("outside") is not None:
            self.outside_fault(line, entry, to_act)
            return
        if entry.get("seat") != to_act:
            who = "chance" if to_act == CHANCE else f"seat {to_act}"
            raise _Mismatch(line, f"seat {entry.get('seat')!r} acts where {who} is to act")
        self.decisions += 1
        if entry["type"] == "fault":
            self.state = self.rules.fault(self.state, to_act)
            self.clock.charge(to_act, entry.get("seconds"), check=False)  # a fault may run over
        else:
            action = action_from_json(entry["action"], self.sof)
            self.state = self.rules.apply(self.state, action)
            over = self.clock.charge(to_act, entry.get("seconds"))
            if over is not None:
                raise _Mismatch(line, over)

    def outside_fault(self, line: int, entry: Mapping[str, Any], to_act: int) -> None:
        """A fault raised outside the bot's decision: applied while a seat is to decide, to
        a seat still in the game, and not counted as a decision."""
        seat = entry.get("seat")
        if to_act == CHANCE:
            raise _Mismatch(line, f"a fault of seat {seat!r} where chance is to act")
        active = self.rules.observe(self.state, to_act).active
        if not isinstance(seat, int) or not 0 <= seat < len(active) or not active[seat]:
            raise _Mismatch(line, f"a fault of seat {seat!r}, which is not in the game")
        self.state = self.rules.fault(self.state, seat, outside=True)

    def finish(self, line: int) -> None:
        self.no_events_left(line)
        if not self.rules.is_over(self.state):
            raise _Mismatch(line, "the log ends before the game is over")
        result = self.rules.result(self.state)
        have = self.replay.result
        for key, value in (
            ("placements", result.placements),
            ("scores", result.scores),
            ("out_order", result.out_order),
            ("decisions", self.decisions),
        ):
            wanted = _plain(value)
            if have.get(key) != wanted:
                raise _Mismatch(
                    line, f"result {key} {have.get(key)!r} differs from the rules' {wanted!r}"
                )


class _Clock:
    """The time limits of the header, charged as the referee charges them (a decision over
    its time draws on the seat's bank); replays without `limits` are not checked."""

    def __init__(self, limits: object, seats: int) -> None:
        self.limits = limits if isinstance(limits, Mapping) else None
        bank = (self.limits or {}).get("bank") or 0.0
        self.bank = [float(bank)] * seats
        self.slack = [10 ** -SECONDS_DECIMALS] * seats
        """What rounding each line's seconds may have moved the seat's bank by, so far."""

    def charge(self, seat: int, seconds: object, check: bool = True) -> str | None:
        """Why an action's seconds break the limits (it should have been a timeout), or None."""
        if self.limits is None or not isinstance(seconds, int | float):
            return None
        decision = float(self.limits["decision"])
        limit = decision + self.bank[seat]
        if check and seconds > limit + self.slack[seat]:
            return (f"seat {seat} took {seconds:g}s, over its limit of {limit:.6g}s: "
                    f"that is a timeout, not an action")
        if seconds > decision:
            self.bank[seat] = max(0.0, self.bank[seat] - (seconds - decision))
            self.slack[seat] += 10 ** -SECONDS_DECIMALS
        return None


def _show(value: object) -> str:
    return json.dumps(value, sort_keys=True)[:300]


def _reason(exc: Exception) -> str:
    return f"missing {exc}" if isinstance(exc, KeyError) else str(exc)
