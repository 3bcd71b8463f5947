"""Where a bot runs. The referee talks to every bot through a `Host`; this module holds the
`inline` host (the bot in the referee's own process: fast, for trusted bots only).

A host turns whatever goes wrong inside a bot into a `BotFault` with a kind (`timeout`,
`crash`, `illegal`, `protocol`) and a one-line message. Hosts never see the game state.
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Protocol

from arena.bot import Bot, BotContext, GameEnd
from arena.rules.actions import Action
from arena.rules.base import Event, Observation

SENT_CHARS = 200
"""How much of what a bot sent an `illegal` or `protocol` fault keeps."""


def shown(text: str) -> str:
    """What a bot sent, cut to SENT_CHARS, for its author to see in the fault."""
    return text if len(text) <= SENT_CHARS else text[:SENT_CHARS] + "..."


class BotFault(Exception):
    """A bot misbehaved: `kind` is timeout, crash, illegal or protocol; `sent` is what it
    sent, where that is the fault (cut to SENT_CHARS)."""

    def __init__(self, kind: str, message: str, sent: str | None = None) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.sent = sent


class Host(Protocol):
    """How the referee reaches one bot for one game."""

    mode: str
    @property
    def billed(self) -> float | None:
        """Seconds to charge for the last decision, where the host measures them itself (CPU
        time of a bot in its own process); None to charge the referee's wall clock."""

    def start(self, context: BotContext) -> None:
        """Build a fresh bot for this game; raise BotFault if it cannot be built."""

    def act(self, observation: Observation, timeout: float) -> Action:
        """Return the bot's action within `timeout` seconds, or raise BotFault."""

    def notify(self, event: Event) -> None:
        """Pass on an event the bot may see; raise BotFault if the bot fails."""

    def end(self, result: GameEnd) -> None:
        """Tell the bot the game is over; raise BotFault if it fails."""

    def close(self) -> None:
        """Release what the host holds (processes, pipes)."""


class DecisionTimeout(BaseException):
    """Raised inside an inline bot by the alarm; a BaseException so `except Exception` in a
    bot does not swallow it."""


def _message(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"[:500]


class _Watchdog:
    """The deadline of the inline bot now thinking (inf when none) and the tick interval."""

    deadline = math.inf
    depth = 0
    tick = 0.005


def _alarm(signum: int, frame: object) -> None:
    if time.perf_counter() > _Watchdog.deadline:
        _Watchdog.deadline = math.inf
        raise DecisionTimeout()


@contextlib.contextmanager
def decision_alarm() -> Iterator[None]:
    """For the span of a game, tick a periodic SIGALRM that interrupts an inline bot past its
    deadline: no system call per decision, and the limit holds to within one tick (5 ms)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = None
    if _Watchdog.depth == 0:
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, _Watchdog.tick, _Watchdog.tick)
    _Watchdog.depth += 1
    try:
        yield
    finally:
        _Watchdog.depth -= 1
        if _Watchdog.depth == 0:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            _Watchdog.deadline = math.inf


class InlineHost:
    """Runs a bot class in this process. The time limit interrupts long pure-Python work with
    SIGALRM (main thread only) and is checked after the fact when it could not interrupt."""

    mode = "inline"
    billed: float | None = None  # the referee's wall clock is the bot's time

    def __init__(self, factory: Callable[[BotContext], Bot]) -> None:
        self.factory = factory
        self.bot: Bot | None = None
        self._can_alarm = threading.current_thread() is threading.main_thread()
        self._notify: Callable[[Event], None] | None = None
        self.listens = False

    def start(self, context: BotContext) -> None:
        """Build the bot and call its start()."""
        try:
            self.bot = self.factory(context)
            self.bot.start(context)
        except Exception as exc:
            raise BotFault("crash", f"while starting: {_message(exc)}") from exc
        self.listens = type(self.bot).notify is not Bot.notify
        self._notify = self.bot.notify if self.listens else None

    def act(self, observation: Observation, timeout: float) -> Action:
        """Ask the bot, interrupting it at the deadline where the process allows."""
        assert self.bot is not None
        started = time.perf_counter()
        if _Watchdog.depth and self._can_alarm:
            _Watchdog.deadline = started + timeout
        try:
            action = self.bot.act(observation)
            _Watchdog.deadline = math.inf
        except DecisionTimeout:
            raise BotFault("timeout", f"no answer within {timeout:.3g}s") from None
        except Exception as exc:
            raise BotFault("crash", _message(exc)) from exc
        finally:
            _Watchdog.deadline = math.inf
        elapsed = time.perf_counter() - started
        if elapsed > timeout:
            raise BotFault("timeout", f"answered after {elapsed:.3g}s, limit {timeout:.3g}s")
        return action

    def notify(self, event: Event) -> None:
        """Pass the event on, if the bot listens."""
        if self._notify is None:
            return
        try:
            self._notify(event)
        except Exception as exc:
            raise BotFault("crash", f"in notify: {_message(exc)}") from exc

    def end(self, result: GameEnd) -> None:
        """Tell the bot the result."""
        assert self.bot is not None
        try:
            self.bot.end(result)
        except Exception as exc:
            raise BotFault("crash", f"in end: {_message(exc)}") from exc

    def close(self) -> None:
        """Drop the bot."""
        self.bot = None
