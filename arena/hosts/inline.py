"""Where a bot runs. The referee talks to every bot through a `Host`; this module holds the
`inline` host (the bot in the referee's own process: fast, for trusted bots only).

A host turns whatever goes wrong inside a bot into a `BotFault` with a kind (`timeout`,
`crash`, `illegal`, `protocol`) and a one-line message. Hosts never see the game state.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # the C half of `signal`; it has no stubs
import math
import signal
import threading
import time
from collections.abc import Callable
from time import perf_counter
from typing import Any

from arena.bot import Bot, BotContext, GameEnd, prepare
from arena.botcard import BotCard
from arena.hosts import strain
from arena.hosts.strain import PULSE, THREAD_QUEUE
from arena.hosts.trace import bot_frames, bounded, crash_text, home_of
from arena.rules.actions import Action
from arena.rules.base import Event, Observation

_set_handler: Callable[[int, Any], Any] = _signal.signal
"""`signal.signal` without the enum it makes of the handler it returns: for a Python handler
that raises and catches a ValueError, a tenth of what the referee spends setting up a game."""

SENT_CHARS = 200
"""How much of what a bot sent an `illegal` or `protocol` fault keeps."""


def shown(text: str) -> str:
    """What a bot sent, cut to SENT_CHARS, for its author to see in the fault."""
    return text if len(text) <= SENT_CHARS else text[:SENT_CHARS] + "..."


_UNPRINTABLE = {code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7f, 0xa0))}
_UNPRINTABLE.update({code: f"\\u{code:04x}" for code in (
    0x200e, 0x200f, *range(0x202a, 0x202f), *range(0x2066, 0x206a), *range(0xd800, 0xe000))})


def printable(text: str) -> str:
    """A bot's words made safe to print: control characters (terminal escapes, newlines)
    and bidirectional overrides written as escapes, so a fault message a bot wrote can
    neither drive the organiser's terminal nor hide what it says; lone surrogates too, which
    no UTF-8 file (games.jsonl, the report) can hold."""
    return text.translate(_UNPRINTABLE)


class BotFault(Exception):
    """A bot misbehaved: `kind` is timeout, crash, illegal or protocol; `sent` is what it
    sent, where that is the fault (cut to SENT_CHARS); `trace`, for a crash, the frames of
    the bot's own code it raised in (`arena.hosts.trace`). All are made printable and
    bounded here, the one door every host's fault goes through."""

    def __init__(self, kind: str, message: str, sent: str | None = None,
                 trace: object = ()) -> None:
        message = printable(message)
        sent = None if sent is None else printable(sent)
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.sent = sent
        self.trace = bounded(trace, printable)


class RefereeFailure(Exception):
    """The referee or its machine failed, not the bot (no file descriptor, memory or process
    left to start it, a sandbox tool missing, no CPU for it): the run stops, blaming no one,
    and `--resume` plays on once it is fixed."""


class Host:
    """How the referee reaches one bot for one game. A host implements start, act, notify and
    end; every other member has its default here, which a host overrides when it has more
    to say (like httpx's BaseTransport), so that no caller asks whether a host has it."""

    mode: str
    """Where the bot runs: inline, process or command."""
    billed: float | None = None
    """Seconds to charge for the last decision: its wall time, or past its time limit the
    smaller of its wall and CPU time; None to charge the referee's wall clock."""
    listens: bool = True
    """Whether the bot takes events, known once it is started (an inline bot that does not
    is told none)."""
    card: BotCard | None = None
    """What the bot said it is at hello (a bot that speaks the protocol), else None."""
    last_reply: str | None = None
    """The last line the bot sent (a bot that speaks the protocol), shown in its fault."""

    def start(self, context: BotContext) -> None:
        """Build a fresh bot for this game; raise BotFault if it cannot be built."""
        raise NotImplementedError

    def act(self, observation: Observation, timeout: float) -> Action:
        """Return the bot's action within `timeout` seconds, or raise BotFault."""
        raise NotImplementedError

    def notify(self, event: Event) -> None:
        """Pass on an event the bot may see; raise BotFault if the bot fails."""
        raise NotImplementedError

    def end(self, result: GameEnd) -> None:
        """Tell the bot the game is over; raise BotFault if it fails."""
        raise NotImplementedError

    def note(self) -> str:
        """What the bot last wrote on its own stderr, to end a fault's message (none here)."""
        return ""

    def introduce(self) -> BotCard | None:
        """Start the bot if need be and return what it says it is at hello; None for a bot
        that says nothing of itself (its card is read from its class)."""
        return None

    def close(self) -> None:
        """Release what the host holds for the game (nothing here)."""

    def shutdown(self, wait: float = 0.2) -> str | None:
        """Stop the bot's process for good, if it has one: how it ended, or None."""
        return None

    def ask_to_stop(self) -> None:
        """Ask the bot's process, if it has one, to exit on its own; `shutdown` then waits."""


class DecisionTimeout(BaseException):
    """Raised inside an inline bot by the alarm; a BaseException so `except Exception` in a
    bot does not swallow it."""


def _crash(exc: BaseException, code: object, words: str = "") -> BotFault:
    """The crash of an inline bot: the exception in one line, and where in the bot's own
    code (`code`: its class or factory) it was raised."""
    return BotFault("crash", words + crash_text(exc), trace=bot_frames(exc, home_of(code)))


class _Watchdog:
    """The inline bot now thinking: its wall deadline (inf when none; moved on by the time
    the machine took from it), when it started, its time limit, the CPU clock reading its
    CPU time counts from and its thread's run-queue wait then (None until the first tick),
    its wall limit, both clocks at the last tick between decisions (`idle`), how many games
    hold the alarm, and the tick interval. One instance,
    `_WATCH`: setting an instance's slot is cheaper than a class attribute, and it is set at
    every decision."""

    __slots__ = ("cpu0", "deadline", "depth", "idle", "limit", "queued0", "started", "tick",
                 "wall")

    def __init__(self) -> None:
        self.deadline = math.inf
        self.started = 0.0
        self.limit = math.inf
        self.cpu0: float | None = None
        self.queued0 = 0.0
        self.wall = math.inf
        self.idle: tuple[float, float] | None = None
        self.depth = 0
        self.tick = 0.005


_WATCH = _Watchdog()


def _alarm(signum: int, frame: object) -> None:
    watch = _WATCH
    if watch.deadline == math.inf:
        if watch.depth:  # between decisions: the clocks a decision's first tick counts from
            watch.idle = (time.thread_time(), THREAD_QUEUE.waited())
        return
    now = perf_counter()
    if watch.cpu0 is None:
        # the clocks are read from the first tick on, not at every decision (a system call
        # each): from the last tick between decisions, the referee's own CPU time since then
        # billed too, an error of one tick at most (a bot slower than a tick is read at its
        # start); failing that, the wall time before the tick counts as CPU time
        if watch.idle is not None:
            watch.cpu0, watch.queued0 = watch.idle
            watch.idle = None  # a later decision counts from a later tick, or its own start
        else:
            before = now - watch.started - PULSE.lost(watch.started, now)
            watch.cpu0 = time.thread_time() - before
            watch.queued0 = THREAD_QUEUE.waited()
    if now - watch.started > watch.limit and time.thread_time() - watch.cpu0 > watch.limit:
        watch.deadline = math.inf
        raise DecisionTimeout()
    if now > watch.deadline:
        unbilled = _unbilled(watch.started, now, watch.queued0)
        watch.deadline = watch.started + watch.wall + unbilled
        if now > watch.deadline:
            watch.deadline = math.inf
            raise DecisionTimeout()


def _stopped(watch: _Watchdog, timeout: float) -> BotFault:
    """The fault of a bot the watch stopped that `_late` finds just inside its time: the
    watch's CPU clock starts at a tick up to 5 ms before the decision, so it says the CPU."""
    used = math.nan if watch.cpu0 is None else time.thread_time() - watch.cpu0
    if used > timeout:
        return BotFault("timeout", f"used {used:.3f}s of CPU time, limit {timeout:.3g}s")
    return BotFault("timeout", f"no answer within {timeout:.3g}s")


def _unbilled(started: float, now: float, queued0: float) -> float:
    """The time of a decision since `started` that is the machine's, not the bot's: the
    longer of the time its thread queued for a CPU others held and the time the referee was
    not running (`arena.hosts.strain`; the two seldom overlap, and never add up to more)."""
    return max(THREAD_QUEUE.waited() - queued0, PULSE.lost(started, now), 0.0)


class decision_alarm:
    """For the span of a game, tick a periodic SIGALRM that interrupts an inline bot past its
    deadline: no system call per decision, and the limit holds to within one tick (5 ms).
    A class, not a generator: every game enters one, and contextlib's wrapper cost a third
    of the referee's own set-up of a game."""

    __slots__ = ("previous",)

    def __enter__(self) -> None:
        self.previous: Any = None
        if threading.current_thread() is not threading.main_thread():
            return
        watch = _WATCH
        if watch.depth == 0:
            watch.idle = (time.thread_time(), THREAD_QUEUE.waited())  # for the first decision
            self.previous = _set_handler(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, watch.tick, watch.tick)
        watch.depth += 1

    def __exit__(self, *exc_info: object) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        watch = _WATCH
        watch.depth -= 1
        if watch.depth == 0:
            signal.setitimer(signal.ITIMER_REAL, 0)
            # A tick already pending must find a Python handler: with SIG_DFL back in place,
            # Python raises "Signal 14 ignored due to race condition" at a random later line.
            previous = self.previous
            _set_handler(signal.SIGALRM, previous if callable(previous) else _late_alarm)
            watch.deadline = math.inf


def _not_counted(unbilled: float) -> str:
    """What a wall-time fault's message says of the machine's share, when it had one."""
    return f", {unbilled:.2f}s waiting for a CPU or the referee not counted" if unbilled else ""


def _late_alarm(signum: int, frame: object) -> None:
    """A tick that arrived as the game's alarm was being stopped: nothing to do."""


class InlineHost(Host):
    """Runs a bot class in this process. A decision is billed the smaller of its wall time and
    its CPU time (the thread's) and stopped at `limit × wall_factor` of wall time, as in every
    host, less the machine's share: the time its thread queued for a CPU, or the referee's
    process was not running (`arena.hosts.strain`). SIGALRM (main thread only) interrupts
    it, and the limits are checked after the fact where it could not."""

    mode = "inline"

    def __init__(self, factory: Callable[[BotContext], Bot]) -> None:
        self.factory = factory
        self.bot: Bot | None = None
        self.context: BotContext | None = None
        """The game's context, kept to build the bot again when its constructor raised."""
        self._can_alarm = threading.current_thread() is threading.main_thread()
        self._notify: Callable[[Event], None] | None = None
        self.listens = False
        self.wall_factor = 2.0
        self.billed: float | None = None
        self.slow = False
        """Whether the last decision outlasted a tick: this one's clocks are read at its
        start, not at its first tick (a fast bot is spared the system calls)."""

    def start(self, context: BotContext) -> None:
        """Prepare its class (once per process), build the bot and call its start(). A bot
        whose start() raised keeps playing as it is; one whose prepare() or constructor raised
        is built at its next decision (one exception costs one fault, docs/rules.md)."""
        self.wall_factor = context.limits.wall_factor
        self.bot, self.context = None, context
        PULSE.start()
        try:  # once per process, before the game: no decision's clock runs
            prepare(self.factory)
        except Exception as exc:
            raise _crash(exc, self.factory, "while preparing: ") from exc
        self._build()

    def _build(self) -> None:
        assert self.context is not None
        try:
            self.bot = self.factory(self.context)
            self._listen()
            self.bot.start(self.context)
        except Exception as exc:
            raise _crash(exc, self.factory, "while starting: ") from exc

    def _listen(self) -> None:
        assert self.bot is not None
        self.listens = type(self.bot).notify is not Bot.notify
        self._notify = self.bot.notify if self.listens else None

    def act(self, observation: Observation, timeout: float) -> Action:
        """Ask the bot, interrupting it at the deadline where the process allows."""
        if self.bot is None:
            self._build()  # its constructor raised at the start: this decision builds it
        assert self.bot is not None
        watch = _WATCH
        alarmed = watch.depth > 0 and self._can_alarm
        cpu0 = queued0 = None
        if self.slow or not alarmed:  # else read at the first tick, if the decision lasts
            cpu0, queued0 = time.thread_time(), THREAD_QUEUE.waited()
            watch.queued0, watch.idle = queued0, None
        started = perf_counter()
        if alarmed:
            watch.started, watch.limit, watch.cpu0 = started, timeout, cpu0
            watch.deadline = started + timeout * self.wall_factor
            watch.wall = timeout * self.wall_factor
        try:
            action = self.bot.act(observation)
        except DecisionTimeout:
            late = self._late(started, perf_counter(), timeout, watch.cpu0, watch.queued0,
                              "no answer")
            raise late or _stopped(watch, timeout) from None
        except Exception as exc:
            raise _crash(exc, self.bot) from exc
        finally:
            watch.deadline = math.inf
        now = perf_counter()
        self.billed = elapsed = now - started
        self.slow = elapsed > 0.005  # a tick: the next decision is read at its start
        if elapsed > timeout:
            if alarmed and watch.cpu0 is not None:
                cpu0, queued0 = watch.cpu0, watch.queued0
            late = self._late(started, now, timeout, cpu0, queued0, "answered")
            if late is not None:
                raise late
        return action

    def _late(self, started: float, now: float, timeout: float, cpu0: float | None,
              queued0: float | None, what: str) -> BotFault | None:
        """Bill a decision that ran past its time its CPU time, never more than its wall time
        less the machine's (`_unbilled`); the timeout if that is over the time, or the wall
        time less the machine's over the wall limit. The machine's strain is noted."""
        elapsed = now - started
        unbilled = (PULSE.lost(started, now) if queued0 is None
                    else _unbilled(started, now, queued0))
        counted = elapsed - unbilled
        cpu = counted if cpu0 is None else min(counted, time.thread_time() - cpu0)
        self.billed = cpu
        wall = timeout * self.wall_factor
        fault = None
        if cpu > timeout:
            fault = BotFault("timeout", f"used {cpu:.3f}s of CPU time, limit {timeout:.3g}s")
        elif counted > wall:
            fault = BotFault("timeout", f"{what} after {elapsed:.2f}s of wall time ({cpu:.2f}s "
                                        f"CPU{_not_counted(unbilled)}), wall limit {wall:.3g}s "
                                        f"({timeout:.3g}s × wall_factor {self.wall_factor:g})")
        strain.note(unbilled, timeout, fault is None and elapsed > wall)
        return fault

    def notify(self, event: Event) -> None:
        """Pass the event on, if the bot listens."""
        if self._notify is None:
            return
        try:
            self._notify(event)
        except Exception as exc:
            raise _crash(exc, self.bot, "in notify: ") from exc

    def end(self, result: GameEnd) -> None:
        """Tell the bot the result (a bot never built hears nothing)."""
        if self.bot is None:
            return
        try:
            self.bot.end(result)
        except Exception as exc:
            raise _crash(exc, self.bot, "in end: ") from exc

    def close(self) -> None:
        """Drop the bot."""
        self.bot, self.context = None, None
