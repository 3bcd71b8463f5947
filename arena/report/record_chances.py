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
from collections.abc import Callable, Sequence
from functools import cache

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
        self.seen: dict[tuple[str, ...], int] = {}
        self.rerolled: dict[tuple[int, int], int] = {}
        self.values: dict[tuple[str, ...], int] = {}

    def walk(self, seats: int, log: Sequence[object]) -> _Game:
        """Every claim's and response's chance in order, in the viewer's form, and the
        challenges (the walk of arena.report.chances over the replay's lines, read from the
        record's entries)."""
        if len(self.states) >= _KEPT:
            self.clear()
        game = _Game(self, seats)
        holds, steps, other = self.holds, game.steps, game.other
        for item in log:
            if type(item) is ActionEntry:
                game.decision += 1
                claim = game.claim
                if claim is not None and type(item.action) in RESPONSE_ACTIONS:
                    number = game.known[item.seat]
                    chance = holds[number][claim]
                    if chance is None:
                        chance = self.chance(number, claim)
                    game.add(chance, 0)
            elif type(item) is Event:
                steps.get(item.kind, other)(item)
        return game

    def number(self, state: tuple[tuple[int, ...] | None, tuple[float, ...]]) -> int:
        """A knowledge's number, given when it is first met."""
        found = self.numbers.get(state)
        if found is None:
            found = self.numbers[state] = len(self.states)
            self.states.append(state)
            self.holds.append([None] * len(self.space))
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
            found = _at_least(probability.dice_belief(self.tables, dice, survivors), claim)
        self.holds[number][claim] = found
        return found


class _Game:
    """One game's walk: each seat's knowledge by number, the true hand, the claim standing."""

    def __init__(self, knowledge: _Knowledge, seats: int) -> None:
        self.knowledge = knowledge
        self.seats = seats
        self.known = [0] * seats
        self.hand: tuple[str, ...] = ()
        self.claim: int | None = None
        self.decision = self.last_claim = -1
        self.flat: list[int] = []
        """The viewer's "d" (arena.report.chances.viewer_form): two numbers a chance."""
        self.last = -1
        self.chance_of: dict[int, float] = {}
        self.challenges: list[tuple[int, int, bool]] = []
        self.steps: dict[str, Callable[[Event], None]] = {
            "claim": self.claimed, "reroll": self.rerolled, "challenge": self.challenged,
            "round": self.new_round}

    def claimed(self, event: Event) -> None:
        """A claim (a dice game's only claim event; none holds a hand): its claimant's chance,
        and whether the hand it is about was worth less."""
        self.last_claim = self.decision
        seat = event.seat
        if seat is None:
            return
        knowledge = self.knowledge
        claim = knowledge.space.index.get(event.data["claim"])
        if claim is None:
            claim = probability.claim_index(knowledge.space, event.data["claim"])
        self.claim = claim
        number = self.known[seat]
        chance = knowledge.holds[number][claim]
        if chance is None:
            chance = knowledge.chance(number, claim)
        self.add(chance, 2 if knowledge.value(self.hand) < claim else 1)

    def add(self, chance: float, kind: int) -> None:
        """This decision's chance, with 0 for a response, 1 for a claim, 2 for a bluff."""
        decision = self.decision
        self.flat += (decision - self.last, round(chance * PRECISION) * 3 + kind)
        self.last = decision
        self.chance_of[decision] = chance

    def rerolled(self, event: Event) -> None:
        """A public reroll, without a hand: what each other seat did not see."""
        count = event.data.get("count")
        if not count:
            return
        rerolled, known = self.knowledge.rerolled, self.known
        for seat in range(self.seats) if event.to is None else (event.to,):
            if seat != event.seat:
                key = (known[seat], count)
                known[seat] = rerolled.get(key) or self.knowledge.reroll(key)

    def challenged(self, event: Event) -> None:
        """A challenge: which claim, and whether it held (for the turning point)."""
        self.challenges.append((self.decision, self.last_claim, bool(event.data["holds"])))

    def new_round(self, event: Event) -> None:
        """A new round (public, without a hand): no claim, and no seat knows the dice."""
        self.claim = None
        self.known = [0] * self.seats

    def other(self, event: Event) -> None:
        """Dice seen (the true hand, and the knowledge of the seat shown them), or nothing."""
        data = event.data
        if "hand" in data:
            hand = self.hand = tuple(data["hand"])
            to = event.to
            if to is not None and event.kind not in HONESTY_ONLY:
                self.known[to] = self.knowledge.seen.get(hand) or self.knowledge.see(hand)
        elif event.kind == "central":
            self.claim = None
