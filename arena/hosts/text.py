"""The one text of a game's events, actions and chance outcomes: the compact JSON line each is
written as, to a bot in its own process (arena.hosts.wire) and into a replay (arena.replay),
and the reading of those lines back (the report's tally of claims, arena.report.scan).

An event's line is `{"type":"event","event":{...}}` with the event in the codec's form
(arena.hosts.codec: kind, seat, to when private, then its data in order). Each line is made
once: most recur (the same claim by the same seat, the same look, the same dice seen), so
they are kept by what they say, and an event's parts (its head, each field) are kept too,
since a field such as a seat's dice recurs more often than the whole event. Kept lines are
forgotten all at once when there are too many.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections import Counter
from typing import Any

from arena import hands
from arena.hosts.codec import action_to_json, event_to_json
from arena.rules.actions import Action, Chance
from arena.rules.base import Event

__all__ = ["ACTIONS", "ENCODER", "LINES", "SECONDS_DECIMALS", "action_template", "chance_text",
           "claim_events", "event_line", "event_text", "is_chance_line", "parts_text"]

SECONDS_DECIMALS = 6
"""The seconds of an action or a fault, in fixed point with this many decimals."""


def _claim_text(value: object) -> str:
    """A claim inside an entry, as its text (the JSON encoder asks for what it cannot encode)."""
    if isinstance(value, hands.Value):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False, default=_claim_text)
"""Compact JSON, as every line of a replay and of the protocol is written."""
LINES: dict[tuple[Any, ...], str] = {}
"""Event and chance lines by what they say: (kind, seat, to, *data items) for an event of a
built-in rule set, the same and its values' types for any event, ("chance", *outcome) for a
few dice (a key of one form never equals one of another)."""
_HEAD_KEYS = frozenset(("kind", "seat", "to"))
_HEADS: dict[tuple[Any, ...], str] = {}
_FIELDS: dict[tuple[str, Any], str] = {}
ACTIONS: dict[Action, str] = {}
"""Action lines by action, with `%d` for the seat and `%.6f` for the seconds."""
_SECONDS = f"%.{SECONDS_DECIMALS}f"
_FEW = 6
"""Chance outcomes of up to this many numbers (dice) are kept."""
_KEPT = 1 << 15
"""Lines kept at most (a few MB), forgotten all at once when full."""


def event_text(event: Event, exact: bool = True) -> str:
    """An event's line, without its newline, kept by what it says (an event with a list in
    its data, such as a hand, is made each time). `exact` keeps it by its values' types too,
    since 1, 1.0 and True are equal in Python and a plugin's event may hold any of them;
    else by its values alone, for the built-in rule sets, whose every field keeps one type
    (its parts are then kept too)."""
    if exact:
        types = tuple(map(type, event.data.values()))
        if tuple in types or list in types or dict in types:  # a 1 or a True inside
            return _whole(event)
        key = (event.kind, event.seat, event.to, *event.data.items(), *types)
        return LINES.get(key) or keep(LINES, key, _whole(event))
    key = (event.kind, event.seat, event.to, *event.data.items())
    try:
        return LINES[key]
    except KeyError:
        return keep(LINES, key, parts_text(event))
    except TypeError:  # a list in the event's data: no key, no keeping
        return parts_text(event)


def _whole(event: Event) -> str:
    return ENCODER.encode({"type": "event", "event": event_to_json(event)})


def parts_text(event: Event) -> str:
    """An event's line from the texts of its parts: its head (kind, seat, to) and each of
    its fields, each part made once (the line itself is not kept: for an event of a built-in
    rule set that seldom recurs whole, such as dice seen, whose parts do)."""
    if not _HEAD_KEYS.isdisjoint(event.data):  # a field named as the head's: as the codec does
        return _whole(event)
    head = (event.kind, event.seat, event.to)
    parts = [_HEADS.get(head) or keep(_HEADS, head, _head(event))]
    for field in event.data.items():
        try:
            text = _FIELDS.get(field) or keep(_FIELDS, field, _field(field))
        except TypeError:  # a list in the field: not a key
            text = _field(field)
        parts.append(text)
    return ",".join(parts) + "}}"


def _head(event: Event) -> str:
    return ENCODER.encode({"type": "event", "event": event_to_json(event._replace(data={}))})[:-2]


def _field(field: tuple[str, Any]) -> str:
    return ENCODER.encode(dict((field,)))[1:-1]


def keep(kept: dict[Any, str], key: Any, text: str) -> str:
    """Keep a line (or a part of one) by its key, forgetting them all when there are too many."""
    if len(kept) >= _KEPT:
        kept.clear()
    kept[key] = text
    return text


_last: tuple[Event | None, bytes] = (None, b"")


def event_line(event: Event) -> bytes:
    """An event's line with its newline, as bytes for a bot's pipe: made once for every seat
    that sees it (the referee passes each event to every seat in turn)."""
    global _last
    seen, line = _last
    if seen is event:
        return line
    line = (event_text(event) + "\n").encode()
    _last = (event, line)
    return line


def action_template(action: Action) -> str:
    """An action's line with `%d` for its seat and `%.6f` for its seconds, made once per
    action: `%.6f` of the seconds is the number `round(seconds, 6)` is, in a quarter of the
    time its shortest form takes (`2.5e-05` becomes `0.000025`)."""
    try:
        found = ACTIONS.get(action)
    except TypeError:  # an action with a list inside cannot be a key
        found = None
    if found is None:
        text = ENCODER.encode(action_to_json(action)).replace("%", "%%")
        found = '{"type":"action","seat":%d,"action":' + text + ',"seconds":' + _SECONDS + "}"
        with contextlib.suppress(TypeError):
            keep(ACTIONS, action, found)
    return found


def chance_text(chance: Chance) -> str:
    """A chance outcome's line; a few dice are kept (a shuffled deck is seldom seen twice)."""
    if len(chance.outcome) > _FEW:
        return ENCODER.encode({"type": "chance", "outcome": chance.outcome})
    key = ("chance", *chance.outcome)
    return LINES.get(key) or keep(LINES, key, ENCODER.encode(
        {"type": "chance", "outcome": chance.outcome}))


# --- reading ------------------------------------------------------------------------------

_CHANCE = b'{"type":"chance"'
"""How a line of chance outcomes starts."""


def is_chance_line(line: bytes) -> bool:
    """Whether a replay's line is one of chance outcomes (the dice and cards dealt)."""
    return line.startswith(_CHANCE)


# One claim (dice), pass (cards) or challenge event, in the codec's key order:
# kind, seat, [claimant,] claim, [blind | hand, value, holds].
_CLAIM_EVENT = re.compile(
    rb'"kind":"(claim|pass|challenge)","seat":(\d+),(?:"claimant":(\d+),)?"claim":"([^"]+)"'
    rb'(?:,"blind":(true|false))?(?:,"hand":\[[^\]]*\],"value":"[^"]*","holds":(true|false))?'
)

Found = tuple[bytes, bytes, bytes, bytes, bytes, bytes]
"""(kind, seat, claimant, claim, blind, holds) of a claim event, as its line says them."""


def claim_events(text: bytes) -> Counter[Found]:
    """The claim, pass and challenge events of lines written here, counted, read from their
    text by one expression (parsing every line as JSON is ten times slower)."""
    return Counter(_CLAIM_EVENT.findall(text))
