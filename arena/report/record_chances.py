"""The viewer's chances of a `dice` game from its record, as the worker that played it has it
(arena.report.as_played): the numbers arena.report.chances reads from the replay's text,
without decoding the JSON just written or feeding every seat's memory every event.

What a dice seat knows of the hand is two things: the dice it last saw (as a multiset) and
the chance that j of them are still under the cup after the rerolls it did not see. Each
such knowledge is numbered once per process, its changes (dice seen, a reroll unseen) kept
as moves from number to number, and a claim's chance is a function of the number and the
claim alone: computed once, looked up after (most games repeat the same few knowledges: a
fresh roll, dice just seen, one reroll since). The computation on a miss is the one
arena.report.chances makes (the bots' tables and the same belief), so the numbers are the
same; tests/report/test_record_chances.py pins them against it and against a seat's own
memory fed from scratch.

Only the built-in `dice` rule set is read here; any other game's chances are read from its
text (`record_json` says None).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from arena import hands
from arena.odds import probability
from arena.odds.memory import space_of, tokens
from arena.odds.probability import EXACT, DiceTables, exact
from arena.referee import ActionEntry, GameRecord
from arena.report.chances import (
    HONESTY_ONLY,
    PRECISION,
    _at_least,
    _hand_value,
    decisive,
)
from arena.rules.actions import Accept, Challenge, Look
from arena.rules.base import Event

__all__ = ["record_json"]

RESPONSE_ACTIONS = frozenset({Challenge, Look, Accept})
"""The actions that answer a claim (arena.report.chances.RESPONSES)."""
_KEPT = 1 << 14
"""Knowledges numbered at most in one claim space, all forgotten (between games) when full."""


def record_json(record: GameRecord) -> bytes | None:
    """The viewer's chances of a game as arena.report.chances.viewer_json writes them from its
    replay, or None for a game this does not read (not `dice`)."""
    if record.rules != "dice":
        return None
    space = space_of(record.rules, record.options)
    known = _known(space.straight_over_full, space.dice, space.faces)
    game = known.walk(len(record.players), record.log)
    return json.dumps({"d": game.flat, "t": decisive(game.chance_of, game.challenges)},
                      separators=(",", ":")).encode()


@cache
def _known(straight_over_full: bool, dice: int, faces: int) -> _Knowledge:
    return _Knowledge(hands.claim_space(hands.DICE, straight_over_full, dice, faces))


class _Knowledge:
    """The knowledges of one claim space, numbered (0: none yet this round), their moves, and
    each one's chance of each claim."""

    def __init__(self, space: hands.ClaimSpace) -> None:
        self.space = space
        tables = probability.tables_for(space)
        assert isinstance(tables, DiceTables)
        self.tables = tables
        self.clear()

    def clear(self) -> None:
        """Forget every knowledge but none (a fresh roll's)."""
        self.states: list[tuple[tuple[int, ...] | None, tuple[float, ...]]] = [
            (None, exact(self.space.dice))]
        self.numbers = {self.states[0]: 0}
        self.holds: list[list[float | None]] = [[None] * len(self.space)]
        self.beliefs: list[tuple[float, ...] | None] = [None]
        """Each knowledge's value distribution, made at its first claim (not per claim)."""
        self.seen: dict[tuple[str, ...], int] = {}
        self.rerolled: dict[tuple[int, int], int] = {}
        self.values: dict[tuple[str, ...], int] = {}

    def walk(self, seats: int, log: Sequence[object]) -> _Game:
        """Every claim's and response's chance in order, in the viewer's form, and the
        challenges (the walk of arena.report.chances over the replay's lines, read from the
        record's entries). One loop with its state in local names: a game has some 400
        entries, and an attribute or a call on each cost a sixth of the walk. (No `central`
        event: that is a cards game's.)"""
        if len(self.states) >= _KEPT:
            self.clear()
        known = [0] * seats
        hand: tuple[str, ...] = ()
        claim: int | None = None
        decision = last_claim = last = -1
        flat: list[int] = []
        chance_of: dict[int, float] = {}
        challenges: list[tuple[int, int, bool]] = []
        for item in log:
            if type(item) is ActionEntry:
                decision += 1
                if claim is not None and type(item.action) in RESPONSE_ACTIONS:
                    chance = self.held(known[item.seat], claim)
                    flat += (decision - last, round(chance * PRECISION) * 3)
                    last = decision
                    chance_of[decision] = chance
            elif type(item) is Event:
                kind = item.kind
                if kind == "claim":  # a dice game's only claim event; none holds a hand
                    last_claim = decision
                    if item.seat is None:
                        continue
                    claim = self.claim_of(item.data["claim"])
                    chance = self.held(known[item.seat], claim)
                    bluff = self.value(hand) < claim  # the hand it is about was worth less
                    flat += (decision - last, round(chance * PRECISION) * 3 + 1 + bluff)
                    last = decision
                    chance_of[decision] = chance
                elif kind == "challenge":  # which claim, and whether it held
                    challenges.append((decision, last_claim, bool(item.data["holds"])))
                elif kind == "round":  # no claim, and no seat knows the dice
                    claim = None
                    known = [0] * seats
                else:
                    hand = self.shown(item, known) or hand
        return _Game(flat, chance_of, challenges)

    def held(self, number: int, claim: int) -> float:
        """The chance of a claim by a knowledge: looked up, computed the first time."""
        found = self.holds[number][claim]
        return self.chance(number, claim) if found is None else found

    def claim_of(self, value: hands.Value) -> int:
        """A claim's index in the claim space."""
        found = self.space.index.get(value)
        return probability.claim_index(self.space, value) if found is None else found

    def shown(self, event: Event, known: list[int]) -> tuple[str, ...] | None:
        """Dice seen (the true hand, returned, and the knowledge of the seat shown them), or
        a public reroll, without a hand: what each other seat did not see (into `known`)."""
        data = event.data
        if event.kind == "reroll":
            count = data.get("count")
            for seat in range(len(known)) if event.to is None else (event.to,):
                if count and seat != event.seat:
                    key = (known[seat], count)
                    known[seat] = self.rerolled.get(key) or self.reroll(key)
            return None
        if "hand" not in data:
            return None
        hand = tuple(data["hand"])
        if event.to is not None and event.kind not in HONESTY_ONLY:
            known[event.to] = self.seen.get(hand) or self.see(hand)
        return hand

    def number(self, state: tuple[tuple[int, ...] | None, tuple[float, ...]]) -> int:
        """A knowledge's number, given when it is first met."""
        found = self.numbers.get(state)
        if found is None:
            found = self.numbers[state] = len(self.states)
            self.states.append(state)
            self.holds.append([None] * len(self.space))
            self.beliefs.append(None)
        return found

    def see(self, hand: tuple[str, ...]) -> int:
        """The knowledge of a seat that sees these dice (RoundMemory.saw)."""
        dice = tokens(hand, cards=False)
        found = self.seen[hand] = self.number((tuple(sorted(dice)), exact(len(dice))))
        return found

    def reroll(self, key: tuple[int, int]) -> int:
        """The knowledge after another seat rerolls `count` dice unseen."""
        dice, survivors = self.states[key[0]]
        found = self.rerolled[key] = self.number((dice, probability.after_reroll(survivors,
                                                                                  key[1])))
        return found

    def value(self, hand: tuple[str, ...]) -> int:
        """The true hand's claim index, as arena.report.chances values it."""
        found = self.values.get(hand)
        if found is None:
            space = self.space
            found = self.values[hand] = _hand_value(space.kind, space.straight_over_full,
                                                    tuple(sorted(hand)), space.dice, space.faces)
        return found

    def chance(self, number: int, claim: int) -> float:
        """P(the hand is worth at least the claim) by this knowledge (chances._holds)."""
        dice, survivors = self.states[number]
        if survivors == EXACT and dice is not None and len(dice) == 5:
            found = 1.0 if self.tables.hand_value(dice) >= claim else 0.0
        else:
            belief = self.beliefs[number]
            if belief is None:
                belief = self.beliefs[number] = probability.dice_belief(self.tables, dice,
                                                                        survivors)
            found = _at_least(belief, claim)
        self.holds[number][claim] = found
        return found


class _Game(NamedTuple):
    """One game's walk: the viewer's "d" (arena.report.chances.viewer_form: two numbers a
    chance), each decision's chance, and the challenges (for the turning point)."""

    flat: list[int]
    chance_of: dict[int, float]
    challenges: list[tuple[int, int, bool]]
