"""What every rule set shares: the RuleSet protocol, its errors, events, observations,
results, option specs and the rule set's description.

PURE: no I/O, no clocks, no global random state, no pluggy, no click. Randomness arrives as
an explicit `random.Random` in `RuleSet.chance` and nowhere else, so a recorded game can be
re-applied from its chance outcomes and actions alone. What a seat may do now is
`arena.rules.legal`; what the built-in engines share is `arena.rules.engine`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple, Protocol

from arena.hands import Claim
from arena.options import Options
from arena.rules.actions import Action, Chance
from arena.rules.legal import Decision, Legal

_NO_DATA: Mapping[str, Any] = MappingProxyType({})

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
    quiet: bool = False
    """Written into a game's options (its record, a bot's context) only when it differs from
    the default: an option added later that leaves every earlier record byte-identical."""

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

    def fault(self, state: Any, seat: int, outside: bool = False) -> Any:
        """Return the state after a seat faulted (the seat to act, or another seat still in
        the game while a decision is pending), under the on_fault policy; `outside`: the
        fault came outside the seat's own decision (in start or notify)."""

    def observe(self, state: Any, seat: int) -> Observation:
        """Return what one seat may know now."""

    def events(self, state: Any) -> tuple[Event, ...]:
        """Return the events produced by the step that led to this state."""

    def is_over(self, state: Any) -> bool:
        """Whether the game has ended."""

    def result(self, state: Any) -> Result:
        """Return placements and scores of a finished game."""
