"""JSON forms of claims, actions, events and observations: one encoding for replays, the
process and command protocols, and anything else that leaves the referee's memory.

Pure: builds and reads plain dicts; no I/O.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from arena import hands
from arena.rules.actions import Accept, Action, Bid, Challenge, Choose, Look, Pass, Reroll
from arena.rules.base import Event, Observation
from arena.rules.legal import Legal

_CLAIM_KEYS = ("claim", "value")
_EVENT_HEAD = ("kind", "seat", "to")


class CodecError(ValueError):
    """JSON that does not describe an action, event or observation; says what is wrong."""


_TEXTS: dict[hands.Value, str] = {}
"""Claim texts by claim: a claim space is small (72 or 309) and its claims recur in every
event, request and reply, while building a text costs a decision a microsecond or two."""


def claim_text(value: hands.Value) -> str:
    """The text of a claim or hand value ("full K 9"), built once for each value."""
    text = _TEXTS.get(value)
    if text is None:
        if len(_TEXTS) >= 16384:
            _TEXTS.clear()
        text = _TEXTS[value] = str(value)
    return text


def _plain(value: object) -> object:
    if isinstance(value, hands.Value):
        return claim_text(value)
    if isinstance(value, tuple | list):  # dice and cards are ints: no call each
        return [v if type(v) is int else _plain(v) for v in value]
    return value


def action_to_json(action: Action) -> dict[str, Any]:
    """Return the JSON form of an action, e.g. {"type": "bid", "claim": "full K 9"}."""
    if isinstance(action, Bid):
        return {"type": "bid", "claim": claim_text(action.claim)}
    if isinstance(action, Reroll):
        return {"type": "reroll", "positions": list(action.positions)}
    if isinstance(action, Pass):
        return {"type": "pass", "claim": claim_text(action.claim),
                "swaps": [list(s) for s in action.swaps], "reveal": list(action.reveal)}
    if isinstance(action, Choose):
        return {"type": "choose", "seat": action.seat}
    if isinstance(action, Challenge | Accept | Look):
        return {"type": str(action)}
    raise CodecError(f"not an action: {action!r}")


_compact = json.JSONEncoder(separators=(",", ":")).encode
_ACTION_TEXTS: dict[Action, bytes] = {}
_PLAIN_ACTIONS = (Challenge, Accept, Look)


def action_text(action: Action) -> bytes:
    """The compact JSON text of an action; a bid of a claim or an action without fields is
    built once (a bot's answers recur), any other each time (its fields may be anything)."""
    kind = type(action)
    bid = isinstance(action, Bid) and kind is Bid and type(action.claim) is hands.Value
    cached = bid or kind in _PLAIN_ACTIONS
    text = _ACTION_TEXTS.get(action) if cached else None
    if text is None:
        text = _compact(action_to_json(action)).encode()
        if cached:
            if len(_ACTION_TEXTS) >= 4096:
                _ACTION_TEXTS.clear()
            _ACTION_TEXTS[action] = text
    return text


def _json(value: object) -> str:
    """A value as the JSON the bot sent (never a Python repr), cut short."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 100 else text[:100] + "..."


def _ints(value: object, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(type(v) is int for v in value):
        raise CodecError(f"{what} must be a list of whole numbers, got {_json(value)}")
    return tuple(value)


def _claim(data: Mapping[str, Any], sof: bool) -> hands.Value:
    text = data.get("claim")
    if not isinstance(text, str):
        raise CodecError(f'"claim" must be a claim text such as "pair J", got {_json(text)}')
    try:
        return hands.parse_claim(text, sof)
    except hands.HandError as exc:
        raise CodecError(str(exc)) from None


def action_from_json(data: object, straight_over_full: bool = False) -> Action:
    """Read an action from its JSON form; raise CodecError naming what is wrong."""
    if not isinstance(data, dict):
        raise CodecError(f"an action is a JSON object, got {_json(data)}")
    kind = data.get("type")
    if kind == "challenge":
        return Challenge()
    if kind == "accept":
        return Accept()
    if kind == "look":
        return Look()
    if kind == "bid":
        return Bid(_claim(data, straight_over_full))
    if kind == "reroll":
        return Reroll(_ints(data.get("positions", []), "positions"))
    if kind == "choose":
        seat = data.get("seat")
        if type(seat) is not int:
            raise CodecError(f"'seat' must be a seat number, got {seat!r}")
        return Choose(seat)
    if kind == "pass":
        swaps = data.get("swaps", [])
        if not isinstance(swaps, list):
            raise CodecError(f"swaps must be a list of [own, central] pairs, got {_json(swaps)}")
        pairs = tuple(_ints(s, "a swap") for s in swaps)
        if any(len(p) != 2 for p in pairs):
            raise CodecError(f"each swap is an [own, central] pair, got {_json(swaps)}")
        return Pass(_claim(data, straight_over_full), pairs,  # type: ignore[arg-type]
                    _ints(data.get("reveal", []), "reveal"))
    raise CodecError(f"unknown action type {_json(kind)} "
                     "(challenge, accept, look, bid, reroll, pass, choose)")


def event_to_json(event: Event) -> dict[str, Any]:
    """Return an event as a flat JSON object: kind, seat, to (when private), then its data."""
    out: dict[str, Any] = {"kind": event.kind}
    if event.seat is not None:
        out["seat"] = event.seat
    if event.to is not None:
        out["to"] = event.to
    for key, value in event.data.items():
        out[key] = _plain(value)
    return out


def _tuples(value: object) -> object:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def event_from_json(data: Mapping[str, Any], straight_over_full: bool = False) -> Event:
    """Read an event back from its JSON form (claims become claims, lists become tuples)."""
    fields: dict[str, Any] = {}
    for key, value in data.items():
        if key in _EVENT_HEAD:
            continue
        if type(value) is list:
            value = _tuples(value)
        elif key in _CLAIM_KEYS and type(value) is str:
            value = hands.parse_claim(value, straight_over_full)
        fields[key] = value
    return Event(data["kind"], data.get("seat"), MappingProxyType(fields), data.get("to"))


def observation_to_json(obs: Observation, history: bool = True) -> dict[str, Any]:
    """Return an observation as JSON, with what may be done now under `legal` (and without
    its history when the reader rebuilds it from the events it was sent)."""
    out: dict[str, Any] = {
        "rules": obs.rules, "seat": obs.seat, "legal": _legal_to_json(obs.legal),
        "claim": None if obs.claim is None else claim_text(obs.claim), "claimant": obs.claimant,
        "hand": None if obs.hand is None else list(obs.hand),
        "scores": list(obs.scores), "active": list(obs.active),
    }
    if history:
        out["history"] = [event_to_json(e) for e in obs.history]
    if obs.central is not None:
        out["central"] = list(obs.central)
        out["face_up"] = list(obs.face_up or ())
        out["draw_pile"] = obs.draw_pile
    return out


def _legal_to_json(legal: Legal) -> dict[str, Any]:
    """What may be done now; the fields that rule options add appear only when they apply."""
    min_claim = legal.min_claim
    out: dict[str, Any] = {"decision": legal.decision,
                           "min_claim": None if min_claim is None else claim_text(min_claim)}
    if legal.decision == "reroll" and len(legal.rerollable) < 5:
        out["rerollable"] = list(legal.rerollable)
    if legal.decision == "reroll" and legal.must_reroll:
        out["must_reroll"] = True
    if legal.decision == "choose":
        out["seats"] = list(legal.seats)
    return out


def _legal_from_json(data: Mapping[str, Any], space: hands.ClaimSpace,
                     face_up: tuple[bool, ...], sof: bool) -> Legal:
    return _legal(space.kind, sof, data["decision"], data.get("min_claim"), face_up,
                  tuple(data.get("rerollable", (0, 1, 2, 3, 4))),
                  bool(data.get("must_reroll", False)), tuple(data.get("seats", ())))


@functools.lru_cache(maxsize=4096)
def _legal(kind: str, sof: bool, decision: Any, low: str | None, face_up: tuple[bool, ...],
           rerollable: tuple[int, ...], must_reroll: bool, seats: tuple[int, ...]) -> Legal:
    """A Legal built once for each form it is sent in: they are immutable and recur (a
    bot's process rebuilds one per decision)."""
    space = hands.claim_space(kind, sof)
    min_index = len(space) if low is None else space.index[hands.parse_claim(low, sof)]
    return Legal(decision, space, min_index, face_up, rerollable, must_reroll, seats)


def observation_from_json(data: Mapping[str, Any], straight_over_full: bool = False,
                          history: tuple[Event, ...] | None = None,
                          hand: str | None = None) -> Observation:
    """Rebuild an observation (with its Legal) from JSON, e.g. in a bot's own process; a
    reader that kept the events it was sent passes the round's `history` itself, and the
    rule set's `hand` kind ("dice" or "cards", from its description) unless it is built in."""
    space = hands.claim_space(hand or hands.hand_kind(data["rules"]), straight_over_full)
    face_up = tuple(data.get("face_up") or ())
    legal = _legal_from_json(data["legal"], space, face_up, straight_over_full)
    claim = data.get("claim")
    return Observation(
        data["rules"], data["seat"], legal,
        None if claim is None else hands.parse_claim(claim, straight_over_full),
        data.get("claimant"), None if data.get("hand") is None else tuple(data["hand"]),
        tuple(data["scores"]), tuple(data["active"]),
        tuple(event_from_json(e, straight_over_full) for e in data["history"])
        if history is None else history,
        None if data.get("central") is None else tuple(data["central"]),
        face_up or None, data.get("draw_pile"),
    )
