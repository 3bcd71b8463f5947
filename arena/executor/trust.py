"""A cluster worker's results are not taken on its word (arena.executor.cluster asks here).

Anyone whose machine joins the cluster runs its own copy of arena, and may patch it. So
each batch a worker returns is judged before any result of it is given to the caller:

- every result goes through `Judge.accept` (for a tournament, arena.tournament.run.trust: the
  replay capped, re-applied through the rules against the game's seed, and the result
  rebuilt from it, never taken from the worker), on CHECKERS processes of this machine,
  each batch as soon as it is back (`start`): checking a game costs about what playing it
  inline does, so one process would be the first limit of a cluster;
- the specs `Judge.sampled` chooses (a fraction drawn from a secret of this process, so no
  worker can tell which) are played again on another worker and the two compared with
  `Judge.same`; when they differ, a third play settles it (on a third worker, else on this
  machine), and the one that differs from it is caught.

A caught worker (`Caught`) is given no more specs and its batch is played again elsewhere
(arena.executor.cluster); two plays that differ from each other and from the third (a time
limit that fell differently on a loaded machine) catch nobody and keep the first play.
This module knows nothing of the game and never talks to the scheduler itself.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Protocol

from arena.executor.serve import outlive_not

__all__ = ["CHECKERS", "Caught", "Judge", "Untrusted", "Vetting"]

CHECKERS = os.cpu_count() or 1
"""Processes of this machine that check the results a cluster sends (no bot runs in them)."""


class Untrusted(Exception):
    """A result its worker could not have got by playing its spec honestly: why, one line."""


class Caught(Exception):
    """A worker that lied: its address and the lie, in one line."""

    def __init__(self, address: str, lie: str) -> None:
        super().__init__(address, lie)
        self.address, self.lie = address, lie


class Judge(Protocol):
    """What the caller knows of its results that no worker can forge."""

    def accept(self, spec: Any, result: Any) -> Any:
        """The result as the caller rebuilt it from what it can check; Untrusted if none."""

    def sampled(self, spec: Any) -> bool:
        """Whether this spec is played again on another worker and the two compared."""

    def same(self, one: Any, other: Any) -> bool:
        """Whether two accepted results are the same play of their spec."""


Elsewhere = Callable[[list[Any], set[str]], tuple[list[Any], str] | None]
"""Plays specs on a worker not in the set: the results and that worker's address, or None
when there is no such worker."""
Here = Callable[[list[Any]], list[Any]]
"""Plays specs on this machine (the organiser's)."""


class Vetting:
    """Judges each batch of one map before the caller sees a result of it."""

    def __init__(self, judge: Judge, elsewhere: Elsewhere, here: Here,
                 told: Callable[[str], None]) -> None:
        self.judge, self.elsewhere, self.here, self.told = judge, elsewhere, here, told
        self.checked = 0
        """Specs played again on another worker so far."""
        self.early: dict[str, tuple[Any, Future[list[Any]]]] = {}
        """Batches back and being checked, by their task's key: the batch, its check."""
        self.pool: ProcessPoolExecutor | None = None

    def start(self, key: str, specs: Sequence[Any], results: Sequence[Any], batch: Any) -> None:
        """Check a batch that came back (on this machine's checkers) before its turn."""
        if key not in self.early:
            if self.pool is None:
                self.pool = ProcessPoolExecutor(
                    CHECKERS, multiprocessing.get_context("forkserver"),
                    initializer=_install, initargs=(self.judge, os.getpid()))
            self.early[key] = (batch, self.pool.submit(_accept_all, list(specs), results))

    def batch(self, key: str, specs: Sequence[Any], results: Sequence[Any], worker: str
              ) -> list[Any]:  # fmt: skip
        """The batch's results as the judge rebuilt them; Caught when its worker lied."""
        self.start(key, specs, results, None)
        try:
            accepted = self.early.pop(key)[1].result()
        except Untrusted as exc:
            raise Caught(worker, str(exc)) from None
        chosen = [i for i, spec in enumerate(specs) if self.judge.sampled(spec)]
        if chosen:
            self._again([specs[i] for i in chosen], [accepted[i] for i in chosen], worker)
        return accepted

    def _accepted(self, specs: Sequence[Any], results: Sequence[Any], worker: str) -> list[Any]:
        try:
            return accept_all(self.judge, specs, results)
        except Untrusted as exc:
            raise Caught(worker, str(exc)) from None

    def close(self) -> None:
        """Stop this machine's checkers."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None
        self.early.clear()

    def _again(self, specs: list[Any], theirs: list[Any], worker: str) -> None:
        """The sampled specs played on another worker: a difference is settled by a third."""
        played = self.elsewhere(specs, {worker})
        if played is None:
            return  # a cluster of one worker: the rules' check alone
        results, checker = played
        self.checked += len(specs)
        mine = self._accepted(specs, results, checker)
        for spec, first, second in zip(specs, theirs, mine, strict=True):
            if not self.judge.same(first, second):
                self._settle(spec, (worker, first), (checker, second))

    def _settle(self, spec: Any, one: tuple[str, Any], other: tuple[str, Any]) -> None:
        """A third play of `spec`: whoever differs from it is caught."""
        third = self.elsewhere([spec], {one[0], other[0]})
        if third is not None:
            umpire = self._accepted([spec], *third)[0]
        else:
            umpire = self.judge.accept(spec, self.here([spec])[0])
        for (address, result), (_, theirs) in ((one, other), (other, one)):
            if not self.judge.same(result, umpire) and self.judge.same(theirs, umpire):
                raise Caught(address, f"{_name(spec)} was played otherwise on two other "
                                      "machines (a bot swapped, or the game changed)")
        self.told(f"cluster: {_name(spec)} was played differently on {one[0]}, {other[0]} "
                  "and a third machine (a time limit?): the first play is kept")


def accept_all(judge: Judge, specs: Sequence[Any], results: object) -> list[Any]:
    """Every result of a batch accepted by the judge; Untrusted for the first that is not."""
    if not isinstance(results, list) or len(results) != len(specs):
        raise Untrusted(f"it sent back {_count(results)} results for {len(specs)} games")
    return [judge.accept(spec, result) for spec, result in zip(specs, results, strict=True)]


_JUDGE: list[Judge] = []
"""A checker process's judge, installed once when the process starts."""


def _install(judge: Judge, organiser: int) -> None:
    """A checker's set-up: its judge, and its end with the organiser's process."""
    _JUDGE[:] = [judge]
    outlive_not(organiser)


def _accept_all(specs: Sequence[Any], results: object) -> list[Any]:
    return accept_all(_JUDGE[0], specs, results)


def _name(spec: Any) -> str:
    return f"game {getattr(spec, 'id', spec)}"


def _count(results: object) -> str:
    return str(len(results)) if isinstance(results, list | tuple) else "no list of"
