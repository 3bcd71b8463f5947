"""One bot's pipes, line by line, for the hosts of `arena.hosts.pipe`: writing a line by a
deadline, reading the reply within the decision's time (wall clock, then CPU time), reading
a message, and turning every way this goes wrong into a `BotFault` that ends with the bot's
last stderr lines.

It never sees the game state and does not decide what a fault costs (the referee does); it
never trusts a byte the bot writes. Starting and ending the bot and its games is `PipeHost`'s.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

from arena.bot import BotContext
from arena.hosts import strain
from arena.hosts.inline import SENT_CHARS, BotFault, RefereeFailure, shown
from arena.hosts.processes import (
    BotProcess,
    InputStuck,
    LineTooLong,
    OutputClosed,
    ProcessLimits,
)
from arena.hosts.strain import PULSE, THREAD_QUEUE
from arena.hosts.wire import SeatLog

STDERR_LINES = 3
"""How many of the bot's last stderr lines a fault message ends with."""
OFF_TURN_FREE = 0.05
"""CPU seconds a bot's processes may use between two of its decisions unbilled (reading the
events); past it, what they used is billed to its next decision (docs/protocol.md)."""
BACKSTOP = 4.0
"""A decision is never waited for longer than this many times its wall limit (the time the
referee was not running apart): a bot that was still within its limit then, counting out the
time it queued for a CPU, was starved by the machine, and the run stops (`RefereeFailure`)
rather than blame it."""


def _text(line: bytes | bytearray) -> str:
    """A line the bot sent, as text for its author (bytes that are not UTF-8 replaced)."""
    return shown(bytes(line[: SENT_CHARS + 1]).decode("utf-8", "replace"))


def is_number(value: object) -> bool:
    """A JSON number (true and false are not numbers, though Python counts them as ints)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def an(word: str) -> str:
    """The word with its article: "a hello", "an actoin"."""
    return f"{'an' if word[:1].lower() in 'aeiou' and word[:1] else 'a'} {word}"


def brief(value: object, length: int = 60) -> str:
    """A value from the bot's message (text as it is, anything else as the JSON it sent),
    cut short."""
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= length else text[:length] + "..."


@dataclass
class PipeGame:
    """What the host remembers about the game in progress."""

    context: BotContext
    seed: int
    straight_over_full: bool
    rng_state: list[Any]
    faults: list[BotFault] = field(default_factory=list)
    log: SeatLog = field(default_factory=SeatLog)


class PipeLines:
    """Lines to and from one bot process, with deadlines; what goes wrong becomes a fault of
    the game in progress (`PipeHost` holds the process and the game)."""

    process: BotProcess | None
    game: PipeGame | None
    limits: ProcessLimits
    name: str
    wall_factor: float
    last_reply: str | None
    last_wall: float
    billed: float | None

    _last_stderr = ""
    _cpu_mark: Mapping[int, float] | None = None
    """The bot's CPU counters when it last answered (or became ready): what its processes
    use from then on, off its turn, is billed to its next decision."""
    _stderr_mark = 0
    """How many bytes of the process's stderr came before this game."""

    def _check_quiet(self) -> None:
        """A line left over from the last game (a second reply) is a protocol fault."""
        assert self.process is not None
        line = self._line(0.0)
        if line is not None:
            raise self._fail("protocol", f"sent a line nobody asked for: {_text(line)}",
                             sent=_text(line))

    def _fail(self, kind: str, message: str, kill: bool = True,
              sent: str | None = None, trace: object = ()) -> BotFault:
        """Record a fault of this game (the process is replaced before the next game); its
        message ends with the bot's last stderr lines, for the bot's author."""
        sandbox = None if self.process is None else self.process.sandbox
        gated = "" if sandbox is None else sandbox.gate.note()
        fault = BotFault(kind, message + self.note() + gated, sent, trace)
        if self.game is not None:
            self.game.faults.append(fault)
        if kill:
            self._kill()
        return fault

    def note(self) -> str:
        """'; stderr: ' and the last few lines (joined by ' | ') the bot wrote to stderr in
        this game, or '': what ends every fault message, the referee's `illegal` too."""
        if self.process is None:
            return ""
        self.process.drain()
        tail = self.process.stderr_tail(self._stderr_mark)
        lines = [t.strip() for t in tail.splitlines() if t.strip()]
        if not lines:
            return ""
        note = " | ".join(lines[-STDERR_LINES:])
        return "; stderr: " + (note if len(note) <= 300 else "..." + note[-300:])

    def _kill(self) -> None:
        if self.process is not None:
            self.process.drain()
            self._last_stderr = self.process.stderr_tail()
            self.process.terminate()
            self.process = None
            self._cpu_mark = None

    def _death(self) -> str:
        """Why the bot's output ended."""
        assert self.process is not None
        return self.process.exit_reason(0.5) or "closed its standard output"

    def _check_alive(self) -> None:
        """A bot that died, or closed its output while its helpers hold the pipe, is a crash."""
        assert self.process is not None
        if not self.process.alive():
            raise self._fail("crash", self._death())
        if not self.process.holds_output():
            raise self._fail("crash", "closed its standard output")

    def _send(self, data: bytes, until: float) -> None:
        assert self.process is not None
        try:
            self.process.send(data, until)
        except OutputClosed:
            raise self._fail("crash", self._death()) from None
        except InputStuck:
            raise self._fail("timeout", "stopped reading its input") from None

    def _line(self, wait: float) -> bytes | None:
        assert self.process is not None
        try:
            return self.process.next_line(wait)
        except LineTooLong:
            raise self._fail("protocol", f"sent a line longer than {self.limits.line_bytes} "
                                         f"bytes", sent=_text(self.process.buffer)) from None
        except OutputClosed:
            raise self._fail("crash", self._death()) from None

    def _parse(self, line: bytes) -> dict[str, Any]:
        sent = _text(line)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            raise self._fail("protocol", "sent a line that is not UTF-8 text", sent=sent) from None
        try:
            message = json.loads(text)
        except ValueError:
            raise self._fail("protocol", f"sent a line that is not JSON: {brief(text, 80)}",
                             sent=sent) from None
        except RecursionError:  # the bot's doing, not the referee's: its reply is refused
            raise self._fail("protocol", "sent JSON nested too deeply to read", sent=sent) from None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise self._fail("protocol", f"sent {brief(text, 80)}, which is not a message "
                                         f"(a JSON object with a type)", sent=sent)
        self.last_reply = sent
        return message

    def _expect(self, kind: str, wait: float, hint: str = "") -> dict[str, Any]:
        """Wait `wait` seconds of wall time for a reply of one type, not counting the time
        the referee was not running (docs/rules.md, Time); an error reply is a crash."""
        assert self.process is not None
        self.process.freezer.thaw()  # the message is written: now it may answer
        PULSE.start()  # a start or an end may come before any game's (a dry run's hello)
        started = time.monotonic()
        until = started + wait
        line = None
        while line is None:
            left = until - time.monotonic()
            if left <= 0:
                until = started + wait + PULSE.lost(started, until - left)
                left = until - time.monotonic()
            if left <= 0:
                said = f": {hint}" if hint else ""
                if hint and not self.note():
                    said += " It wrote nothing to stderr."
                raise self._fail("timeout", f"no {kind!r} reply within {wait:.3g}s{said}")
            line = self._line(min(left, 0.1))
            if line is None:
                self._check_alive()
        self._freeze()
        message = self._parse(line)
        if message["type"] == "error":
            raise self._fail("crash", str(message.get("message"))[:300], kill=kind == "hello",
                             trace=message.get("trace"))
        if message["type"] != kind:
            raise self._fail("protocol", f"sent {an(brief(message['type']))} message where "
                                         f"{kind!r} was expected", sent=self.last_reply)
        return message

    def _off_turn(self, turn: int, limit: float, cpu: Mapping[int, float]) -> float:
        """CPU seconds the bot's processes used since it last answered, past the free
        allowance: billed to this decision, a fault at once if they exceed its limit."""
        mark = self._cpu_mark
        if mark is None:
            return 0.0
        used = 0.0
        for pid, t in cpu.items():  # a loop: a generator costs a decision more
            used += max(0.0, t - mark.get(pid, 0.0))
        billed = max(0.0, used - OFF_TURN_FREE)
        if billed > limit:
            raise self._fail("timeout", f"its processes used {used:.2f}s of CPU time between "
                                        f"its turns (helpers working while others played), "
                                        f"billed to turn {turn}, limit {limit:.3g}s")
        return billed

    def _reply_in_time(self, turn: int, limit: float, started: float,
                       cpu0: Mapping[int, float], waited0: float) -> bytes:
        """Wait for the reply line; stop the bot once its CPU time or its wall limit (not
        counting the machine's share: the time it queued for a CPU, or the referee was not
        running) runs out."""
        process = self.process
        assert process is not None
        off = self._off_turn(turn, limit, cpu0)
        wall = limit * self.wall_factor
        soft, backstop = started + limit, started + wall * BACKSTOP
        poll = min(0.05, max(0.005, limit / 20))
        looked, arrived = started, None  # the last look that found no answer
        ran: float | None = None
        while True:
            now = time.monotonic()
            if now < soft:
                wait = soft - now
            else:
                self._check_alive()  # its helpers may hold the pipe open after it died
                process.track()  # a wrapper's child or a helper may do the work
                used = process.cpu_since(cpu0) + off
                broken = process.over_limit()
                if broken is not None:
                    raise self._fail("crash", f"broke its {broken}")
                if used > limit:
                    raise self._fail("timeout", f"used {used:.3f}s of CPU time on turn {turn} "
                                                f"(the bot and its helpers together"
                                                f"{self._off_note(off)}), limit {limit:.3g}s")
                queued, lost = process.waited() - waited0, PULSE.lost(started, now)
                unbilled = max(queued, lost)
                late = now - unbilled >= started + wall
                if late or now - lost >= backstop:
                    line = self._line(0.0)  # waiting already: late only in our noticing it
                    if line is not None:
                        arrived = looked  # for all we know, just after the last look
                        break
                queuing = late and process.queued_uncounted()
                if late and not queuing:
                    self._wall_fault(turn, now - started, unbilled, used, limit)
                if now - lost >= backstop:
                    raise RefereeFailure(
                        f"bot {self.name or '?'} got no CPU for {now - started:.1f}s on turn "
                        f"{turn}: {_queue_note(queued, queuing)} (wall limit {wall:.3g}s); "
                        "the machine is overloaded")
                wait = min(poll, poll if queuing else started + wall + unbilled - now,
                           backstop + lost - now)
            ran = THREAD_QUEUE.waited()  # the referee's own wait for a CPU, before this look
            line = self._line(max(wait, 0.0))
            if line is not None:
                break
            looked = time.monotonic()
        try:
            self._account(turn, limit, started, cpu0, waited0, off, arrived, ran)
        finally:
            self._freeze()  # after its clock stops: freezing is never the bot's time
        return line

    def _freeze(self) -> None:
        """Freeze the bot's processes: it is asked for nothing until its next message."""
        if self.process is not None:
            self.process.freezer.freeze()

    @staticmethod
    def _off_note(off: float) -> str:
        return f", {off:.3f}s of it used between its turns" if off else ""

    def _wall_fault(self, turn: int, took: float, unbilled: float, used: float,
                    limit: float) -> NoReturn:
        wall = limit * self.wall_factor
        waiting = (f", {unbilled:.2f}s of it queued for a CPU or the referee not running, "
                   "not counted") if unbilled else ""
        raise self._fail("timeout", f"no answer to turn {turn} after {took:.2f}s of wall time"
                                    f"{waiting} ({used:.2f}s CPU), wall limit {wall:.3g}s "
                                    f"({limit:.3g}s × wall_factor {self.wall_factor:g})")

    def _account(self, turn: int, limit: float, started: float, cpu0: Mapping[int, float],
                 waited0: float, off: float, arrived: float | None = None,
                 ran: float | None = None) -> None:
        """Bill the answered decision: its wall time (to `arrived`, when the answer was found
        waiting) or, past its limit, the smaller of wall and CPU time, less the machine's
        share, plus what its processes used between turns; check its cgroup totals; note the
        machine's strain. The machine's share includes the time the referee's thread queued
        for a CPU during the look that read the answer (`ran`: its queue wait before it):
        the answer may have waited that long for the referee to be run. That look may have
        begun while the bot still thought, so this share only brings the decision back to its
        limit, never below it: it excuses a late read, it never saves the bot time."""
        process = self.process
        assert process is not None
        now = time.monotonic() if arrived is None else arrived
        self.last_wall = took = now - started
        unbilled = 0.0
        if took > limit:  # only then is the machine's share read
            reading = (0.0 if arrived is not None or ran is None
                       else min(THREAD_QUEUE.waited() - ran, took - limit))
            unbilled = max(process.waited() - waited0, PULSE.lost(started, now), reading, 0.0)
        counted = took - unbilled
        self.billed = (counted if counted <= limit else min(counted, process.cpu_since(cpu0))
                       ) + off
        self._cpu_mark = process.cpu_times()
        broken = process.over_limit()
        if broken is not None:
            raise self._fail("crash", f"broke its {broken}")
        wall = limit * self.wall_factor
        late = self.billed > limit or counted > wall
        strain.note(unbilled, limit, not late and took > wall)
        if late:
            raise self._fail("timeout", f"answered turn {turn} after {took:.2f}s of wall time "
                                        f"({self.billed:.2f}s billed{self._off_note(off)}), limit "
                                        f"{limit:.3g}s, wall limit {wall:.3g}s", kill=False)


def _queue_note(queued: float, queuing: bool) -> str:
    """A bot's wait for a CPU, in words: one queued with its wait not counted yet (since its
    request, where schedstat counts) is said to be queued, not to have queued 0 s."""
    if queuing:
        return "it is still queued behind other processes"
    return f"it queued {queued:.1f}s behind other processes"
