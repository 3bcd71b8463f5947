"""How a run is stopped from outside: SIGTERM (a service manager, `kill`) is taken as Ctrl-C
while games are played, so both stop the same clean way and keep every finished game."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


@contextlib.contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """Treat SIGTERM like Ctrl-C within the block (only the main thread can take signals)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
