"""The seats of a check game: the scripted opponents, the bot's own seat (its real host, as
a contest hosts it, watched), the script they share, and what the watching saw.

`Director` hands out the script's steps in decision order; a step of the bot's seat is
played for it without asking it. `WatchedHost` passes everything else to the bot's host and
notes each decision's position, time and outcome, every event the bot was told, and where
it failed. It decides nothing about a fault (the referee does) and words nothing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

from arena.bot import BotContext, GameEnd
from arena.botcard import BotCard
from arena.checkbot.positions import position
from arena.checkbot.scenarios import FAULT, ScriptedFault, Step
from arena.hosts.inline import BotFault, Host
from arena.hosts.trace import with_trace
from arena.rules.actions import Action
from arena.rules.base import Event, Observation

__all__ = ["Answer", "Director", "Evidence", "Options", "ScriptedHost", "WatchedHost"]

Options = tuple[tuple[str, Any], ...]
"""The rule options a check game set, as (name, value) pairs (the rest are the defaults)."""

NOTIFY = "in notify: "
"""How a host's fault message starts when the bot failed on an event."""


def _said(fault: BotFault) -> str:
    """A fault's message, then where in the bot's own code it raised, a frame a line."""
    return with_trace(fault.message, fault.trace)


@dataclass(frozen=True, slots=True)
class Answer:
    """One decision the bot was asked: where, how long it took (billed, and on the wall
    clock), and what went wrong (`kind` None: a legal answer; else illegal, crash, timeout or
    protocol, with the message), in a game with which rule options."""

    rules: str
    position: str
    seconds: float
    kind: str | None = None
    message: str = ""
    wall: float = 0.0
    options: Options = ()


@dataclass
class Evidence:
    """Everything the check games showed about the bot."""

    answers: list[Answer] = field(default_factory=list)
    told: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    """Event kinds the bot was told, by rule set."""
    notify_failures: list[tuple[str, Options, tuple[str, ...], str]] = field(
        default_factory=list)
    """(rules, the game's rule options, the kinds it may have failed on, the message)."""
    start_failures: list[tuple[str, str]] = field(default_factory=list)
    end_failures: list[tuple[str, Options, str]] = field(default_factory=list)
    """(rules, the game's rule options, what went wrong)."""
    targets: list[tuple[str, str, str | None, bool]] = field(default_factory=list)
    """(rules, the position a game was for, the position its first own decision was in,
    whether the bot had faulted in that game before it)."""
    played_for_it: int = 0
    games: int = 0


class Director:
    """The script of one game, handed out step by step to whichever seat decides."""

    def __init__(self, script: tuple[Step, ...]) -> None:
        self.script = script
        self.next = 0

    @property
    def done(self) -> bool:
        """Whether every step was played: the bot is on its own."""
        return self.next >= len(self.script)

    def take(self, observation: Observation) -> Step | None:
        """The next step for this decision (None once the script is over); a step that is
        not legal here is a bug of the script, never the bot's."""
        if self.done:
            return None
        step = self.script[self.next]
        self.next += 1
        if step is not FAULT:
            problem = observation.legal.problem(step)
            if problem is not None:
                raise RuntimeError(f"check-bot's script, step {self.next}: {problem}")
        return step


class ScriptedHost(Host):
    """An opponent: plays the script's steps, then the plainest legal answer (a challenge
    where one is legal, else the lowest claim, no reroll, the first seat)."""

    mode = "inline"
    listens = False
    billed = 0.0

    def __init__(self, director: Director) -> None:
        self.director = director

    def start(self, context: BotContext) -> None:
        """Nothing to build."""

    def act(self, observation: Observation, timeout: float) -> Action:
        """The script's step, or the plainest legal answer once it is over."""
        step = self.director.take(observation)
        if isinstance(step, ScriptedFault):
            raise BotFault("crash", "a scripted fault (check-bot's opponent fails on purpose)")
        return observation.legal_actions()[0] if step is None else step

    def notify(self, event: Event) -> None:
        """Nothing to remember."""

    def end(self, result: GameEnd) -> None:
        """Nothing to say."""

    def close(self) -> None:
        """Nothing to release."""


class WatchedHost(Host):
    """The bot's seat: its own host, as a contest runs it, with the script's steps of its
    seat played for it and everything else passed on and noted in `evidence`."""

    listens = True  # every event goes through here, to be counted, whether the bot listens

    def __init__(self, host: Host, director: Director, evidence: Evidence, rules: str,
                 target: str, options: Mapping[str, Any]) -> None:
        self.host, self.director, self.evidence = host, director, evidence
        self.rules, self.target = rules, target
        self.options: Options = tuple(options.items())
        self.mode = host.mode
        self.billed: float | None = None
        self.since: list[str] = []
        """Event kinds told since its last answer (a process bot's notify fails there)."""
        self.first: str | None = None
        self.reshuffled = False
        """Whether the deck was reshuffled in this round (told by the events, which say it
        to a bot in every host alike)."""
        self.faulted = False
        """Whether the bot faulted in this game (then it may not reach its position)."""

    def note(self) -> str:
        return self.host.note()

    def introduce(self) -> BotCard | None:
        return self.host.introduce()

    def shutdown(self, wait: float = 0.2) -> str | None:
        return self.host.shutdown(wait)

    def start(self, context: BotContext) -> None:
        """Start the bot for the game; note why it did not."""
        try:
            self.host.start(context)
        except BotFault as fault:
            self.faulted = True
            self.evidence.start_failures.append((self.rules, _said(fault)))
            raise
        finally:
            self.card = self.host.card  # what it said at hello, if it speaks the protocol

    def act(self, observation: Observation, timeout: float) -> Action:
        """Play the script's step for the bot, or ask the bot and note what it did and how
        long it took: billed as the referee bills it, and on the wall clock."""
        step = self.director.take(observation)
        if step is not None:
            assert not isinstance(step, ScriptedFault), "the bot's seat is never scripted to fault"
            self.billed = 0.0
            self.evidence.played_for_it += 1
            return step
        where = position(observation, self.reshuffled)
        if self.first is None and not self.faulted:
            self.first = where
        started = perf_counter()
        try:
            action = self.host.act(observation, timeout)
        except BotFault as fault:
            self.billed = None
            self._failed(where, fault, perf_counter() - started)
            raise
        finally:
            self.last_reply = self.host.last_reply  # what it sent, shown if it is illegal
        wall = perf_counter() - started
        self.billed = self.host.billed
        self._answered(observation, where, action, wall if self.billed is None else self.billed,
                       wall)
        return action

    def _answered(self, observation: Observation, where: str, action: Action,
                  seconds: float, wall: float) -> None:
        """Note a legal answer, or why it is not one (the rules' own check: the referee
        faults the bot for it, so it may then be out of the game)."""
        try:
            problem = observation.legal.problem(action)
        except Exception as exc:  # noqa: BLE001 - the bot's object broke the check
            problem = f"unusable answer {type(action).__name__}: {exc}"
        kind = None if problem is None else "illegal"
        self.faulted = self.faulted or problem is not None
        self.evidence.answers.append(Answer(self.rules, where, seconds, kind, problem or "",
                                            wall, self.options))
        self.since = []

    def _failed(self, where: str, fault: BotFault, seconds: float) -> None:
        """Note a fault on a decision; a failure in notify is the event's, not the decision's."""
        self.faulted = True
        if fault.message.startswith(NOTIFY):
            self.evidence.notify_failures.append((self.rules, self.options, tuple(self.since),
                                                  _said(fault)))
        else:
            self.evidence.answers.append(Answer(self.rules, where, seconds, fault.kind,
                                                _said(fault), seconds, self.options))
        self.since = []

    def notify(self, event: Event) -> None:
        """Pass the event on, counted; note the bot's failure on it."""
        self.evidence.told[self.rules][event.kind] += 1
        self.since.append(event.kind)
        if event.kind in ("round", "reshuffle"):
            self.reshuffled = event.kind == "reshuffle"
        try:
            self.host.notify(event)
        except BotFault as fault:
            self.faulted = True
            self.evidence.notify_failures.append((self.rules, self.options, (event.kind,),
                                                  _said(fault)))
            raise

    def end(self, result: GameEnd) -> None:
        """Tell the bot the result; note a failure there (or in notify, said only now)."""
        try:
            self.host.end(result)
        except BotFault as fault:
            if fault.message.startswith(NOTIFY):
                self.evidence.notify_failures.append((self.rules, self.options,
                                                      tuple(self.since), _said(fault)))
            else:
                self.evidence.end_failures.append((self.rules, self.options,
                                                   f"{fault.kind}: {_said(fault)}"))
            raise

    def close(self) -> None:
        """End the game on the bot's host; note which position its first decision was in."""
        self.evidence.targets.append((self.rules, self.target, self.first, self.faulted))
        self.host.close()
