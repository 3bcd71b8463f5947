"""The replay file of one game: write it, read it, and re-apply it without the bots.

A replay is gzip-compressed JSON lines (`replays/<game id>.json.gz`; gzip mtime 0, so the
bytes depend only on the game). Line 1 is the header (format version, rule set id and
version, options, seed, entrants by seat); then one line per entry of the referee's log
(chance outcomes, actions, faults, events, private events included), then one `result`
line. The chance outcomes and the private events carry every die and card, so
`verify_replay` can replay the game through the rules alone and compare every event and
the result. The format is documented in docs/replay-format.md and pinned by
arena/replay.schema.json.

Actions and faults carry the seconds the bot took: the one thing that differs between two
runs of the same game. Compare replays with `timeless`.

This module must not run bots, read configs or know about tournaments; it reads the rules
only to re-apply a game.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from arena.hosts.codec import CodecError, action_from_json, action_to_json, event_to_json
from arena.referee import ActionEntry, Fault, FaultEntry, GameRecord, LogEntry
from arena.rules import CHANCE, RULESETS, RulesError, RuleSet
from arena.rules.actions import Chance
from arena.tournament.results import write_atomic

FORMAT = "arena-replay"
VERSION = 1
SECONDS_DECIMALS = 6
_SPLIT = '},{"type":'
_JOIN = '}\n{"type":'


class ReplayError(Exception):
    """A replay that cannot be read: not gzip, not JSON lines, or not a replay at all."""


@dataclass(frozen=True, slots=True)
class Replay:
    """A replay as read from disk: the header, the log entries, and the result line."""

    header: Mapping[str, Any]
    log: tuple[Mapping[str, Any], ...]
    result: Mapping[str, Any]

    def lines(self) -> list[Mapping[str, Any]]:
        """Every line of the file in order, as the schema describes them."""
        return [self.header, *self.log, self.result]


@dataclass(frozen=True, slots=True)
class Difference:
    """Where a replay first disagrees with the rules: the line (1 is the header) and how."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


# --- writing ------------------------------------------------------------------------------


def replay_lines(
    record: GameRecord, game: Mapping[str, Any], seats: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Turn a game record into replay lines; `game` holds id, stage and table, `seats` the
    entrants by seat (name, bot or command, origin, version, mode)."""
    header = {
        "type": "header",
        "format": FORMAT,
        "version": VERSION,
        "game": dict(game),
        "rules": {"id": record.rules, "version": record.version},
        "options": dict(record.options),
        "seed": record.seed,
        "entrants": [{"seat": seat, **entrant} for seat, entrant in enumerate(seats)],
        "limits": {"decision": record.limits.decision, "bank": record.limits.bank,
                   "wall_factor": record.limits.wall_factor},
    }
    return [header, *(_entry(item) for item in record.log), _result(record)]


def _entry(item: LogEntry) -> dict[str, Any]:
    if isinstance(item, Chance):
        return {"type": "chance", "outcome": list(item.outcome)}
    if isinstance(item, ActionEntry):
        action = action_to_json(item.action)
        return {"type": "action", "seat": item.seat, "action": action,
                "seconds": _secs(item.seconds)}
    if isinstance(item, FaultEntry):
        line: dict[str, Any] = {
            "type": "fault",
            "seat": item.seat,
            "kind": item.kind,
            "message": item.message,
            "seconds": _secs(item.seconds),
        }
        if item.sent is not None:
            line["sent"] = item.sent
        if item.outside is not None:
            line["outside"] = item.outside
        return line
    return {"type": "event", "event": event_to_json(item)}


def _secs(seconds: float) -> float:
    return round(seconds, SECONDS_DECIMALS)


def _result(record: GameRecord) -> dict[str, Any]:
    result = record.result
    return {
        "type": "result",
        "placements": list(result.placements),
        "scores": list(result.scores),
        "out_order": list(result.out_order),
        "decisions": record.decisions,
        "faults": [fault_json(f, decision=True) for f in record.faults],
    }


def fault_json(fault: Fault, decision: bool = False) -> dict[str, Any]:
    """A fault as results record it (games.jsonl, a replay's result): `sent` only where the
    bot's answer was the fault, `decision` in a replay."""
    out: dict[str, Any] = {"seat": fault.seat, "kind": fault.kind, "message": fault.message}
    if decision:
        out["decision"] = fault.decision
    if fault.sent is not None:
        out["sent"] = fault.sent
    return out


def encode_replay(lines: Sequence[Mapping[str, Any]]) -> bytes:
    """Return the replay file's bytes: JSON lines, gzip with mtime 0 (same game, same bytes)."""
    return gzip.compress(_json_lines(lines).encode("utf-8"), compresslevel=6, mtime=0)


def _json_lines(lines: Sequence[Mapping[str, Any]]) -> str:
    # One dumps call for the whole game is about twice as fast as one per line. Inside JSON
    # text a quote is always escaped, so `},{"type":` only occurs between two objects of an
    # array whose second one starts with "type": here only between lines. The count check
    # falls back to one dumps per line should a future entry nest such an array.
    text = json.dumps(list(lines), separators=(",", ":"), allow_nan=False)
    parts = text[1:-1].split(_SPLIT)
    if len(parts) != len(lines):
        return "\n".join(json.dumps(line, separators=(",", ":")) for line in lines) + "\n"
    return _JOIN.join(parts) + "\n"


def write_replay(path: str | os.PathLike[str], lines: Sequence[Mapping[str, Any]]) -> None:
    """Write a replay file in one step (temp file, then rename)."""
    write_atomic(path, encode_replay(lines), durable=False)


# --- reading ------------------------------------------------------------------------------


def read_replay(source: str | os.PathLike[str] | bytes) -> Replay:
    """Read a replay from a file path or from the file's bytes."""
    name = "replay" if isinstance(source, bytes) else str(source)
    try:
        raw = source if isinstance(source, bytes) else Path(source).read_bytes()
        text = gzip.decompress(raw).decode("utf-8") if raw[:2] == b"\x1f\x8b" else raw.decode()
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as exc:
        raise ReplayError(f"{name}: cannot read: {exc}") from None
    return parse_replay(text.splitlines(), name)


def parse_replay(lines: Sequence[str], name: str = "replay") -> Replay:
    """Build a Replay from its text lines, checking the header and the result line."""
    items = [_parse_line(line, number, name) for number, line in enumerate(lines, 1)]
    if not items or items[0].get("type") != "header" or items[0].get("format") != FORMAT:
        raise ReplayError(f"{name}: line 1 is not an {FORMAT} header")
    if items[0].get("version") != VERSION:
        raise ReplayError(
            f"{name}: replay format version {items[0].get('version')!r}, "
            f"this arena reads version {VERSION}"
        )
    if len(items) < 2 or items[-1].get("type") != "result":
        raise ReplayError(f"{name}: the last line is not the result; the file is cut short")
    return Replay(items[0], tuple(items[1:-1]), items[-1])


def _parse_line(line: str, number: int, name: str) -> dict[str, Any]:
    try:
        item = json.loads(line)
    except ValueError as exc:
        raise ReplayError(f"{name}:{number}: not JSON: {exc}") from None
    if not isinstance(item, dict):
        raise ReplayError(f"{name}:{number}: a line must be a JSON object")
    return item


def timeless(replay: Replay) -> list[dict[str, Any]]:
    """The replay's lines without the seconds each decision took, to compare two runs."""
    return [{k: v for k, v in line.items() if k != "seconds"} for line in replay.lines()]


def schema() -> dict[str, Any]:
    """The JSON Schema of one replay, read as the list of its lines (arena/replay.schema.json)."""
    text = resources.files("arena").joinpath("replay.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


# --- verifying ----------------------------------------------------------------------------


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
    known = rules if rules is not None else _installed_rules(wanted.get("id"))
    ruleset = known.get(str(wanted.get("id")))
    if ruleset is None:
        raise _Mismatch(1, f"unknown rule set {wanted.get('id')!r}")
    if ruleset.version != wanted.get("version"):
        raise _Mismatch(
            1,
            f"rule set {ruleset.id!r} is version {ruleset.version}, "
            f"the replay was played under version {wanted.get('version')!r}",
        )
    return ruleset


def _installed_rules(rules_id: object) -> Mapping[str, RuleSet]:
    if rules_id in RULESETS:
        return RULESETS
    from arena.plugins import default_registry  # plugins only for rule sets not built in

    return default_registry().rules


def _plain(value: object) -> object:
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
        self.state = self.rules.fault(self.state, seat)

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
