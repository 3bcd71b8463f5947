"""The referee plays one game: it asks the bots, keeps the clock, applies the fault policy and
records every event. It owns everything impure about a game; the rules stay pure.

No exception from a bot escapes: each becomes a recorded fault and the game finishes. An
exception from the rules or the referee itself is a referee bug and raises `RefereeError`, so
it is never charged to a bot; nor is the machine's failure (`RefereeFailure`: no descriptor,
memory or tool to start a bot with), which passes through as it is. This module does not
read configs or write files.
"""

from __future__ import annotations

import _random
import json
import random
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from types import MappingProxyType
from typing import Any, NamedTuple, TypeAlias

from arena.bot import Bot, BotContext, GameEnd, Limits
from arena.hosts.codec import action_to_json
from arena.hosts.inline import (
    BotFault,
    Host,
    InlineHost,
    RefereeFailure,
    decision_alarm,
    shown,
)
from arena.options import NO_OPTIONS, Options
from arena.rules import CHANCE, TERMINAL, RuleSet, get_rules
from arena.rules.actions import Action, Chance
from arena.rules.base import Event, Observation, Result
from arena.seeds import bot_seed, derive_seed

MAX_DECISIONS = 200_000
_new = tuple.__new__
_NO_LIMITS = Limits()
"""The default limits, one value: frozen, so every game may share it."""


class RefereeError(RuntimeError):
    """A bug in the rules or the referee (never a bot's fault)."""


@dataclass(frozen=True, slots=True)
class Player:
    """One seat's bot: its name, where it came from, and the host it runs in."""

    name: str
    host: Host
    origin: str = ""
    version: str = ""
    options: Options = NO_OPTIONS


@dataclass(frozen=True, slots=True)
class Fault:
    """A bot's fault: which seat, which kind, the message, the decision it happened at,
    what the bot sent when that was the fault (`illegal`, `protocol`), and for a crash the
    frames of the bot's own code it raised in (`arena.hosts.trace`; none when unknown)."""

    seat: int
    kind: str
    message: str
    decision: int
    sent: str | None = None
    trace: tuple[str, ...] = ()


class ActionEntry(NamedTuple):
    """A seat's legal answer to its decision, and the seconds charged for it."""

    seat: int
    action: Action
    seconds: float


class FaultEntry(NamedTuple):
    """A seat's fault: its kind and message, the seconds charged, what the bot sent (for
    `illegal` and `protocol`), and `outside`: None for a fault on the bot's decision, else
    where it happened ("start", "notify"); such a fault is not a decision; and `trace`, as
    in `Fault`."""

    seat: int
    kind: str
    message: str
    seconds: float
    sent: str | None = None
    outside: str | None = None
    trace: tuple[str, ...] = ()


LogEntry: TypeAlias = Chance | ActionEntry | FaultEntry | Event
"""One line of a game's log. A chance outcome and an event are logged as they are (both
are already named, immutable values); answers and faults get the entries above."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """Everything about one finished game.

    `log` holds, in order, every `Chance` outcome, `ActionEntry`, `FaultEntry` and `Event`.
    """

    rules: str
    version: int
    options: Options
    seed: int
    players: tuple[Player, ...]
    log: tuple[LogEntry, ...]
    result: Result
    faults: tuple[Fault, ...]
    decisions: int
    think: tuple[float, ...]
    limits: Limits = field(default_factory=Limits)


def as_player(item: object) -> Player:
    """Turn a Player, Bot class or factory into a Player; a class or factory runs inline,
    since the caller handed over its code. Bot names are resolved by arena.entrants."""
    if isinstance(item, Player):
        return item
    if isinstance(item, type) and issubclass(item, Bot):
        return Player(item.name or item.__name__, InlineHost(item), f"class {item.__qualname__}")
    if callable(item):
        factory: Callable[[BotContext], Bot] = item
        return Player(getattr(item, "__name__", "bot"), InlineHost(factory), "callable")
    raise TypeError(f"not a bot: {item!r} (name bots through arena.play_game)")


def play_game(rules: str | RuleSet, players: Sequence[object], seed: int = 0,
              options: Mapping[str, Any] | None = None, limits: Limits | None = None,
              spectator: Callable[[Event], None] | None = None) -> GameRecord:
    """Play one game between the given bots and return its record.

    `rules` is the rule set itself, or its id in the one registry of rule sets
    (`arena.rules.get_rules`: built in, or registered by an installed plugin).
    `spectator`, if given, sees every event as it happens (private ones too, and a `fault`
    event for each fault), e.g. to narrate the game.
    """
    ruleset = get_rules(rules) if isinstance(rules, str) else rules
    seats = tuple(as_player(p) for p in players)
    options = ruleset.check_options(options)
    game = _Game(ruleset, seats, seed, options, limits or _NO_LIMITS, spectator)
    with decision_alarm():
        return game.play()


class _Game:
    """The mutable bookkeeping of one game in progress (the rules state itself is immutable)."""

    def __init__(self, ruleset: RuleSet, players: tuple[Player, ...], seed: int,
                 options: Options, limits: Limits,
                 spectator: Callable[[Event], None] | None = None) -> None:
        self.rules, self.players, self.seed = ruleset, players, seed
        self.hosts = tuple(player.host for player in players)
        self.options, self.limits = options, limits
        self.log: list[LogEntry] = []
        self.faults: list[Fault] = []
        self.broken: list[BotFault | None] = [None] * len(players)
        """A seat's fault outside its decision until it takes effect: the seat is told no event
        till then (and, when that fault forfeits it, ever)."""
        self.pending: list[tuple[int, BotFault, str]] = []
        """Faults raised outside a decision (start, notify), applied before the next one."""
        self.think = [0.0] * len(players)
        self.bank = [limits.bank or 0.0] * len(players)
        self.decisions = 0
        self.spectator = spectator
        self.watching = spectator is not None
        self.observe, self.apply = ruleset.observe, ruleset.apply  # asked at every decision

    def play(self) -> GameRecord:
        """Run the game to its end; any exception not from a bot is a referee bug."""
        try:
            return self._play()
        except (RefereeError, RefereeFailure):
            raise
        except Exception as exc:
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            where = f"in {frame.name} ({Path(frame.filename).name}:{frame.lineno})"
            raise RefereeError(f"referee bug {where} at decision {self.decisions}: "
                               f"{type(exc).__name__}: {exc}") from exc

    def _play(self) -> GameRecord:
        rules, rng = self.rules, generator(derive_seed(self.seed, "game"))
        state = rules.new_game(len(self.players), self.options)
        self._start_bots()
        to_act, events_of, log, decide = rules.to_act, rules.events, self.log, self._decide
        record = self._dispatch if self.watching else log.extend  # no one listens: log only
        while (seat := to_act(state)) != TERMINAL:
            if seat == CHANCE:
                outcome: Chance = rules.chance(state, rng)
                log.append(outcome)
                state = rules.apply(state, outcome)
            elif self.pending and self._in_game(state):
                state = self._fault_outside(state)
            else:
                state = decide(state, seat)
            record(events_of(state))
            if self.decisions > MAX_DECISIONS:
                raise RefereeError(f"game did not end after {MAX_DECISIONS} decisions")
        for seat, fault, _ in self.pending:  # raised once the game was decided: no effect
            self._note_fault(seat, fault)
        result: Result = rules.result(state)
        self._end_bots(result)
        return GameRecord(rules.id, rules.version, self.options, self.seed,
                          self.players, tuple(log), result, tuple(self.faults),
                          self.decisions, tuple(self.think), self.limits)

    def _start_bots(self) -> None:
        names = tuple(p.name for p in self.players)
        for seat, player in enumerate(self.players):
            context = BotContext(
                seat, len(self.players), self.rules.id, self.options,
                self.limits, generator(bot_seed(self.seed, seat)),
                player.options, names, getattr(self.rules, "description", None),
            )
            try:
                player.host.start(context)
            except BotFault as fault:
                self.broken[seat] = fault
                self.pending.append((seat, fault, "start"))
                self.watching = True  # a bot built again at its next decision may listen
            if player.host.listens:
                self.watching = True

    def _decide(self, state: Any, seat: int) -> Any:
        """Ask one bot for its decision and apply it, or apply the fault policy."""
        self.decisions += 1
        observation = self.observe(state, seat)
        host = self.hosts[seat]
        started = perf_counter()
        try:
            action: Action = host.act(observation, self.limits.decision + self.bank[seat])
        except BotFault as fault:
            return self._fault(state, seat, fault, self._clock(seat, started))
        elapsed = host.billed  # the host's measure, else the wall clock (as in _clock)
        if elapsed is None:
            elapsed = perf_counter() - started
        self.think[seat] += elapsed
        if elapsed > self.limits.decision:
            self._overdraw(seat, elapsed)
        try:
            new_state = self.apply(state, action)
        except Exception:
            # apply() checks legality first: an illegal answer, or a bot's object that breaks
            # the check, is the bot's fault; anything else is a referee bug.
            problem = _problem(observation, action)
            if problem is None:
                raise
            # ends with the bot's stderr, where it has its own
            illegal = BotFault("illegal", problem + host.note(), _sent(host, action))
            return self._fault(state, seat, illegal, elapsed)
        self.log.append(_new(ActionEntry, (seat, action, elapsed)))  # half ActionEntry()'s cost
        return new_state

    def _clock(self, seat: int, started: float) -> float:
        """Charge a faulted decision's wall time to the seat (an answer is charged in line in
        `_decide`: the host's billed time where it measures one, else the wall clock)."""
        elapsed = perf_counter() - started
        self.think[seat] += elapsed
        if elapsed > self.limits.decision:
            self._overdraw(seat, elapsed)
        return elapsed

    def _overdraw(self, seat: int, elapsed: float) -> None:
        """Take a decision's time past its limit from the seat's bank."""
        self.bank[seat] = max(0.0, self.bank[seat] - (elapsed - self.limits.decision))

    def _fault(self, state: Any, seat: int, fault: BotFault, elapsed: float) -> Any:
        self.faults.append(Fault(seat, fault.kind, fault.message, self.decisions, fault.sent,
                                  fault.trace))
        self.log.append(FaultEntry(seat, fault.kind, fault.message, elapsed, fault.sent,
                                   trace=fault.trace))
        self._show_fault(seat, fault)
        return self.rules.fault(state, seat)

    def _show_fault(self, seat: int, fault: BotFault) -> None:
        """Show the spectator a fault as a `fault` event (read-only data, like every event)."""
        if self.spectator is not None:
            data = MappingProxyType({"kind": fault.kind, "message": fault.message,
                                     **({"trace": fault.trace} if fault.trace else {})})
            self.spectator(Event("fault", seat, data))

    def _in_game(self, state: Any) -> bool:
        """Whether a pending fault's seat is still in the game; the faults of seats already
        out are recorded, with no effect."""
        active = self.rules.observe(state, self.pending[0][0]).active
        for seat, fault, _ in self.pending:
            if not active[seat]:
                self._note_fault(seat, fault)
        self.pending = [p for p in self.pending if active[p[0]]]
        return bool(self.pending)

    def _note_fault(self, seat: int, fault: BotFault) -> None:
        """Record a fault that changes nothing in the game (it is listed, with no log line)."""
        self.faults.append(Fault(seat, fault.kind, fault.message, self.decisions, fault.sent,
                                  fault.trace))

    def _fault_outside(self, state: Any) -> Any:
        """Apply a fault raised outside the bot's decision now, before any seat decides
        (RULES.md: out of that game at once); it is recorded but is not a decision."""
        seat, fault, where = self.pending.pop(0)
        self.faults.append(Fault(seat, fault.kind, fault.message, self.decisions, fault.sent,
                                  fault.trace))
        self.log.append(FaultEntry(seat, fault.kind, fault.message, 0.0, fault.sent, where,
                                   fault.trace))
        self._show_fault(seat, fault)
        state = self.rules.fault(state, seat, outside=True)
        if self.rules.observe(state, seat).active[seat]:
            self.broken[seat] = None  # one exception, one fault: under `penalty` it plays on
        return state

    def _dispatch(self, events: tuple[Event, ...]) -> None:
        """Record events and pass each to the seats that may see it."""
        hosts, spectator = self.players, self.spectator
        for event in events:
            self.log.append(event)
            if spectator is not None:
                spectator(event)
            for seat, player in enumerate(hosts):
                if self.broken[seat] is None and (event.to is None or event.to == seat):
                    try:
                        player.host.notify(event)
                    except BotFault as fault:
                        self.broken[seat] = fault
                        self.pending.append((seat, fault, "notify"))

    def _end_bots(self, result: Result) -> None:
        for seat, player in enumerate(self.players):
            try:
                if self.broken[seat] is None:
                    player.host.end(GameEnd(result, seat))
            except BotFault as fault:
                self._note_fault(seat, fault)
            finally:
                player.host.close()


def generator(seed: int) -> random.Random:
    """`random.Random(seed)`, the same stream, seeded by the C `seed` alone: the Python
    `__init__` and `seed` around it (checks for a str or bytes seed) add a third to the
    seeding of an int, and every game seeds three (its dice, each bot's own)."""
    rng = random.Random.__new__(random.Random)  # not seeded: Random's __init__ seeds
    _random.Random.seed(rng, seed)
    rng.gauss_next = None  # type: ignore[attr-defined]  # as Random.seed leaves it
    return rng


def _sent(host: Host, action: object) -> str:
    """What the bot sent for an illegal answer: the reply line of a bot in its own process,
    else the answer's JSON form (or its repr, when it is no action at all)."""
    reply = host.last_reply
    if reply is not None:
        return shown(reply)
    try:
        encoded = action_to_json(action)  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - the bot's object is no action: show what it is
        return shown(repr(action))
    return shown(json.dumps(encoded, separators=(", ", ": ")))


def _problem(observation: Observation, action: object) -> str | None:
    """Why the bot's answer is illegal, or None; a bot object that breaks the check is illegal."""
    try:
        return observation.legal.problem(action)
    except Exception as exc:  # noqa: BLE001 - the bot's object broke the check: its fault
        return f"unusable answer {type(action).__name__}: {type(exc).__name__}: {exc}"
