"""The season's heartbeat and status line, which the contest page reads (Season.heartbeat,
Season.status): after each turn, when the process starts, between two uploads' checks, and
while games play, from the runner's `progress` (a Pulse), so a long batch or a class's demo
of hundreds of games is never taken for a stopped season.

It guarantees that a beat that cannot be written (a busy database) never stops the games:
it is tried again at the next one.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.db import DatabaseError
from django.utils import timezone

from arena.site.contest.models import Season
from arena.tournament.run import safe_read
from arena.tournament.run.progress import Tally

__all__ = ["PULSE", "Pulse", "beat_now", "beat_while"]

PULSE = 3.0
"""Seconds at least between two heartbeats (and indexings) while games play."""


def beat_now(status: str) -> None:
    """The heartbeat, now, and the status line the pages show."""
    Season.current()
    Season.objects.filter(pk=1).update(heartbeat=timezone.now(), status=status[:200])


def beat_while(status: str) -> None:
    """A beat in the middle of work: one that cannot be written is left for the next."""
    try:
        beat_now(status)
    except DatabaseError:
        return


class Pulse:
    """The season's heartbeat while games play: told the runner's tally before the first
    game and after each (run_tournament's and run_ladder's `progress`), at most every
    `every` seconds it writes the heartbeat and a status line (`playing: 312 of 720 games of
    the demo class`) and indexes what landed so far (`index`: games and events indexed). A
    beat that fails (a busy database) is tried at the next one: it never stops the games."""

    def __init__(self, what: str, index: Callable[[], tuple[int, int]] | None = None,
                 every: float = PULSE) -> None:
        self.what, self.index, self.every = what, index, every
        self.due = 0.0
        self.indexed = self.events = 0

    def __call__(self, tally: Tally) -> None:
        now = time.monotonic()
        if now < self.due:
            return
        self.due = now + self.every
        if self.index is not None:
            try:
                games, events = self.index()
            except (DatabaseError, OSError, safe_read.Unreadable):
                games = events = 0  # indexed at the next beat, or after the run
            self.indexed, self.events = self.indexed + games, self.events + events
        beat_while(f"playing: {tally.done} of {tally.planned} games of {self.what}")
