"""What the machine costs a decision, which no bot is ever billed (docs/rules.md, Time): the
time a bot's thread queued for a CPU others held (its schedstat), and the time the referee
itself was not running at all (stopped by SIGSTOP, a suspended laptop, a VM moved, a
swapping machine), which its pulse measures; and the tally of the decisions the machine
strained, for the organiser (the run's last lines, load.json, the report's header).

Read on a decision's fast path: only the referee thread's own queue wait, once per look at a
process bot's answer (one /proc read); the rest a host asks only once a decision has run past
its limit.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Any

TICK = 0.05
"""How often the pulse beats (seconds)."""
SLACK = 0.05
"""How late a beat may be before the time is the machine's (a beat waits for the GIL and
for a CPU like any thread)."""
GAPS_KEPT = 256
"""Gaps remembered: a decision asks about the last few seconds only."""


class Pulse:
    """The referee's heartbeat: one daemon thread per process, asleep but for a beat every
    TICK. A beat later than TICK + SLACK, less the time the pulse itself queued for a CPU
    (a busy machine delays every thread: that is no pause), means this process was not
    running at all (stopped and continued, or its machine suspended or moved): that gap is
    the referee's lost time, never a bot's. Times are time.monotonic's (the clock
    perf_counter reads on Linux)."""

    def __init__(self) -> None:
        self.pid = -1
        self.state: tuple[tuple[float, float], tuple[tuple[float, float], ...]] = (
            (time.monotonic(), 0.0), ())
        """When it last beat and its own run-queue wait then (seconds), and the gaps up to
        that beat: one tuple, replaced whole, so a decision asking (a signal handler too)
        reads a beat and its gaps together, never a gap without its beat or the reverse."""
        self.schedstat = -1
        """The pulse thread's own /proc schedstat, read by any thread asking."""
        self.beating = False
        """Whether the pulse thread is alive: a stopped pulse's silence is no pause."""
        self._starting = threading.Lock()

    def start(self) -> None:
        """Beat in this process, from now on (once; again in a forked child, where the
        parent's thread is gone, or after the thread ended)."""
        pid = os.getpid()
        if self.pid == pid and self.beating:
            return
        with self._starting:
            if self.pid != pid or not self.beating:
                ready = threading.Event()
                threading.Thread(target=self._beat, args=(ready,), name="arena-pulse",
                                 daemon=True).start()
                ready.wait()
                self.pid = pid

    def _beat(self, ready: threading.Event) -> None:
        try:
            self.schedstat = os.open("/proc/thread-self/schedstat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self.schedstat = -1
        self.state = ((time.monotonic(), _queued(self.schedstat)), self.state[1])
        self.beating = True
        ready.set()
        try:
            self._beats()
        finally:  # whatever ended it: from now on its silence is no pause, and start() again
            self.beating = False

    def _beats(self) -> None:
        """Beat every TICK, noting each gap a late beat shows."""
        while True:
            time.sleep(TICK)
            now, queued = time.monotonic(), _queued(self.schedstat)
            beat, gaps = self.state
            missed = _missed(beat, now, queued)
            if missed > SLACK:
                gaps = (*gaps[1 - GAPS_KEPT:], (now - missed, now))
            self.state = ((now, queued), gaps)

    def lost(self, since: float, now: float) -> float:
        """Seconds of [since, now] the referee's process was not running, the gap it is in
        now included (its pulse may not have beaten yet since it was continued, or may beat
        while this reads its clock: the beat and gaps read are the ones of one moment)."""
        beat, gaps = self.state
        missed = _missed(beat, now, _queued(self.schedstat))
        if missed > SLACK and self.beating:  # a stopped pulse would make all time lost
            gaps += ((now - missed, now),)
        return sum(max(0.0, min(end, now) - max(start, since)) for start, end in gaps)


def _missed(beat: tuple[float, float], now: float, queued: float) -> float:
    """Seconds since the `beat` (its time, and the pulse's run-queue wait then) that the
    pulse neither slept nor queued for a CPU."""
    last, queued_then = beat
    return now - last - TICK - (queued - queued_then)


def _queued(schedstat: int) -> float:
    """The run-queue wait (seconds) an open /proc schedstat file gives; 0 if unknown."""
    try:
        return int(os.pread(schedstat, 128, 0).split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


PULSE = Pulse()


class RunQueue:
    """A thread's own run-queue wait, the second field of /proc/thread-self/schedstat (in
    ns): the time it was runnable but others held the CPUs. One file per thread, kept open."""

    def __init__(self) -> None:
        self._local = threading.local()

    def waited(self) -> float:
        """Seconds the calling thread has waited for a CPU since it started (0 if unknown)."""
        held: _Held | None = getattr(self._local, "held", None)
        if held is None or held.pid != os.getpid():
            held = self._local.held = _Held()
        return _queued(held.fd)


class _Held:
    """One thread's schedstat file, closed with the thread's local data."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        try:
            self.fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self.fd = -1
        self._close = os.close  # still there when the interpreter ends and drops modules

    def __del__(self) -> None:
        if self.fd >= 0:
            try:  # noqa: SIM105 - at the interpreter's end, contextlib may be gone already
                self._close(self.fd)
            except OSError:
                pass


THREAD_QUEUE = RunQueue()


@dataclass(frozen=True, slots=True)
class Strain:
    """What the machine cost some decisions, none of it billed to a bot: `waited`, decisions
    that waited longer than their limit for a CPU or while the referee was not running
    (the machine too loaded for the limit to mean much), the longest such wait `most`
    (seconds), and `extended`, decisions let run past their wall limit because of it."""

    waited: int = 0
    most: float = 0.0
    extended: int = 0

    def __add__(self, other: Strain) -> Strain:
        return Strain(self.waited + other.waited, max(self.most, other.most),
                      self.extended + other.extended)

    def to_json(self) -> dict[str, Any]:
        """As load.json keeps it."""
        return {"waited": self.waited, "most": round(self.most, 3), "extended": self.extended}

    @classmethod
    def from_json(cls, data: object) -> Strain | None:
        """Read back from load.json; None when it is not one."""
        if not isinstance(data, dict):
            return None
        waited, most, extended = data.get("waited"), data.get("most"), data.get("extended")
        if not (_count(waited) and _count(extended) and isinstance(most, int | float)
                and not isinstance(most, bool) and 0 <= most < float("inf")):
            return None
        assert isinstance(waited, int) and isinstance(extended, int)
        return cls(waited, float(most), extended)

    def sentence(self) -> str:
        """The organiser's warning, in one line."""
        said = (f"the machine was too loaded for the time limits to mean much: {self.waited} "
                f"decision{'' if self.waited == 1 else 's'} waited longer than their limit for "
                f"a CPU or while the referee was not running (the longest {self.most:.2f}s)")
        if not self.waited:
            said = (f"the machine was loaded or paused: {self.extended} decision"
                    f"{'' if self.extended == 1 else 's'} waited for a CPU or while the referee "
                    f"was not running (the longest {self.most:.2f}s)")
        return (f"{said}; {self.extended} let run past their wall limit for it; no bot was "
                "billed for that time, but the results may say more about the machine than "
                "the bots (docs/rules.md, Time)")


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


_NOTING = threading.Lock()
_NOTHING = Strain()
_noted = _NOTHING
"""This process's strained decisions since the last `take` (a sum: a process that never
takes, such as `arena compare`, holds no more for it)."""


def note(unbilled: float, limit: float, extended: bool) -> None:
    """Count a decision the machine strained: one that waited (`unbilled`: queued for a
    CPU, or while the referee was not running) longer than its `limit`, or one let run past
    its wall limit for that time; any other decision is not counted."""
    global _noted
    if extended or unbilled > limit:
        with _NOTING:
            _noted += Strain(int(unbilled > limit), unbilled, int(extended))


def take() -> Strain | None:
    """What the machine cost this process's decisions since the last call (None: nothing),
    forgotten here: each decision is told once, whichever game of a worker asks."""
    global _noted
    if _noted is _NOTHING:  # the common case, without the lock
        return None
    with _NOTING:
        noted, _noted = _noted, _NOTHING
    return None if noted is _NOTHING else noted
