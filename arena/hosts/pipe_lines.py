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
from typing import Any

from arena.bot import BotContext
from arena.hosts.inline import SENT_CHARS, BotFault, shown
from arena.hosts.processes import (
    BotProcess,
    InputStuck,
    LineTooLong,
    OutputClosed,
    ProcessLimits,
)
from arena.hosts.wire import SeatLog

STDERR_LINES = 3
"""How many of the bot's last stderr lines a fault message ends with."""


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
    wall_factor: float
    last_reply: str | None
    last_wall: float
    billed: float

    _last_stderr = ""
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
              sent: str | None = None) -> BotFault:
        """Record a fault of this game (the process is replaced before the next game); its
        message ends with the bot's last stderr lines, for the bot's author."""
        fault = BotFault(kind, message + self.note(), sent)
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
        """Wait (wall clock) for a reply of one type; an error reply is a crash."""
        until = time.monotonic() + wait
        line = None
        while line is None:
            left = until - time.monotonic()
            if left <= 0:
                said = f": {hint}" if hint else ""
                if hint and not self.note():
                    said += " It wrote nothing to stderr."
                raise self._fail("timeout", f"no {kind!r} reply within {wait:.3g}s{said}")
            line = self._line(min(left, 0.1))
            if line is None:
                self._check_alive()
        message = self._parse(line)
        if message["type"] == "error":
            raise self._fail("crash", str(message.get("message"))[:300], kill=kind == "hello")
        if message["type"] != kind:
            raise self._fail("protocol", f"sent {an(brief(message['type']))} message where "
                                         f"{kind!r} was expected", sent=self.last_reply)
        return message

    def _reply_in_time(self, turn: int, limit: float, started: float,
                       cpu0: Mapping[int, float]) -> bytes:
        """Wait for the reply line; stop the bot once its CPU time or its wall limit runs out."""
        process = self.process
        assert process is not None
        wall = limit * self.wall_factor
        soft, hard = started + limit, started + wall
        poll = min(0.05, max(0.005, limit / 20))
        while True:
            now = time.monotonic()
            if now < soft:
                wait = soft - now
            else:
                self._check_alive()  # its helpers may hold the pipe open after it died
                process.track()  # a wrapper's child or a helper may do the work
                used = process.cpu_since(cpu0)
                if used > limit:
                    raise self._fail("timeout", f"used {used:.3f}s of CPU time on turn {turn}, "
                                                f"limit {limit:.3g}s")
                if now >= hard:
                    raise self._fail("timeout", f"no answer to turn {turn} after "
                                                f"{now - started:.2f}s of wall time ({used:.2f}s "
                                                f"CPU), wall limit {wall:.3g}s ({limit:.3g}s × "
                                                f"wall_factor {self.wall_factor:g})")
                wait = min(poll, hard - now)
            line = self._line(wait)
            if line is not None:
                break
        self.last_wall = took = time.monotonic() - started
        self.billed = took if took <= limit else min(took, process.cpu_since(cpu0))
        if self.billed > limit or took > wall:
            raise self._fail("timeout", f"answered turn {turn} after {took:.2f}s of wall time "
                                        f"({self.billed:.2f}s CPU), limit {limit:.3g}s, wall "
                                        f"limit {wall:.3g}s", kill=False)
        return line
