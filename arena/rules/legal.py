"""What a seat may do now: the decisions, `Legal` (the lowest claim, the rerollable
positions, the seats to choose) and the checks that say why an action is illegal.

PURE: no I/O, no clocks, no random at all; it knows no rule set's state, only what the rule
set put in a `Legal`. Applying an action is the rule set's (`arena.rules.dice`, `cards`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypeGuard

from arena.hands import Claim, ClaimSpace
from arena.rules.actions import (
    Accept,
    Action,
    Bid,
    Challenge,
    Choose,
    Look,
    Pass,
    Reroll,
)

Decision: TypeAlias = Literal["claim", "respond", "reroll", "choose", "accept", "turn", "wait"]
"""What a seat is asked: dice and dice-cards claim, respond, reroll and choose; cards accept
and turn; `wait` when it is not the seat's turn."""
DECISIONS: tuple[Decision, ...] = ("claim", "respond", "reroll", "choose", "accept", "turn",
                                   "wait")


@dataclass(frozen=True, slots=True)
class Legal:
    """What the seat to act may do now: the decision, and the lowest legal claim.

    A `reroll` may use only the positions in `rerollable` (fewer than five with
    `reroll_once_per: round`), and at least one of them when `must_reroll` (with
    `look_must_reroll`); `choose` picks the receiver among `seats`.
    """

    decision: Decision
    space: ClaimSpace = field(repr=False)
    min_index: int
    face_up: tuple[bool, ...] = ()
    rerollable: tuple[int, ...] = (0, 1, 2, 3, 4)
    must_reroll: bool = False
    seats: tuple[int, ...] = ()

    @property
    def min_claim(self) -> Claim | None:
        """The lowest claim that may be made now, or None when no claim is possible."""
        claims = self.space.claims  # len() of the tuple: ClaimSpace.__len__ is a Python call
        return claims[self.min_index] if self.min_index < len(claims) else None

    def claims(self) -> tuple[Claim, ...]:
        """Every claim that may be made now, lowest first."""
        return self.space.claims[self.min_index :]

    def can_claim(self) -> bool:
        """Whether any higher claim exists (if not, only the challenge is legal)."""
        return self.min_index < len(self.space.claims)

    def problem(self, action: object) -> str | None:
        """Return why an action is illegal now, or None when it is legal."""
        check = _CHECKS_BY_DECISION.get(self.decision, _NONE).get(type(action))
        if check is None:
            return f"{_show(action)} is not a legal answer to '{self.decision}' ({self.describe()})"
        return check(self, action)

    def is_free_reroll(self, action: object) -> TypeGuard[Reroll]:
        """Whether `action` rerolls sorted distinct int positions 0-4 where no rule option
        limits rerolls: legal with no further check (the common case, tested in C)."""
        if (type(action) is not Reroll or self.decision != "reroll" or self.must_reroll
                or self.rerollable != _ALL_POSITIONS):
            return False
        positions = action.positions
        return (type(positions) is tuple and positions in SORTED_POSITIONS
                and {*map(type, positions)} <= _INT)

    def describe(self) -> str:
        """Say in a few words what is legal now."""
        low = self.min_claim
        above = f"a claim of {low} or higher" if low else "no claim (none is higher)"
        return {
            "claim": f"legal: {above}",
            "respond": "legal: challenge" + (f", look, or blind {above}" if low else ""),
            "reroll": self._describe_reroll(),
            "choose": "legal: choose the receiver, seat " + " or ".join(map(str, self.seats)),
            "accept": "legal: challenge (reject)" + (", accept" if low else ""),
            "turn": f"legal: pass with {above}, distinct swaps and face-down reveals",
            "wait": "nothing: it is not this seat's turn",
        }[self.decision]

    def _describe_reroll(self) -> str:
        if self.rerollable == _ALL_POSITIONS and not self.must_reroll:
            return "legal: reroll any set of distinct positions 0-4 (possibly none)"
        where = " ".join(map(str, self.rerollable)) or "none"
        least = "at least one" if self.must_reroll and self.rerollable else "possibly none"
        return f"legal: reroll distinct positions among {where} ({least})"

    def rerolls(self) -> tuple[Reroll, ...]:
        """Every legal reroll, in the order of the position sets' bit masks."""
        if self.rerollable == _ALL_POSITIONS and not self.must_reroll:
            return _REROLLS
        allowed = set(self.rerollable)
        least = 1 if self.must_reroll and allowed else 0
        return tuple(r for r in _REROLLS
                     if set(r.positions) <= allowed and len(r.positions) >= least)

    def actions(self) -> tuple[Action, ...]:
        """Every legal action; for `turn`, whose passes are too many to list, a finite few."""
        if self.decision == "wait":
            return ()
        if self.decision == "turn":
            return self.passes()
        if self.decision == "reroll":
            return self.rerolls()
        if self.decision == "choose":
            return tuple(Choose(seat) for seat in self.seats)
        bids = tuple(Bid(c) for c in self.claims())
        if self.decision == "claim":
            return bids
        first = (Challenge(), Look()) if self.decision == "respond" else (Challenge(), Accept())
        if not self.can_claim():
            return (Challenge(),)
        return first + (bids if self.decision == "respond" else ())


    def passes(self) -> tuple[Pass, ...]:
        """Legal passes of a `turn`: each legal claim with no swap and no reveal, then with the
        lowest legal claim each single swap (own, central) and each single reveal of a
        face-down central card. Every pass is legal; not every legal pass is listed."""
        low = self.min_claim
        plain = tuple(Pass(claim) for claim in self.claims())
        if low is None:
            return plain
        swaps = tuple(Pass(low, (swap,)) for swap in _SWAPS)
        hidden = [p for p, up in enumerate(self.face_up) if not up]
        return plain + swaps + tuple(Pass(low, (), (p,)) for p in hidden)


_SUBSETS = tuple(tuple(p for p in range(5) if mask >> p & 1) for mask in range(32))
_SWAPS = tuple((own, central) for own in range(5) for central in range(5))
_REROLLS = tuple(Reroll(p) for p in _SUBSETS)
_ALL_POSITIONS = (0, 1, 2, 3, 4)
_DISTINCT_POSITIONS = frozenset(itertools.chain.from_iterable(
    itertools.permutations(_ALL_POSITIONS, count) for count in range(6)))
"""Every tuple of distinct positions 0-4, in any order (326 of them)."""
_INT = frozenset((int,))
SORTED_POSITIONS = frozenset(_SUBSETS)
"""Every set of distinct positions 0-4 as a sorted tuple (32 of them)."""


def _show(action: object) -> str:
    return f"'{action}'" if hasattr(action, "__dataclass_fields__") else repr(action)


def _claim_problem(legal: Legal, claim: object) -> str | None:
    if not isinstance(claim, Claim):
        return f"{claim!r} is not a claim"
    index = legal.space.find(claim)
    if index is None:
        return f"no hand of {legal.space.kind} has the value {claim}"
    if index < legal.min_index:
        return f"claim {claim} is not higher than the claim to beat ({legal.describe()})"
    return None


def _top_problem(legal: Legal, action: object) -> str | None:
    if legal.can_claim():
        return None
    top = legal.space.claims[-1]
    return f"{_show(action)} is not legal: no claim is higher than {top} ({legal.describe()})"


def _positions_problem(positions: object, what: str) -> str | None:
    if (type(positions) is tuple and {*map(type, positions)} <= _INT
            and positions in _DISTINCT_POSITIONS):
        return None  # the common case, in C: each an int (so hashable), distinct, 0-4
    if not isinstance(positions, tuple) or not all(isinstance(p, int) for p in positions):
        return f"{what} must be a tuple of positions 0-4, got {positions!r}"
    if any(p < 0 or p > 4 for p in positions) or len(set(positions)) != len(positions):
        return f"{what} must be distinct positions 0-4, got {positions}"
    return None


def _reroll_problem(legal: Legal, action: Reroll) -> str | None:
    problem = _positions_problem(action.positions, "reroll")
    if problem or (legal.rerollable == _ALL_POSITIONS and not legal.must_reroll):
        return problem
    beyond = [p for p in action.positions if p >= legal.space.dice]
    if beyond:
        return (f"position {beyond[0]} is not under the cup: this game has "
                f"{legal.space.dice} dice ({legal.describe()})")
    again = [p for p in action.positions if p not in legal.rerollable]
    if again:
        return (f"position {again[0]} was already rerolled by this player in this round "
                f"({legal.describe()})")
    if legal.must_reroll and legal.rerollable and not action.positions:
        return f"a player who looks must reroll at least one die ({legal.describe()})"
    return None


def _choose_problem(legal: Legal, action: Choose) -> str | None:
    if type(action.seat) is not int or action.seat not in legal.seats:
        return f"seat {action.seat!r} cannot be chosen ({legal.describe()})"
    return None


def _pass_problem(legal: Legal, action: Pass) -> str | None:
    swaps = action.swaps
    if not isinstance(swaps, tuple) or not all(
        isinstance(s, tuple) and len(s) == 2 for s in swaps
    ):
        return f"swaps must be (own, central) position pairs, got {swaps!r}"
    for what, side in (("own", [s[0] for s in swaps]), ("central", [s[1] for s in swaps])):
        problem = _positions_problem(tuple(side), f"swap {what} positions")
        if problem:
            return problem
    problem = _positions_problem(action.reveal, "reveal")
    if problem:
        return problem
    swapped_in = {central for _, central in swaps}
    already = [p for p in action.reveal if legal.face_up[p] and p not in swapped_in]
    if already:
        return f"central card {already[0]} is already face up"
    return _claim_problem(legal, action.claim)


_CHECKS: dict[tuple[Decision, type], Callable[[Legal, Any], str | None]] = {
    ("claim", Bid): lambda legal, a: _claim_problem(legal, a.claim),
    ("respond", Challenge): lambda legal, a: None,
    ("respond", Look): lambda legal, a: _top_problem(legal, a),
    ("respond", Bid): lambda legal, a: _claim_problem(legal, a.claim),
    ("reroll", Reroll): _reroll_problem,
    ("choose", Choose): _choose_problem,
    ("accept", Challenge): lambda legal, a: None,
    ("accept", Accept): lambda legal, a: _top_problem(legal, a),
    ("turn", Pass): _pass_problem,
}
_NONE: dict[type, Callable[[Legal, Any], str | None]] = {}
_CHECKS_BY_DECISION: dict[str, dict[type, Callable[[Legal, Any], str | None]]] = {}
for (_decision, _type), _check in _CHECKS.items():
    _CHECKS_BY_DECISION.setdefault(_decision, {})[_type] = _check
