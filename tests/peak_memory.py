"""Shared by the memory tests: the peak of what a piece of work allocates."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable


def peak(work: Callable[[], object]) -> int:
    """Bytes at the peak of Python allocations while `work` runs (tracemalloc)."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
