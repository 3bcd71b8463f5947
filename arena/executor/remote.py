"""What runs on a Dask worker: a batch of specs, played by an executor of this module's own.

Each Dask worker thread keeps, per map (its `token`), one executor with one worker process
of its own (`Executor(apart=True)`): the job's state (a tournament's bot processes) lives
there across batches, and a bot that kills that process costs a replay, as on one machine,
never the Dask worker. A worker that cannot start the job (its sandbox is weaker than the
run asks, a bot file or module is missing, its arena is not the run's) answers `Refused`,
and the run sends its batches elsewhere. `release(token)` stops a map's executors at the
run's end; one idle for IDLE_SECONDS is stopped anyway (a run whose main process died).

This module never talks to the scheduler and never decides what a result means.
"""

from __future__ import annotations

import copy
import hashlib
import multiprocessing
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.executor.local import Death, Executor, Job

__all__ = [
    "IDLE_SECONDS", "Batch", "Refused", "fingerprint", "foreign_code", "play_batch", "release",
    "worker_name",
]

IDLE_SECONDS = 300.0
"""A map's executor unused this long on a worker is stopped (its run is gone)."""


class Refused(Exception):
    """This worker cannot play the map's specs; the message says why, in one line."""

    def __init__(self, worker: str, reason: str, address: str = "") -> None:
        super().__init__(worker, reason, address)
        self.worker, self.reason, self.address = worker, reason, address

    @classmethod
    def here(cls, reason: str) -> Refused:
        """This Dask worker's refusal: its name for the organiser, its address for the run."""
        return cls(worker_name(), reason, _dask_address())

    def __str__(self) -> str:
        return f"{self.worker} refuses: {self.reason}"


@dataclass(frozen=True, slots=True)
class Batch:
    """A played batch: the results in spec order, the deaths its executor told of, and
    the seconds it took on the worker (to size the next batch)."""

    results: list[Any]
    told: list[str]
    seconds: float


@dataclass
class _State:
    """One thread's executor for one map, and what it has told already."""

    executor: Executor
    lost: Any
    used: float = field(default_factory=time.monotonic)
    told: int = 0
    busy: bool = False
    closing: bool = False
    aborted: bool = False
    """The run was stopped: its batch ends after the game being played."""

    def news(self) -> list[str]:
        """The death lines the policy wrote since the last batch."""
        lines = list(getattr(self.lost, "deaths", ()))
        new, self.told = lines[self.told:], len(lines)
        return new


_STATES: dict[tuple[str, int], _State] = {}
_LOCK = threading.Lock()
_REAPER: list[threading.Thread] = []


def play_batch(token: str, job: Job, lost: Callable[[Death], Any] | None, run_print: str,
               specs: Sequence[Any]) -> Batch:
    """Play `specs` on this thread's executor of the map `token`, in order."""
    state = _state(token, job, lost, run_print)
    start = time.perf_counter()
    try:
        results = []
        for result in state.executor.map(specs):
            results.append(result)
            if state.aborted:  # the run was stopped: nobody reads the rest
                break
    except Exception as exc:
        if state.executor.cannot_start:
            _drop(token)
            raise Refused.here(" ".join(str(exc).split())) from None
        raise
    finally:
        _done(token, state)
    return Batch(results, state.news(), time.perf_counter() - start)


def _state(token: str, job: Job, lost: Any, run_print: str) -> _State:
    key = (token, threading.get_ident())
    with _LOCK:
        state = _STATES.get(key)
        if state is not None:
            state.busy, state.used = True, time.monotonic()
            return state
    foreign = foreign_code(run_print)
    if foreign is not None:
        raise Refused.here(foreign)
    _may_have_children()
    lost = copy.deepcopy(lost)  # each thread counts its own deaths
    state = _State(Executor(job, 1, lost, apart=True), lost, busy=True)
    with _LOCK:
        _STATES[key] = state
        _start_reaper()
    return state


def _done(token: str, state: _State) -> None:
    with _LOCK:
        state.busy, state.used = False, time.monotonic()
        closing = state.closing
    if closing:
        _drop(token)


def release(token: str, abort: bool = False) -> int:
    """Stop the map's executors on this worker (a busy one when its batch ends, or, with
    `abort`, after the game it is playing); with `abort`, without waiting for their
    workers' shutdown (a run that was stopped)."""
    with _LOCK:
        mine = [(key, s) for key, s in _STATES.items() if key[0] == token]
        for key, state in mine:
            state.closing, state.aborted = True, abort
            if not state.busy:
                del _STATES[key]
    for _, state in mine:
        if not state.busy:
            state.executor.close(abort=abort)
    return len(mine)


def _drop(token: str) -> None:
    key = (token, threading.get_ident())
    with _LOCK:
        state = _STATES.pop(key, None)
    if state is not None:
        state.executor.close(abort=True)


def _start_reaper() -> None:
    """Once per process: a thread that stops the executors of maps gone idle."""
    if not _REAPER:
        thread = threading.Thread(target=_reap, name="arena-reaper", daemon=True)
        _REAPER.append(thread)
        thread.start()


def _reap() -> None:
    while True:
        time.sleep(min(IDLE_SECONDS / 4, 30.0))
        now = time.monotonic()
        with _LOCK:
            idle = [(k, s) for k, s in _STATES.items()
                    if not s.busy and now - s.used > IDLE_SECONDS]
            for key, _ in idle:
                del _STATES[key]
        for _, state in idle:
            state.executor.close(abort=True)


def _may_have_children() -> None:
    """Let this Dask worker start arena's worker process. Dask runs its workers as daemon
    processes (`distributed.worker.daemon`), which multiprocessing forbids to have children;
    the flag only makes multiprocessing terminate such children at exit, and arena's worker
    exits by itself when its parent dies (arena.executor.serve watches it)."""
    process = multiprocessing.current_process()
    if process.daemon:
        process.daemon = False


def foreign_code(run_print: str) -> str | None:
    """Why this machine's arena is not the run's (its `fingerprint` differs), or None."""
    mine = fingerprint()
    if mine == run_print:
        return None
    return (f"its arena is not the run's (code {mine[:12]}, the run's {run_print[:12]}): "
            "install the same arena on every machine")


def worker_name() -> str:
    """This Dask worker's address and host name, for the organiser's messages."""
    import socket

    address = _dask_address()
    return f"worker {address} ({socket.gethostname()})" if address else (
        f"worker on {socket.gethostname()}")


def _dask_address() -> str:
    """This Dask worker's address ('' outside one)."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return ""


_PRINT: list[str] = []


def fingerprint() -> str:
    """A digest of the arena code (and built-in bots) this process runs: every machine of a
    run must play by the same rules and referee, or the same seed would give other bytes."""
    if not _PRINT:
        import importlib

        digest = hashlib.sha256()
        for package in map(importlib.import_module, ("arena", "arena_bots")):
            root = Path(package.__file__ or "").parent
            for path in sorted(root.rglob("*")):
                if path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
                    digest.update(str(path.relative_to(root)).encode() + b"\0")
                    digest.update(path.read_bytes() + b"\0")
        _PRINT.append(digest.hexdigest())
    return _PRINT[0]
