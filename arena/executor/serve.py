"""What runs inside a worker process: ignore Ctrl-C, watch the parent, set the job up,
play the specs that come down the pipe, send each result back, shut down; and the shared
slot where the worker marks whose call it is in (`mark`), so a death can be blamed.

A job whose state allows it plays several specs at once, one per lane (a thread of this
process): while one lane waits on a bot's pipe (the GIL released), another plays. A lane
takes the oldest spec not yet taken, so the specs in flight are always the oldest held.
Marks need one spec at a time: a job that marks its calls asks for one lane.

This module plays no game itself and never starts a process (arena.executor.local does).
"""

from __future__ import annotations

import os
import queue
import select
import signal
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.executor.local import Job

__all__ = ["LANES", "ExecutorError", "lanes_wanted", "mark", "marked", "serve"]

LANES = 1
"""Specs a worker plays at once when its job allows it, unless ARENA_LANES says otherwise.
One: on an otherwise idle 2-core machine, 2 lanes on 2 workers played 0.79x the games per
second of one game at a time with sandboxed bots (the cores were already busy with the
workers and their bots); lanes pay only where a worker's core would sit idle while its bots
think (benchmarks/overlap.py)."""
_WATCH_SECONDS = 0.25
_SLOT: Any = None
"""This worker's shared slot (where, count), or None in the main process."""


class ExecutorError(RuntimeError):
    """A map that cannot go on: a worker that could not start, or died too often."""


def mark(where: int, count: int = 0) -> None:
    """Note in this worker's slot where it is (-1: nowhere that can be blamed)."""
    slot = _SLOT
    if slot is not None:
        slot[0] = where
        slot[1] = count


def marked() -> bool:
    """Whether marks are kept: only in a worker process, where a death can be survived."""
    return _SLOT is not None


def lanes_wanted() -> int:
    """LANES, or ARENA_LANES from the environment (1: one spec at a time, as before lanes)."""
    text = os.environ.get("ARENA_LANES", "").strip()
    if not text:
        return LANES
    if not text.isdigit() or int(text) < 1:
        raise ExecutorError(f"ARENA_LANES must be a whole number of lanes from 1, not {text!r}")
    return int(text)


def serve(conn: Any, job: Job, slot: Any, main: int) -> None:
    """A worker's life: ignore Ctrl-C, watch the main process, set up, play what comes, shut
    down. A setup that fails is reported once (a worker respawned on it would fail for ever)."""
    global _SLOT
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    outlive_not(main)
    _SLOT = slot
    try:
        state = job.start()
        lanes = job.lanes_of(state)
    except Exception as exc:  # noqa: BLE001 - any reason stops the map, told to the parent
        _reply(conn, (-1, -1, False, _cannot_start(exc)))
        return
    slot[2] = lanes  # the parent counts a death against the specs in flight
    try:
        if lanes == 1:
            _in_order(conn, job, state)
        else:
            _in_lanes(conn, job, state, lanes)
    finally:
        job.stop(state)


def _begin() -> None:
    """Count a spec begun in the slot (the parent counts a death only against those)."""
    _SLOT[3] += 1


def _in_order(conn: Any, job: Job, state: Any) -> None:
    """One spec after another, in the order sent."""
    while (message := _next(conn)) is not None:
        generation, batch = message
        for index, spec in batch:
            _begin()
            reply = _played(job, state, generation, index, spec)
            mark(-1)
            _reply(conn, reply)


def _in_lanes(conn: Any, job: Job, state: Any, lanes: int) -> None:
    """Specs played `lanes` at once, each taken by the first free lane in the order sent,
    each result sent back as it is ready (the parent puts them back in order)."""
    taken: queue.SimpleQueue[tuple[int, int, Any] | None] = queue.SimpleQueue()
    sending, beginning = threading.Lock(), threading.Lock()

    def lane() -> None:
        try:
            while (item := taken.get()) is not None:
                with beginning:  # one count a spec taken (the slot's += is no atomic step)
                    _begin()
                reply = _played(job, state, *item)
                with sending:
                    _reply(conn, reply)
        except BaseException:  # noqa: BLE001 - the worker dies, and its specs are replayed
            os._exit(70)

    threads = [threading.Thread(target=lane, daemon=True) for _ in range(lanes)]
    for thread in threads:
        thread.start()
    try:
        while (message := _next(conn)) is not None:
            generation, batch = message
            for index, spec in batch:
                taken.put((generation, index, spec))
    finally:
        for _ in threads:
            taken.put(None)
        for thread in threads:
            thread.join()


def _played(job: Job, state: Any, generation: int, index: int, spec: Any,
            ) -> tuple[int, int, bool, Any]:
    """The reply for one spec: its result, or the error it raised (raised in the parent)."""
    try:
        return (generation, index, True, job.work(state, spec))
    except Exception as exc:  # noqa: BLE001 - raised again in the parent
        return (generation, index, False, exc)


def _next(conn: Any) -> Any:
    try:
        return conn.recv()
    except (EOFError, OSError):
        return None  # the parent is gone


def _reply(conn: Any, reply: tuple[int, int, bool, Any]) -> None:
    try:
        conn.send(reply)
    except (EOFError, OSError):
        pass  # the parent is gone
    except Exception as exc:  # noqa: BLE001 - a result or error that cannot be pickled
        conn.send((reply[0], reply[1], False, ExecutorError(f"{type(exc).__name__}: {exc}")))


def _cannot_start(exc: Exception) -> Exception:
    """The setup's own error when it is one line a user can act on, else a generic one."""
    try:
        import pickle

        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 - an error that cannot cross the pipe
        return ExecutorError(f"a worker could not start: {type(exc).__name__}: {exc}")


def outlive_not(main: int) -> None:
    """End this process when the process `main` ends, however it ends (kill -9 included).
    A process forked by multiprocessing's fork server is not `main`'s child, and the pipes
    that would tell it may be held open by its siblings: a checker pool's processes outlived
    an organiser killed with SIGKILL, and kept its fork server alive with them."""
    threading.Thread(target=_exit_after, args=(main,), daemon=True).start()


def _exit_after(main: int) -> None:
    try:
        ended = os.pidfd_open(main)  # readable when `main` ends
    except ProcessLookupError:
        os._exit(1)
    except OSError:  # no pidfds here: while the process that forked this one lives
        parent = os.getppid()
        while os.getppid() == parent:
            time.sleep(_WATCH_SECONDS)
        os._exit(1)
    select.select([ended], [], [])
    os._exit(1)
