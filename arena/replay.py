"""The replay file of one game: its format, written and read (arena.verify re-applies it).

A replay is gzip-compressed JSON lines (`replays/<game id>.json.gz`; gzip mtime 0, so the
bytes depend only on the game). Line 1 is the header (format version, rule set id and
version, options, seed, entrants by seat); then one line per entry of the referee's log
(chance outcomes, actions, faults, events, private events included), then one `result`
line. The chance outcomes and the private events carry every die and card, so
arena.verify can replay the game through the rules alone and compare every event and
the result. The format is documented in docs/replay-format.md and pinned by
arena/replay.schema.json.

Actions and faults carry the seconds the bot took: the one thing that differs between two
runs of the same game. Compare replays with `timeless`.

This module must not run bots, read configs or know about tournaments, and must not apply
the rules: re-applying a game is arena.verify's.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from arena.hosts.codec import action_to_json, event_to_json
from arena.hosts.text import (
    ACTIONS,
    ENCODER,
    LINES,
    SECONDS_DECIMALS,
    action_template,
    chance_text,
    event_text,
    parts_text,
)
from arena.referee import ActionEntry, Fault, FaultEntry, GameRecord, LogEntry
from arena.rules import RULESETS
from arena.rules.actions import Chance
from arena.rules.base import Event
from arena.tournament.run import safe_read
from arena.tournament.run.results import write_atomic

FORMAT = "arena-replay"
VERSION = 1
GZIP_LEVEL = 2
"""A third of level 6's time (and as fast as level 1, for 10% less) for files 39% bigger
(3.7 KB for a 4-seat dice game of random bots instead of 2.6): at level 6, compressing took
a seventh of what playing the game did."""
_SPLIT = '},{"type":'
_JOIN = '}\n{"type":'


class ReplayError(Exception):
    """A replay that cannot be read: not a regular file, not gzip, larger than the caps of
    arena.tournament.run.safe_read, not JSON lines, or not a replay at all."""


@dataclass(frozen=True, slots=True)
class Replay:
    """A replay as read from disk: the header, the log entries, and the result line."""

    header: Mapping[str, Any]
    log: tuple[Mapping[str, Any], ...]
    result: Mapping[str, Any]

    def lines(self) -> list[Mapping[str, Any]]:
        """Every line of the file in order, as the schema describes them."""
        return [self.header, *self.log, self.result]


# --- writing ------------------------------------------------------------------------------


def replay_lines(
    record: GameRecord, game: Mapping[str, Any], seats: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Turn a game record into replay lines; `game` holds id, stage and table, `seats` the
    entrants by seat (name, bot or command, origin, version, mode)."""
    return [_header(record, game, seats), *(_entry(item) for item in record.log),
            _result(record)]


def _header(
    record: GameRecord, game: Mapping[str, Any], seats: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    return {
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
        if item.trace:
            line["trace"] = list(item.trace)
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
    bot's answer was the fault, `trace` only where the bot's own frames are known (so the
    results of games without them stay as they were), `decision` in a replay."""
    out: dict[str, Any] = {"seat": fault.seat, "kind": fault.kind, "message": fault.message}
    if decision:
        out["decision"] = fault.decision
    if fault.sent is not None:
        out["sent"] = fault.sent
    if fault.trace:
        out["trace"] = list(fault.trace)
    return out


def encode_replay(lines: Sequence[Mapping[str, Any]]) -> bytes:
    """Return the replay file's bytes: JSON lines, gzip with mtime 0 (same game, same bytes)."""
    return _gzip(_json_lines(lines))


def encode_game(
    record: GameRecord, game: Mapping[str, Any], seats: Sequence[Mapping[str, Any]]
) -> bytes:
    """The replay file of `encode_replay(replay_lines(record, game, seats))`, the same JSON
    (its seconds in fixed point), built for a tournament's every game: each log entry is
    written as text straight from the record (arena.hosts.text), most of them found made
    already (games repeat the same events), instead of as a dict for the JSON encoder, which
    took as long as playing the game. Only for the built-in rule sets, whose every field keeps
    one type: a kept line is found by equal values, and 1, 1.0 and True are equal in Python."""
    return pack_text(game_text(record, game, seats))


def game_text(
    record: GameRecord, game: Mapping[str, Any], seats: Sequence[Mapping[str, Any]]
) -> bytes:
    """The replay's JSON-lines text, before `pack_text` packs it: what a reader of the game
    as it ends (the report's chances, in the worker) reads without unpacking it again."""
    if record.rules not in RULESETS:
        return _json_lines(replay_lines(record, game, seats)).encode("utf-8")
    lines = [ENCODER.encode(_header(record, game, seats)), *_log_lines(record.log),
             ENCODER.encode(_result(record))]
    return ("\n".join(lines) + "\n").encode("utf-8")


def pack_text(text: bytes) -> bytes:
    """A replay file's bytes from its text: gzip with mtime 0 (same game, same bytes)."""
    return gzip.compress(text, compresslevel=GZIP_LEVEL, mtime=0)


def _gzip(text: str) -> bytes:
    return pack_text(text.encode("utf-8"))


def _json_lines(lines: Sequence[Mapping[str, Any]],
                dumps: Callable[[Any], str] | None = None) -> str:
    # One dumps call for the whole game is about twice as fast as one per line. Inside JSON
    # text a quote is always escaped, so `},{"type":` only occurs between two objects of an
    # array whose second one starts with "type": here only between lines. The count check
    # falls back to one dumps per line should a future entry nest such an array.
    dumps = dumps or _PLAIN_ENCODER.encode
    text = dumps(list(lines))
    parts = text[1:-1].split(_SPLIT)
    if len(parts) != len(lines):
        return "\n".join(dumps(line) for line in lines) + "\n"
    return _JOIN.join(parts) + "\n"


def _log_lines(log: Sequence[LogEntry]) -> list[str]:
    """The log's lines, the same text as `_entry`'s dicts in compact JSON (arena.hosts.text):
    one loop with the lines already made at hand, since a function call costs as much as
    finding one. An event with a hand (dice or cards seen) is made from its kept parts, never
    kept whole: its hand seldom recurs, and kept, such lines would fill the table the
    recurring ones are found in (and empty it when full)."""
    lines, actions, out = LINES, ACTIONS, []
    for item in log:
        if type(item) is Event:
            data = item.data
            if "hand" in data:
                line = parts_text(item)
            else:
                try:
                    line = lines[(item.kind, item.seat, item.to, *data.items())]
                except (KeyError, TypeError):
                    line = event_text(item, exact=False)
        elif type(item) is ActionEntry:
            try:
                line = actions[item.action] % (item.seat, item.seconds)
            except (KeyError, TypeError):
                line = action_template(item.action) % (item.seat, item.seconds)
        elif type(item) is Chance:
            line = chance_text(item)
        else:
            line = ENCODER.encode(_entry(item))
        out.append(line)
    return out


_PLAIN_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


def write_replay(path: str | os.PathLike[str], lines: Sequence[Mapping[str, Any]]) -> None:
    """Write a replay file in one step (temp file, then rename)."""
    write_atomic(path, encode_replay(lines), durable=False)


# --- reading ------------------------------------------------------------------------------


def read_replay(source: str | os.PathLike[str] | bytes, name: str | None = None) -> Replay:
    """Read a replay from a regular file the user named, or from the file's bytes, unpacked
    no further than arena.tournament.run.safe_read allows; `name` names it in errors."""
    name = name or ("replay" if isinstance(source, bytes) else str(source))
    try:
        raw = source if isinstance(source, bytes) else safe_read.replay_bytes(source)
        text = safe_read.unpack(raw).decode("utf-8")
    except (safe_read.Unreadable, UnicodeDecodeError) as exc:
        raise ReplayError(f"{name}: cannot read: {exc}") from None
    return parse_replay(text.splitlines(), name)


def read_listed(folder: str | os.PathLike[str], listed: object) -> Replay:
    """Read the replay a results folder lists (games.jsonl's `replay`): a regular file under
    the folder's replays/, reached through no symbolic link."""
    path = Path(folder) / str(listed)
    try:
        raw = safe_read.replay_bytes(str(listed), folder)
    except safe_read.Unreadable as exc:
        raise ReplayError(f"{path}: cannot read: {exc}") from None
    return read_replay(raw, str(path))


def parse_replay(lines: Sequence[str], name: str = "replay") -> Replay:
    """Build a Replay from its text lines, checking the header and the result line."""
    first = _parse_line(lines[0], 1, name, safe_read.json_value) if lines else None
    if not isinstance(first, dict) or first.get("type") != "header" \
            or first.get("format") != FORMAT:
        raise ReplayError(f"{name}: line 1 is not an {FORMAT} header")
    if first.get("version") != VERSION:
        raise ReplayError(
            f"{name}: replay format version {first.get('version')!r}, "
            f"this arena reads version {VERSION}"
        )
    items = [first, *(_parse_line(line, number, name, safe_read.json_object)
                      for number, line in enumerate(lines[1:], 2))]  # fmt: skip
    if len(items) < 2 or items[-1].get("type") != "result":
        raise ReplayError(f"{name}: the last line is not the result; the file is cut short")
    return Replay(items[0], tuple(items[1:-1]), items[-1])


def _parse_line(line: str, number: int, name: str, parse: Callable[[str], Any]) -> Any:
    try:
        return parse(line)
    except safe_read.Unreadable as exc:
        raise ReplayError(f"{name}:{number}: {exc}") from None


def timeless(replay: Replay) -> list[dict[str, Any]]:
    """The replay's lines without the seconds each decision took, to compare two runs."""
    return [{k: v for k, v in line.items() if k != "seconds"} for line in replay.lines()]


def schema() -> dict[str, Any]:
    """The JSON Schema of one replay, read as the list of its lines (arena/replay.schema.json)."""
    text = resources.files("arena").joinpath("replay.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded
