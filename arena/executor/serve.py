"""What runs inside a worker process: ignore Ctrl-C, watch the parent, set the job up,
play the specs that come down the pipe in order, send each result back, shut down; and the
shared slot where the worker marks whose call it is in (`mark`), so a death can be blamed.

This module plays no game itself and never starts a process (arena.executor.local does).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.executor.local import Job

__all__ = ["ExecutorError", "mark", "marked", "serve"]

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


def serve(conn: Any, job: Job, slot: Any) -> None:
    """A worker's life: ignore Ctrl-C, watch the parent, set up, play what comes, shut down.
    A setup that fails is reported once (a worker respawned on it would fail for ever)."""
    global _SLOT
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    _SLOT = slot
    try:
        state = job.start()
    except Exception as exc:  # noqa: BLE001 - any reason stops the map, told to the parent
        _reply(conn, (-1, -1, False, _cannot_start(exc)))
        return
    try:
        while (message := _next(conn)) is not None:
            generation, batch = message
            for index, spec in batch:
                try:
                    reply = (generation, index, True, job.work(state, spec))
                except Exception as exc:  # noqa: BLE001 - raised again in the parent
                    reply = (generation, index, False, exc)
                mark(-1)
                _reply(conn, reply)
    finally:
        job.stop(state)


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


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_WATCH_SECONDS)
    os._exit(1)
