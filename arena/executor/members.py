"""A Dask cluster's workers as a run sees them: who joined and who left is told, one line
each, and which of them may be given batches once some have refused (arena.executor.cluster).
Asked of the scheduler itself, at most once per POLL_SECONDS."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["POLL_SECONDS", "Members", "workers_of"]

POLL_SECONDS = 1.0
"""How often the workers are looked at (joined, left) while a result is awaited."""


def workers_of(client: Any) -> dict[str, dict[str, Any]]:
    """The scheduler's own list of workers by address, asked now: the client's cached
    `scheduler_info()` may be cut short by its periodic refresh (a worker seen to leave that
    never left)."""
    identity: dict[str, Any] = client.sync(client.scheduler.identity, n_workers=-1)
    return dict(identity["workers"])


class Members:
    """The cluster's workers as last seen: who joined and left is told, one line each."""

    def __init__(self, client: Any, told: Callable[[str], None]) -> None:
        self.client, self.told = client, told
        self.workers: dict[str, dict[str, Any]] = {}
        self.seen = 0.0
        self.look(first=True)

    def look(self, first: bool = False) -> None:
        """Read the workers again (at most once per POLL_SECONDS) and tell what changed."""
        now = time.monotonic()
        if not first and now - self.seen < POLL_SECONDS:
            return
        self.seen = now
        with contextlib.suppress(Exception):  # a scheduler gone is noticed on the futures
            workers = workers_of(self.client)
            if first:
                threads = sum(int(w.get("nthreads", 1)) for w in workers.values())
                self.told(f"cluster: {len(workers)} workers, {threads} threads at "
                          f"{self.client.scheduler.address}")
            else:
                for address in workers.keys() - self.workers.keys():
                    self.told(f"cluster: worker {address} joined ({_host(workers[address])})")
                for address in self.workers.keys() - workers.keys():
                    self.told(f"cluster: worker {address} left; its games are played again "
                              "elsewhere")
            self.workers = workers

    def allowed(self, refused: Mapping[str, str]) -> list[str] | None:
        """The workers a batch may go to (None: any, none has refused); `refused` is keyed by
        the refusing workers' addresses."""
        if not refused:
            return None
        self.look()
        return [address for address in self.workers if address not in refused]

    def threads(self, refused: Mapping[str, str]) -> int:
        """How many worker threads may play batches."""
        allowed = self.allowed(refused)
        return sum(int(w.get("nthreads", 1)) for address, w in self.workers.items()
                   if allowed is None or address in allowed)


def _host(worker: dict[str, Any]) -> str:
    return f"{worker.get('host', '?')}, {worker.get('nthreads', 1)} threads"
