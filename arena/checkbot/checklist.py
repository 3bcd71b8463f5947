"""The checklist of `arena check-bot`, in words a student reads: one line per check, what
passed, and for what failed, what went wrong and where, from what the check games saw.

Words only: it plays nothing and prints nothing. The wording is stable (tests compare it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.checkbot.positions import PARTICULAR
from arena.checkbot.run import Replay
from arena.checkbot.scenarios import SCENARIOS
from arena.checkbot.stage import Answer, Evidence, Options
from arena.limits import Limits
from arena.rules import get_rules

__all__ = ["Checklist", "Line", "checklist", "not_started"]

WRONG = ("illegal", "crash")
"""What makes an answer wrong at its position; a timeout or a protocol fault is its own line."""
NO_ANSWER = {"timeout": "it ran out of time (see 'answers in time')",
             "protocol": "it broke the protocol (see 'speaks the protocol')"}


@dataclass(frozen=True, slots=True)
class Line:
    """One check: passed (True), failed (False) or not for this bot (None), its words, and
    what they say as data for `--json` (the rule options of the game a failure came from,
    the times)."""

    passed: bool | None
    text: str
    facts: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        mark = {True: "✓", False: "✗", None: "–"}[self.passed]
        return f"{mark} {self.text}"


@dataclass(frozen=True, slots=True)
class Checklist:
    """Every line of one bot's check, and what the games covered."""

    lines: tuple[Line, ...]
    footer: str = ""

    @property
    def passed(self) -> bool:
        """Whether no check failed."""
        return all(line.passed is not False for line in self.lines)


def not_started(message: str) -> Checklist:
    """The checklist of a bot that did not say hello: nothing else can be checked."""
    return Checklist((Line(False, f"starts and says hello: {message}"),),
                     "nothing else was checked: a bot must start before it can play")


def checklist(rules: Sequence[str], evidence: Evidence, replays: Sequence[Replay],
              limits: Limits, inline: bool, shutdown: str | None,
              must_repeat: bool) -> Checklist:
    """Every line, from what the games showed."""
    if evidence.start_failures:
        rules_id, message = evidence.start_failures[0]
        return not_started(f"in a {rules_id} game: {message}")
    lines = [Line(True, f"starts and says hello ({', '.join(rules)})")]
    for rules_id in rules:
        lines += positions(rules_id, evidence)
    lines += [timing(evidence, limits), protocol(evidence, inline, shutdown),
              determinism(replays, must_repeat), notify(rules, evidence)]
    played = evidence.played_for_it
    footer = (f"{evidence.games} games, {len(evidence.answers)} decisions asked; {played} "
              f"more {'was' if played == 1 else 'were'} played for it, to reach the positions")
    return Checklist(tuple(lines), footer)


def positions(rules_id: str, evidence: Evidence) -> list[Line]:
    """The line of every decision of the rule set, then one per particular position."""
    answers = [a for a in evidence.answers if a.rules == rules_id]
    cut = {target for rules, target, first, faulted in evidence.targets
           if rules == rules_id and first is None and faulted}
    decisions = get_rules(rules_id).description.decisions
    counts = Counter(a.position for a in answers)
    plain = ", ".join(f"{d} {counts[d]}" for d in decisions)
    lines = [_position_line(f"{rules_id}: answers every decision", f"({plain})",
                            [a for a in answers if a.position in decisions], decisions, cut)]
    for scenario in SCENARIOS[rules_id]:
        if scenario.target in PARTICULAR:
            here = [a for a in answers if a.position == scenario.target]
            lines.append(_position_line(f"{rules_id}: {PARTICULAR[scenario.target]}",
                                        f"({_times(len(here))})", here, (scenario.target,), cut))
    return lines


def _position_line(words: str, counted: str, answers: list[Answer], wanted: Sequence[str],
                   cut: set[str]) -> Line:
    """A position's line: every answer there legal, and each wanted position answered (one
    the bot never got to, because it was out of that game after a fault, is not checked)."""
    many = len(wanted) > 1
    wrong = [a for a in answers if a.kind in WRONG]
    if wrong:
        first = wrong[0]
        said = f"{len(wrong)} of {len(answers)} answers went wrong, the first" \
            if len(answers) > 1 else "its answer went wrong"
        where = _where([f"a '{first.position}'"] if many else [], first)
        crashed = "it crashed: " if first.kind == "crash" else ""
        return Line(False, f"{words}: {said}{where}: {crashed}{first.message}",
                    _answer_facts(first))
    for position in wanted:
        if any(a.kind is None for a in answers if a.position == position):
            continue
        there = f"a '{position}'" if many else "there"
        here = [a for a in answers if a.position == position]
        if here:
            return Line(False, f"{words}: never answered {there}{_where([], here[0])}: "
                               f"{NO_ANSWER[here[0].kind or '']}", _answer_facts(here[0]))
        if position in cut:
            at = f" at {there}" if many else ""
            return Line(None, f"{words}: not checked{at}: it was out of that game before, "
                              f"after a fault")
        return Line(False, f"{words}: never got {there}: check-bot's games did not reach it")
    return Line(True, f"{words} {counted}")


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def _where(said: list[str], answer: Answer) -> str:
    """Where a wrong answer was, in brackets (or ''): see `_at`."""
    at = _at(said, answer)
    return f" ({at})" if at else ""


def _at(said: list[str], answer: Answer) -> str:
    """Where a wrong answer was: its position if `said`, and the rule options of its game
    that are not the defaults (a student who read the default rules sees why)."""
    return ", ".join([*said, *filter(None, [under(answer.rules, answer.options)])])


def under(rules_id: str, options: Options) -> str:
    """'in a game with the rule option(s) NAME: VALUE, ...' for the options that differ from
    the rule set's defaults, in its words (as a config writes them); '' for none."""
    changed = _changed(rules_id, options)
    if not changed:
        return ""
    said = ", ".join(f"{name}: {_word(value)}" for name, value in changed.items())
    return f"in a game with the rule option{'s' if len(changed) > 1 else ''} {said}"


def _changed(rules_id: str, options: Options) -> dict[str, Any]:
    defaults = {spec.name: spec.default for spec in get_rules(rules_id).option_specs}
    return {name: value for name, value in options if defaults.get(name) != value}


def _word(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _answer_facts(answer: Answer) -> dict[str, Any]:
    """The rule options the game of a wrong answer changed, as data for `--json`."""
    return _facts(answer.rules, answer.options)


def _facts(rules_id: str, options: Options) -> dict[str, Any]:
    """The rule options a failure's game changed, as data for `--json`."""
    changed = _changed(rules_id, options)
    return {"rule_options": changed} if changed else {}


def timing(evidence: Evidence, limits: Limits) -> Line:
    """Every decision within its time limit: billed time (its wall time, or past the limit
    the smaller of wall and CPU time) within `limits.decision`, and wall time within the
    wall limit (`decision × wall_factor`); both shown, since a bot that sleeps is billed
    little but holds the game up."""
    answers = evidence.answers
    if not answers:
        return Line(False, "answers in time: it was never asked a decision")
    limit, wall = limits.decision, limits.decision * limits.wall_factor
    timed = [a for a in answers if a.kind in (None, "illegal", "timeout")] or answers
    late = [a for a in timed if a.kind == "timeout" or a.seconds > limit]
    slowest = max(timed, key=lambda a: a.seconds)
    longest = max(timed, key=lambda a: a.wall)
    facts = {"seconds": {"billed": round(slowest.seconds, 6), "wall": round(longest.wall, 6),
                         "limit": limit, "wall_limit": wall}}
    if late:
        at = _at([f"a {slowest.rules} '{slowest.position}'"], slowest)
        return Line(False, f"answers in time: {len(late)} of {len(timed)} decisions ran out of "
                           f"time, over {limit:g} s billed or {wall:g} s wall (slowest "
                           f"{slowest.seconds:.3f} s billed, {slowest.wall:.3f} s wall, {at}; "
                           f"{late[0].message or 'late'})", facts | _answer_facts(slowest))
    return Line(True, f"answers in time (slowest {slowest.seconds:.3f} s billed of the "
                      f"{limit:g} s limit, {longest.wall:.3f} s wall of the {wall:g} s wall "
                      f"limit)", facts)


def protocol(evidence: Evidence, inline: bool, shutdown: str | None) -> Line:
    """The protocol, from hello to shutdown (a bot run inline speaks none: its ends only)."""
    broken = [a for a in evidence.answers if a.kind == "protocol"]
    words = "ends every game (it runs inline: no protocol)" if inline else \
        "speaks the protocol (hello, turns, end, shutdown)"
    head = words.partition(" (")[0]
    if broken:
        first = broken[0]
        return Line(False, f"{head}: {first.message}"
                           f"{_where([f'at a {first.rules} {first.position!r}'], first)}",
                    _answer_facts(first))
    if evidence.end_failures:
        rules_id, options, message = evidence.end_failures[0]
        with_options = under(rules_id, options).removeprefix("in a game")
        return Line(False, f"{head}: at the end of a {rules_id} game{with_options}: {message}",
                    _facts(rules_id, options))
    if not inline and shutdown is not None and shutdown != "exited with code 0":
        ended = "did not exit" if shutdown.startswith("still running") else shutdown
        return Line(False, f"{head}: told 'shutdown', it {ended} (it must exit with code 0 "
                           f"when told to, or at the end of its input)")
    return Line(True, words)


def determinism(replays: Sequence[Replay], must: bool) -> Line:
    """The same seed, the same game (a Python bot promises it; a command bot may not)."""
    differ = [r for r in replays if r.decision is not None]
    if not differ:
        games = ", ".join(r.scenario.rules for r in replays)
        return Line(True, f"is deterministic under a seed (a game of {games} played twice, "
                          f"the same answers)")
    first = differ[0]
    said = (f"is deterministic under a seed: a {first.scenario.rules} game played twice from "
            f"one seed went differently at its decision {first.decision} ({first.first!r}, "
            f"then {first.second!r})")
    if must:
        return Line(False, said + ": use self.rng for chance, never the clock or the "
                                  "random module")
    return Line(None, said + "; a command bot need not be")


def notify(rules: Sequence[str], evidence: Evidence) -> Line:
    """Told every kind of event of each rule set, it survived them all."""
    if evidence.notify_failures:
        rules_id, options, kinds, message = evidence.notify_failures[0]
        on = f"a '{kinds[0]}' event" if len(kinds) == 1 else \
            "one of the events " + ", ".join(dict.fromkeys(kinds))
        game = ", ".join([rules_id, *filter(None, [under(rules_id, options)])])
        return Line(False, f"survives notify: it crashed on {on} ({game}): "
                           f"{message.removeprefix('in notify: ')}", _facts(rules_id, options))
    missing, counts = [], []
    for rules_id in rules:
        kinds = getattr(get_rules(rules_id), "event_kinds", ())
        told = evidence.told[rules_id]
        missing += [f"'{k}' ({rules_id})" for k in kinds if not told[k]]
        counts.append(f"{rules_id} {sum(1 for k in kinds if told[k])}")
    if missing and any(faulted for *_, faulted in evidence.targets):
        return Line(None, f"survives notify for every event kind: not checked for "
                          f"{', '.join(missing)}: an earlier fault ended the games first (see "
                          f"the ✗ above)")
    if missing:
        return Line(False, f"survives notify for every event kind: it was never told of "
                           f"{', '.join(missing)}: check-bot's games did not show it")
    return Line(True, f"survives notify for every event kind ({', '.join(counts)})")
