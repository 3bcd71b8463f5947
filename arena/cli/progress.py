"""Progress on stderr for the long commands (`arena run`, `arena report`, `arena compare`),
and how a run's tally is shown (`watch`: games, faults, the leader).

Two forms, one interface (`Meter.show(done, total, postfix)` and `close()`): a tqdm bar when
stderr is a terminal, else a plain line every `share` of the total or every `seconds`,
whichever comes first (nohup, CI, a pipe: a log that grows at a readable pace). Lines are
`arena: <what>: 120 of 1,200 games (10%), 35.2 games/s, ETA 0:00:31<postfix>`.

The clock is this module's `clock` (tests replace it). Nothing here plays games or reads
results: the commands say what to show.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import click

if TYPE_CHECKING:
    from arena.tournament.run.progress import Tally

__all__ = ["EXIT_INTERRUPTED", "LINE_SECONDS", "LINE_SHARE", "Bar", "Lines", "Meter", "eta",
           "meter", "standing", "watch"]

EXIT_INTERRUPTED = 130
"""The exit status of a run stopped by Ctrl-C or SIGTERM, every finished game kept."""

LINE_SHARE = 0.1
"""A progress line at least every tenth of the work..."""
LINE_SECONDS = 60.0
"""...and at least every minute, whichever comes first..."""
LINE_GAP = 5.0
"""...but a tenth's line waits until 5 s after the last line: a run of a few seconds says
its end, not ten lines (a log is read by people)."""

clock: Callable[[], float] = time.monotonic


class Meter(Protocol):
    """Where a command tells how far it is."""

    def show(self, done: int, total: int, postfix: str = "") -> None: ...

    def close(self) -> None: ...


def meter(what: str, unit: str, *, quiet: bool = False, terminal: bool | None = None,
          label: str | None = None, line: Callable[[int, int, str], str] | None = None,
          bar_format: str | None = None) -> Meter:
    """A bar named `what` on a terminal (tqdm's `bar_format`, if given), else lines headed
    `label` (default `what`), nothing when quiet. `line`, if given, words a line itself
    from (done, total, postfix)."""
    if quiet:
        return _Silent()
    if on_terminal() if terminal is None else terminal:
        return Bar(what, unit, bar_format)
    return Lines(label or what, unit, line=line)


def on_terminal() -> bool:
    """Whether stderr is a terminal, where a bar redraws itself (tests replace it)."""
    return sys.stderr.isatty()


class _Silent:
    def show(self, done: int, total: int, postfix: str = "") -> None:
        pass

    def close(self) -> None:
        pass


class Bar:
    """A tqdm bar on stderr; the postfix (faults, leader, LLRs) beside it."""

    def __init__(self, what: str, unit: str, bar_format: str | None = None) -> None:
        self.what, self.unit, self.bar_format = what, unit, bar_format
        self.bar: Any = None

    def show(self, done: int, total: int, postfix: str = "") -> None:
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=done, desc=self.what, unit=self.unit,
                            file=sys.stderr, dynamic_ncols=True, smoothing=0.05,
                            bar_format=self.bar_format)
        if total != self.bar.total:
            self.bar.total = total
        if postfix:
            self.bar.set_postfix_str(postfix, refresh=False)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class Lines:
    """A line on stderr every `share` of the total or `seconds`, whichever comes first, and
    one when the work is done."""

    def __init__(self, what: str, unit: str, share: float = LINE_SHARE,
                 seconds: float = LINE_SECONDS,
                 line: Callable[[int, int, str], str] | None = None,
                 gap: float | None = None) -> None:
        self.what, self.unit, self.share, self.seconds = what, unit, share, seconds
        self.gap = LINE_GAP if gap is None else gap
        self.line = line
        self.start: tuple[float, int] | None = None
        self.next_count = 0
        self.next_time = 0.0
        self.quiet_until = 0.0
        self.last = -1

    def show(self, done: int, total: int, postfix: str = "") -> None:
        now = clock()
        if self.start is None:  # the first call says where it starts, and prints nothing
            self.start = (now, done)
            self._plan(now, done, total)
            return
        finished = done >= total
        counted = done >= self.next_count and now >= self.quiet_until
        if (finished and self.last >= total) or not (
                finished or counted or now >= self.next_time):
            return  # not due, or the end already said
        self.last = done
        text = self.line(done, total, postfix) if self.line else self._words(now, done, total,
                                                                             postfix)
        click.echo(f"arena: {self.what}: {text}", err=True)
        self._plan(now, done, total)

    def _plan(self, now: float, done: int, total: int) -> None:
        step = max(1, math.ceil(total * self.share))
        self.next_count = (done // step + 1) * step
        self.next_time = now + self.seconds
        self.quiet_until = now + self.gap

    def _words(self, now: float, done: int, total: int, postfix: str) -> str:
        assert self.start is not None
        began, first = self.start
        rate = (done - first) / (now - began) if now > began else 0.0
        share = f" ({done / total:.{0 if done * 10 >= total else 1}%})" if total else ""
        units = f"{self.unit}s"
        return (f"{done:,} of {total:,} {units}{share}, {rate_text(rate)} {units}/s, "
                f"ETA {eta(total - done, rate)}" + (f", {postfix}" if postfix else ""))

    def close(self) -> None:
        pass


def rate_text(rate: float) -> str:
    """A rate with three significant figures, no more: 0.412, 35.2, 1,234."""
    if rate >= 100:
        return f"{rate:,.0f}"
    return f"{rate:.3g}" if rate >= 1 else f"{rate:.3f}"


def eta(left: int, rate: float) -> str:
    """The time the rest takes at this rate, as H:MM:SS (`?` before any rate)."""
    if left <= 0:
        return "0:00:00"
    if rate <= 0:
        return "?"
    seconds = round(left / rate)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def watch(shown: Meter) -> Callable[[Tally], None]:
    """How the run's tally is shown: games of planned, then faults and the leader."""
    return lambda tally: shown.show(tally.done, tally.planned, standing(tally))


def standing(tally: Tally) -> str:
    """Faults so far and who leads by wins, in a few words: `2 faults, leader ana (5 wins)`."""
    faults = {0: "no faults", 1: "1 fault"}.get(tally.faults, f"{tally.faults:,} faults")
    names, wins = tally.leaders()
    if not names:
        return faults
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    title = "leader" if len(names) == 1 else "leaders"
    return f"{faults}, {title} {shown} ({wins:,} win{'s' * (wins != 1)})"
