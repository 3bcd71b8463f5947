"""The chance that each claim holds, given what the seat deciding on it knew, and which claims
were bluffs: computed once, when the report is built, so the replay viewer only shows numbers.

A claim's chance is the claimant's, a response's (challenge, look, accept) the responder's:
the memory the `statistician` bot decides with (arena.odds.memory) is fed exactly the events
that seat was shown, and its tables give the probability that the hand is worth at least the
claim. That is the tables' prior given the seat's knowledge, without the statistician's model
of its opponents' honesty (the claims themselves are not weighed as evidence).

A claim is a bluff when the hand it is about was worth less than the claim when it was made:
the very test the referee applies at a challenge (`holds` in its event), which the report's
bluffing table counts; here it is applied to every claim, challenged or not.

This module reads no files: it turns one replay's parsed lines into the viewer's numbers.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from arena import hands
from arena.hosts.codec import event_from_json
from arena.hosts.text import is_chance_line
from arena.odds import probability, rank_counts
from arena.odds.memory import CentralMemory, RoundMemory, space_of
from arena.odds.probability import EXACT

__all__ = [
    "CLAIM_EVENTS",
    "RESPONSES",
    "Chance",
    "chances_stamp",
    "decisive",
    "game_chances",
    "turning_point",
    "viewer_data",
    "viewer_form",
    "viewer_json",
]

CLAIM_EVENTS = frozenset({"claim", "pass"})
"""The events that make a claim (dice and dice-cards: claim; cards: pass)."""
RESPONSES = frozenset({"challenge", "look", "accept"})
"""The actions that answer a claim; a blind pass is a claim of its own."""
HONESTY_ONLY = frozenset({"claim", "challenge", "look", "point", "out", "over", "choose"})
"""Events a dice or dice-cards memory takes only into the claims' evidence and honesty (or
not at all): the chances here leave those out, so they are not fed."""
CENTRAL_NEEDS = frozenset({"central", "pass", "challenge"})
"""The public events a cards memory takes in (besides the central cards a seat is shown)."""
PRECISION = 1000
"""Chances are carried in thousandths (the viewer shows them as 37.4%)."""


class Chance(NamedTuple):
    """One decision's chance: its number among the game's actions, the seat, the chance
    (0..1) that the claim it made or answered holds by that seat's knowledge, whether it is a
    claim, and (claims only) whether the claimant's hand did not hold it."""

    decision: int
    seat: int
    chance: float
    claim: bool
    bluff: bool | None


@dataclass(slots=True)
class _Table:
    """What the seats know as the replay is read: one bot memory per seat, and the truth."""

    rules: str
    space: hands.ClaimSpace
    memories: list[RoundMemory | CentralMemory]
    own: list[tuple[str, ...]] = field(default_factory=list)
    face_up: tuple[str | None, ...] = ()
    hand: tuple[str, ...] = ()
    """The true dice or cards the current claim is about (everyone's view)."""
    claim: int | None = None


class _Seen(NamedTuple):
    """What CentralMemory.belief reads of an observation: the seat's cards, the face-up ones."""

    hand: tuple[str, ...]
    central: tuple[str | None, ...]


def game_chances(lines: Sequence[Mapping[str, Any]]) -> list[Chance]:
    """The chance of every claim and response of one game, in the order they were made."""
    header = lines[0]
    rules = str(header["rules"]["id"])
    try:
        space = space_of(rules, header.get("options"))
    except hands.HandError:
        return []  # a plugin's rule set: the bots' tables know only the built-in ones
    table = _new_table(rules, space, len(header.get("entrants", ())))
    return list(_walk(table, lines[1:]))


def _new_table(rules: str, space: hands.ClaimSpace, seats: int) -> _Table:
    memories: list[RoundMemory | CentralMemory] = [
        CentralMemory(seat, space) if rules == "cards" else RoundMemory(seat, space)
        for seat in range(seats)
    ]
    return _Table(rules, space, memories, [() for _ in range(seats)])


def _walk(table: _Table, lines: Sequence[Mapping[str, Any]]) -> Iterator[Chance]:
    decision = -1
    for line in lines:
        if line.get("type") == "action":
            decision += 1
            kind = line["action"].get("type")
            if kind in RESPONSES and table.claim is not None:
                seat = int(line["seat"])
                yield Chance(decision, seat, _holds(table, seat, table.claim), False, None)
        elif line.get("type") == "event":
            found = _event(table, line["event"], decision)
            if found is not None:
                yield found


def _event(table: _Table, data: Mapping[str, Any], decision: int) -> Chance | None:
    """Take in one event; a claim's chance is the claimant's, after its own swap or reroll."""
    kind, seat, to = data["kind"], data.get("seat"), data.get("to")
    found = None
    if kind in ("round", "central"):
        table.claim, table.face_up = None, ()
    if "hand" in data and kind != "challenge":
        if table.rules == "cards" and to is not None:
            table.own[to] = tuple(data["hand"])
        elif table.rules != "cards":
            table.hand = tuple(data["hand"])
    if table.rules == "cards" and kind in ("see", "hand") and data.get("central"):
        table.hand = tuple(data["central"])
    if kind in CLAIM_EVENTS and seat is not None:
        claim = probability.claim_index(table.space, hands.parse_claim(
            data["claim"], table.space.straight_over_full))
        if kind == "pass":
            table.face_up = tuple(data.get("face_up") or ())
        found = Chance(decision, seat, _holds(table, seat, claim), True,
                       _value(table, table.hand) < claim)
        table.claim = claim
    if table.rules == "cards" and kind not in CENTRAL_NEEDS and "central" not in data:
        return found  # chips and acceptances: nothing a cards memory takes in
    if table.rules != "cards" and kind in HONESTY_ONLY:
        return found  # what a dice seat makes of claims only feeds its honesty model
    event = event_from_json(data, table.space.straight_over_full)  # as the bots were given it
    for memory in table.memories:
        if to is None or to == memory.seat:
            memory.notify(event)
    return found


def _value(table: _Table, hand: Sequence[str]) -> int:
    """The claim index of a true hand, by the rules' own valuation (as the referee judges)."""
    space = table.space
    return _hand_value(space.kind, space.straight_over_full, tuple(sorted(hand)), space.dice,
                       space.faces)


@lru_cache(maxsize=8192)
def _hand_value(kind: str, sof: bool, hand: tuple[str, ...], dice: int = hands.DICE_COUNT,
                faces: int = len(hands.DIE_RANKS)) -> int:
    """(Keyed by the space's kind, order and size: hashing a claim space hashes all its
    claims.) A reduced game's hand is valued in its own, smaller ladder."""
    space = hands.claim_space(kind, sof, dice, faces) if kind == hands.DICE \
        else hands.claim_space(kind, sof)
    if kind == hands.DICE:
        value = hands.dice_value([hands.rank_of(t) for t in hand], sof)
    else:
        value = hands.cards_value([hands.card_id(t) for t in hand], sof)
    return space.position(value)


def _holds(table: _Table, seat: int, claim: int) -> float:
    """P(the hand is worth at least the claim) by this seat's knowledge, tables' prior only."""
    memory = table.memories[seat]
    if memory.survivors == EXACT and memory.known is not None and len(memory.known) == 5:
        # it knows the very hand (it made the claim just after seeing it, or passed it):
        # the belief would be all on the hand's value, so skip building it
        return 1.0 if memory.tables.hand_value(memory.known) >= claim else 0.0
    if isinstance(memory, CentralMemory):
        seen = _Seen(table.own[seat], table.face_up)
        return _at_least(_central_belief(memory, seen), claim)
    return _at_least(_round_belief(memory), claim)


def _at_least(belief: Sequence[float], claim: int) -> float:
    return float(probability.holds_probability(belief, claim))


def _round_belief(memory: RoundMemory) -> tuple[float, ...]:
    """The belief of a dice or dice-cards seat, cached by its knowledge state."""
    known = tuple(sorted(memory.known)) if memory.known else None
    unseen = frozenset(memory.pool().cards) if memory.cards else frozenset()
    return _cached(("round", memory.cards, memory.space.straight_over_full, known,
                    memory.survivors, unseen), memory.belief)  # fmt: skip


def _central_belief(memory: CentralMemory, seen: _Seen) -> tuple[float, ...]:
    """The belief of a cards seat, cached by its knowledge state."""
    key = ("central", memory.space.straight_over_full, frozenset(seen.hand), seen.central,
           tuple(sorted(memory.known)), memory.survivors, frozenset(memory.gone))
    return _cached(key, lambda: memory.belief(seen))


_CACHE: dict[tuple[Any, ...], tuple[float, ...]] = {}
_CACHE_SIZE = 20_000


def _cached(key: tuple[Any, ...], compute: Any) -> tuple[float, ...]:
    """One belief per knowledge state: many seats know the same (a fresh roll, dice just seen)."""
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        found = _CACHE[key] = tuple(compute())
    return found


def turning_point(chances: Sequence[Chance], lines: Sequence[Mapping[str, Any]]) -> int | None:
    """The decision that lost a round against the odds its maker knew best (`decisive`)."""
    return decisive({c.decision: c.chance for c in chances}, _challenges(lines))


def decisive(chance_of: Mapping[int, float],
             challenges: Iterable[tuple[int, int, bool]]) -> int | None:
    """Of the claims that were challenged and did not hold, and the challenges of claims that
    held, the one whose own chance (`chance_of` its decision) said most surely it would lose
    (a claim's 1 - chance, a challenge's chance); the earliest on a tie. None when no round
    was lost by a challenge. `challenges`: (the challenge's decision, the challenged claim's,
    whether the claim held)."""
    best: tuple[float, int] | None = None
    for decision, claimant, holds in challenges:
        if holds and decision in chance_of:
            risk, where = chance_of[decision], decision
        elif not holds and claimant in chance_of:
            risk, where = 1 - chance_of[claimant], claimant
        else:
            continue
        if best is None or risk > best[0]:
            best = (risk, where)
    return None if best is None else best[1]


def _challenges(lines: Sequence[Mapping[str, Any]]) -> Iterator[tuple[int, int, bool]]:
    """(the challenge's decision, the challenged claim's decision, whether the claim held)."""
    decision, last_claim = -1, -1
    for line in lines[1:]:
        if line.get("type") == "action":
            decision += 1
        elif line.get("type") == "event":
            kind = line["event"]["kind"]
            if kind in CLAIM_EVENTS:
                last_claim = decision
            elif kind == "challenge":
                yield decision, last_claim, bool(line["event"]["holds"])


def viewer_data(lines: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the viewer shows of one game, small (`viewer_form`)."""
    chances = game_chances(lines)
    return viewer_form(chances, turning_point(chances, lines))


def viewer_form(chances: Sequence[Chance], turning: int | None) -> dict[str, Any]:
    """"d" lists two numbers a chance, the decision (as the step from the one before, the
    first from -1) and 3 x the chance in thousandths plus 0 for a response, 1 for a claim, 2
    for a bluff; "t" is the turning point's decision (or null)."""
    flat: list[int] = []
    last = -1
    for c in chances:
        kind = 0 if not c.claim else 2 if c.bluff else 1
        flat += [c.decision - last, round(c.chance * PRECISION) * 3 + kind]
        last = c.decision
    return {"d": flat, "t": turning}


def viewer_json(text: bytes) -> bytes:
    """viewer_data of one replay's JSON-lines text, as compact JSON ("null" when the replay
    cannot be followed, whatever its lines' shapes or depth: the viewer then shows no
    chances, and the report is still built)."""
    try:  # one parse of the lines that matter (a shuffle's 52 numbers are not needed)
        kept = [line for line in text.splitlines() if line and not is_chance_line(line)]
        lines = json.loads(b"[%s]" % b",".join(kept))
        data: dict[str, Any] | None = viewer_data(lines)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError):
        data = None
    return json.dumps(data, separators=(",", ":")).encode()


@lru_cache(maxsize=1)
def chances_stamp() -> bytes:
    """The first line of a chances pack: a digest of the code the chances come from (this
    module and the odds: the memory of a seat, its tables and their counts), so a report
    keeps a pack's chances only while that code is the same (and the workers' way to the
    same numbers from a game's record, arena.report.record_chances)."""
    digest = hashlib.blake2b(digest_size=8)
    for module in (__name__, probability.__name__, rank_counts.__name__, RoundMemory.__module__,
                   "arena.report.record_chances"):
        path = getattr(importlib.import_module(module), "__file__", None)
        digest.update(Path(path).read_bytes() if path else module.encode())
    return b"/* arena chances %s */\n" % digest.hexdigest().encode()
