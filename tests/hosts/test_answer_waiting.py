"""An answer that is already waiting when the referee looks at the clock is the bot's answer
in time: however long the referee itself was kept from looking (a pause its pulse did not
see, a machine too loaded to run it), the lateness of its noticing is never the bot's."""

from __future__ import annotations

import select
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace

import pytest

from arena import play_game
from arena.bot import Limits
from arena.hosts import pipe_lines
from arena.hosts.pipe import CommandHost, ProcessLimits
from arena.hosts.pipe_lines import PipeLines
from arena.referee import GameRecord, Player

WIRE = Path(__file__).parent / "zoo" / "wire.py"


def test_an_answer_waiting_past_the_wall_limit_is_taken_not_faulted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asleep = [0.0]
    real_off_turn = PipeLines._off_turn

    def off_turn(self: PipeLines, turn: int, limit: float, cpu: Mapping[int, float]) -> float:
        """The referee, once the bot was asked, kept from running for 10 s (its clock jumps),
        with the bot's answer sent meanwhile and its pulse seeing nothing."""
        assert self.process is not None  # the bot answers: its reply is in the pipe
        assert select.select([self.process.output], [], [], 60)[0], "the bot never answered"
        asleep[0] += 10.0
        return real_off_turn(self, turn, limit, cpu)

    monkeypatch.setattr(PipeLines, "_off_turn", off_turn)
    monkeypatch.setattr(pipe_lines, "time", SimpleNamespace(
        monotonic=lambda: time.monotonic() + asleep[0]))
    monkeypatch.setattr(pipe_lines.PULSE, "lost", lambda started, now: 0.0)
    record = one_game(start_timeout=20.0)
    assert record.faults == ()


def test_an_answer_the_referee_queued_to_read_is_not_late(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bot answers at once; the referee's thread, woken by the answer, then queues 10 s
    for a CPU others hold before it reads it (its pulse queued as long, so no pause is seen):
    that wait is the machine's, never the bot's."""
    from arena.hosts import pipe, strain

    clock, queued, asking = [0.0], [0.0], [False]
    real_reply, real_line = PipeLines._reply_in_time, PipeLines._line

    def reply_in_time(self: PipeLines, *args: object) -> bytes:
        asking[0] = True
        try:
            return real_reply(self, *args)  # type: ignore[arg-type]
        finally:
            asking[0] = False

    def line(self: PipeLines, wait: float) -> bytes | None:
        found = real_line(self, wait)
        if found is not None and asking[0]:  # the answer came: the referee waits for a CPU
            clock[0] += 10.0
            queued[0] += 10.0
        return found

    monkeypatch.setattr(PipeLines, "_reply_in_time", reply_in_time)
    monkeypatch.setattr(PipeLines, "_line", line)
    starved = SimpleNamespace(monotonic=lambda: time.monotonic() + clock[0])
    monkeypatch.setattr(pipe_lines, "time", starved)  # the clock of every decision, its own
    monkeypatch.setattr(pipe, "time", starved)  # start included
    monkeypatch.setattr(pipe_lines.PULSE, "lost", lambda started, now: 0.0)
    monkeypatch.setattr(strain.THREAD_QUEUE, "waited", lambda: queued[0])
    record = one_game(start_timeout=60.0)
    assert record.faults == ()
    assert record.decisions > 2


def one_game(start_timeout: float) -> GameRecord:
    """A dice game of the wire bot (it answers at once) against `random`, its host shut after."""
    host = CommandHost([sys.executable, str(WIRE), "ok"],
                       ProcessLimits(start_timeout=start_timeout, isolation="none"))
    try:
        return play_game("dice", [Player("ok", host), "random"], seed=4, limits=Limits(0.5))
    finally:
        host.shutdown()
