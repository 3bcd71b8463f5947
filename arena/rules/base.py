"""What every rule set shares: the RuleSet protocol, events, observations, legality, results.

PURE: no I/O, no clocks, no global random state, no pluggy, no click. Randomness arrives as
an explicit `random.Random` in `RuleSet.chance` and nowhere else, so a recorded game can be
re-applied from its chance outcomes and actions alone.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal, NamedTuple, Protocol, TypeAlias

from arena.hands import Claim, ClaimSpace
from arena.options import Options
from arena.rules.actions import (
    Accept,
    Action,
    Bid,
    Challenge,
    Chance,
    Choose,
    Look,
    Pass,
    Reroll,
)

_NO_DATA: Mapping[str, Any] = MappingProxyType({})

Decision: TypeAlias = Literal["claim", "respond", "reroll", "choose", "accept", "turn", "wait"]
"""What a seat is asked: dice and dice-cards claim, respond, reroll and choose; cards accept
and turn; `wait` when it is not the seat's turn."""
DECISIONS: tuple[Decision, ...] = ("claim", "respond", "reroll", "choose", "accept", "turn",
                                   "wait")

CHANCE = -1
"""`to_act` value when the next step is a chance outcome (a roll, a shuffle)."""
TERMINAL = -2
"""`to_act` value when the game is over."""


class RulesError(ValueError):
    """Bad input to the rules: an illegal action, a bad option, an impossible player count."""


class IllegalAction(RulesError):
    """An action that is not legal in this state; the message names it and what was legal."""


class OptionError(RulesError):
    """An unknown or out-of-range rule option; `key` names the option."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


class Event(NamedTuple):
    """Something that happened; `to` is None for a public event, else the one seat who sees it.

    Events, observations and states are named tuples: immutable like frozen dataclasses and
    several times cheaper to build, which matters on the referee's per-decision path. `data`
    is read-only too (a `MappingProxyType` in the built-in rule sets): the same event object
    reaches every bot and the game record, so no bot can rewrite what another sees.
    """

    kind: str
    seat: int | None = None
    data: Mapping[str, Any] = _NO_DATA
    to: int | None = None

    def __str__(self) -> str:
        who = "" if self.seat is None else f"seat {self.seat} "
        details = " ".join(f"{k}={_text(v)}" for k, v in self.data.items())
        return f"{who}{self.kind} {details}".strip()


def _text(v: object) -> str:
    if isinstance(v, tuple):
        return "[" + " ".join(map(_text, v)) + "]"
    return str(v)


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
        return self.space.claims[self.min_index] if self.min_index < len(self.space) else None

    def claims(self) -> tuple[Claim, ...]:
        """Every claim that may be made now, lowest first."""
        return self.space.claims[self.min_index :]

    def can_claim(self) -> bool:
        """Whether any higher claim exists (if not, only the challenge is legal)."""
        return self.min_index < len(self.space)

    def problem(self, action: object) -> str | None:
        """Return why an action is illegal now, or None when it is legal."""
        check = _CHECKS_BY_DECISION.get(self.decision, _NONE).get(type(action))
        if check is None:
            return f"{_show(action)} is not a legal answer to '{self.decision}' ({self.describe()})"
        return check(self, action)

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
    if not isinstance(positions, tuple) or not all(isinstance(p, int) for p in positions):
        return f"{what} must be a tuple of positions 0-4, got {positions!r}"
    if any(p < 0 or p > 4 for p in positions) or len(set(positions)) != len(positions):
        return f"{what} must be distinct positions 0-4, got {positions}"
    return None


def _reroll_problem(legal: Legal, action: Reroll) -> str | None:
    problem = _positions_problem(action.positions, "reroll")
    if problem or (legal.rerollable == _ALL_POSITIONS and not legal.must_reroll):
        return problem
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


class Observation(NamedTuple):
    """Everything one seat may know when it must act, and what it may do now.

    Fields: `rules`, `seat`, `legal` (what may be done now), `claim` (the claim to beat:
    the last claim of this round or on this central hand) and `claimant`, `hand` (dice:
    the dice under the cup while you look at them; cards: your 5 private cards), `scores`
    (penalty points in the dice rule sets, chips in `cards`), `active` (seats still in),
    `history` (public events since this round or central hand began), and for `cards`:
    `central` (the central hand as you see it, None where a card is face down to you),
    `face_up` and `draw_pile` (cards left to draw).
    """

    rules: str
    seat: int
    legal: Legal
    claim: Claim | None
    claimant: int | None
    hand: tuple[str, ...] | None
    scores: tuple[int, ...]
    active: tuple[bool, ...]
    history: tuple[Event, ...]
    central: tuple[str | None, ...] | None = None
    face_up: tuple[bool, ...] | None = None
    draw_pile: int | None = None

    @property
    def decision(self) -> Decision:
        """The decision asked for: claim, respond, reroll, accept, turn, or choose."""
        return self.legal.decision

    @property
    def min_claim(self) -> Claim | None:
        """The lowest claim you may make now, or None."""
        return self.legal.min_claim

    @property
    def players(self) -> int:
        """Number of seats at the table."""
        return len(self.scores)

    def legal_claims(self) -> tuple[Claim, ...]:
        """Every claim you may make now, lowest first."""
        return self.legal.claims()

    def is_legal(self, action: object) -> bool:
        """Whether an action is legal now."""
        return self.legal.problem(action) is None

    def legal_actions(self) -> tuple[Action, ...]:
        """Every legal action; in `turn`, a finite list of legal passes (`Legal.passes`)."""
        return self.legal.actions()


@dataclass(frozen=True, slots=True)
class Result:
    """How a finished game came out: places by seat (1 best, ties share) and final scores."""

    placements: tuple[int, ...]
    scores: tuple[int, ...]
    out_order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One rule option: its name, default, type and a check of its range."""

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] = ()
    minimum: int | None = None

    def check(self, value: object) -> object:
        """Return the value if it is allowed, else raise OptionError naming it."""
        if self.choices:
            # by type too: 1 == True, but 1 is not an allowed value of a yes/no option
            if not any(type(value) is type(c) and value == c for c in self.choices):
                allowed = ", ".join(map(str, self.choices))
                raise OptionError(self.name, f"{value!r} is not one of {allowed}")
            return value
        if type(value) is not type(self.default):
            kind = type(self.default).__name__
            raise OptionError(self.name, f"{value!r} is not a {kind}")
        if self.minimum is not None and value < self.minimum:  # type: ignore[operator]
            raise OptionError(self.name, f"{value!r} is below the minimum {self.minimum}")
        return value


@dataclass(frozen=True, slots=True)
class Description:
    """What a rule set is, in data: what the codec, narrator, prompt, report and viewer read
    instead of comparing rule-set ids, and what travels to a bot in its own process.

    `hand` is the kind of tokens and claim space ("dice" or "cards"); `central` is True when
    claims are about a central hand passed round the table (the `cards` game: a challenge is
    a reject); `score_word` names the scores ("penalty points", fewest best, or "chips",
    most best); `private` says what only one seat sees.
    """

    id: str
    version: int
    hand: str
    central: bool
    score_word: str
    decisions: tuple[str, ...]
    private: str
    min_players: int
    max_players: int
    options: tuple[tuple[str, Any], ...]
    """Each option's name and default, in the rule set's order."""

    @property
    def unit(self) -> str:
        """The scores' unit in a short line: "points" or "chips"."""
        return self.score_word.split()[-1]

    @property
    def challenge_verb(self) -> str:
        """What calling the claim a lie is called: "challenges", or "rejects" a central hand."""
        return "rejects" if self.central else "challenges"

    def to_json(self) -> dict[str, Any]:
        """The JSON form sent in a bot's `start` and embedded in the report's page data."""
        return {"id": self.id, "version": self.version, "hand": self.hand,
                "central": self.central, "score_word": self.score_word,
                "decisions": list(self.decisions), "private": self.private,
                "players": [self.min_players, self.max_players],
                "options": {name: default for name, default in self.options}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Description:
        """Read the JSON form back (in a bot's own process, from `start`)."""
        low, high = data["players"]
        return cls(data["id"], data["version"], data["hand"], bool(data["central"]),
                   data["score_word"], tuple(data["decisions"]), data["private"], low, high,
                   tuple(dict(data["options"]).items()))


FAULT_OPTIONS = (
    OptionSpec("on_fault", "forfeit", "what a fault costs: forfeit or penalty",
               choices=("forfeit", "penalty")),
    OptionSpec("max_faults", 3, "with on_fault=penalty: the fault that forfeits", minimum=1),
    OptionSpec("straight_over_full", False, "rank straight above full-house",
               choices=(False, True)),
)


def with_defaults(specs: tuple[OptionSpec, ...],
                  defaults: Mapping[str, object]) -> tuple[OptionSpec, ...]:
    """The option specs with some defaults changed (a variant rule set); each is checked."""
    known = {s.name for s in specs}
    for key in defaults:
        if key not in known:
            raise OptionError(key, f"unknown option (known: {', '.join(sorted(known))})")
    changed = tuple(replace(s, default=defaults[s.name]) if s.name in defaults else s
                    for s in specs)
    for spec in changed:
        spec.check(spec.default)
    return changed


def check_options(specs: Sequence[OptionSpec], options: Mapping[str, object] | None) -> Options:
    """Return the options with defaults filled in; raise OptionError on unknown or bad ones."""
    known = {s.name: s for s in specs}
    given = dict(options or {})
    for key in given:
        if key not in known:
            raise OptionError(key, f"unknown option (known: {', '.join(sorted(known))})")
    return Options((name, spec.check(given.get(name, spec.default)))
                   for name, spec in known.items())


def next_active(active: Sequence[bool], seat: int) -> int:
    """Return the next seat to the left (higher number, wrapping) that is still in the game."""
    n = len(active)
    following = seat + 1 if seat + 1 < n else 0
    if active[following]:
        return following
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if active[candidate]:
            return candidate
    raise RulesError("no seat is still in the game")


def place_by_out_order(n: int, ranked_in: Sequence[Sequence[int]],
                       out: Sequence[int]) -> tuple[int, ...]:
    """Places by seat: groups still in (best first, a group shares a place), then the out seats
    in reverse order of going out."""
    places = [0] * n
    place = 1
    for group in [*ranked_in, *([s] for s in reversed(out))]:
        for seat in group:
            places[seat] = place
        place += len(group)
    return tuple(places)


def add_to_seat(values: tuple[int, ...], seat: int, amount: int) -> tuple[int, ...]:
    """A per-seat tally with `amount` added at one seat."""
    return (*values[:seat], values[seat] + amount, *values[seat + 1 :])


def seat_out(active: tuple[bool, ...], out: tuple[int, ...], seat: int,
             reason: str) -> tuple[tuple[bool, ...], tuple[int, ...], Event]:
    """A seat leaves the game: the new `active` and `out` tuples, and the public event."""
    still = (*active[:seat], False, *active[seat + 1 :])
    return still, (*out, seat), Event("out", seat, MappingProxyType({"reason": reason}))


class Engine:
    """What every built-in rule set shares: identity, description, option and player checks."""

    id: str
    version: int
    min_players: int
    max_players: int
    option_specs: tuple[OptionSpec, ...]
    description: Description

    def __repr__(self) -> str:
        return f"<rules {self.id} v{self.version}>"

    def check_options(self, options: Mapping[str, object] | None) -> Options:
        """Return options with defaults filled in, or raise OptionError."""
        return check_options(self.option_specs, options)

    def describe(self, hand: str, central: bool, score_word: str, decisions: tuple[str, ...],
                 private: str) -> Description:
        """This engine's description, from its identity, player counts and options."""
        return Description(self.id, self.version, hand, central, score_word, decisions,
                           private, self.min_players, self.max_players,
                           tuple((s.name, s.default) for s in self.option_specs))

    def check_players(self, players: int) -> None:
        """Raise RulesError unless the player count is allowed."""
        low, high = self.min_players, self.max_players
        if not isinstance(players, int) or not low <= players <= high:
            raise RulesError(f"{self.id} is for {low} to {high} players, not {players!r}")

    def events(self, state: Any) -> tuple[Event, ...]:
        """Return the events of the step that led to this state."""
        return state.events  # type: ignore[no-any-return]


class RuleSet(Protocol):
    """The interface of a rule set: a pure state machine over immutable states."""

    id: str
    version: int
    min_players: int
    max_players: int
    option_specs: tuple[OptionSpec, ...]
    description: Description
    """What the rule set is, as data (hand kind, score word, decisions, what is private)."""

    def check_options(self, options: Mapping[str, object] | None) -> Options:
        """Return options with defaults filled in, or raise OptionError."""

    def check_players(self, players: int) -> None:
        """Raise RulesError unless the player count is allowed."""

    def new_game(self, players: int, options: Mapping[str, object] | None = None) -> Any:
        """Return the first state (a chance node: the first roll or deal is next)."""

    def to_act(self, state: Any) -> int:
        """Return the seat to act, CHANCE, or TERMINAL."""

    def chance(self, state: Any, rng: random.Random) -> Chance:
        """Draw the pending chance outcome from the generator passed in."""

    def legal(self, state: Any) -> Legal:
        """Return what the seat to act may do."""

    def apply(self, state: Any, action: Action | Chance) -> Any:
        """Return the state after an action or chance outcome; raise IllegalAction if illegal."""

    def fault(self, state: Any, seat: int) -> Any:
        """Return the state after a seat faulted (the seat to act, or another seat still in
        the game while a decision is pending), under the on_fault policy."""

    def observe(self, state: Any, seat: int) -> Observation:
        """Return what one seat may know now."""

    def events(self, state: Any) -> tuple[Event, ...]:
        """Return the events produced by the step that led to this state."""

    def is_over(self, state: Any) -> bool:
        """Whether the game has ended."""

    def result(self, state: Any) -> Result:
        """Return placements and scores of a finished game."""
