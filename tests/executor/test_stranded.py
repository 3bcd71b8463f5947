"""A batch restricted to workers that all left the cluster (retired gracefully: no death for
Dask to report) is taken back and sent to the workers there now, never waited on for ever."""

from __future__ import annotations

import collections
import threading
from typing import Any

import pytest

from arena.executor import cluster
from arena.executor.cluster import ClusterMap


class _Members:
    def __init__(self, *workers: str) -> None:
        self.workers: dict[str, dict[str, Any]] = {w: {} for w in workers}

    def look(self) -> None:
        """The cluster as it is: nothing changes here."""


class _Pending:
    key = "play_batch-1"

    def __init__(self) -> None:
        self.cancelled = False

    def done(self) -> bool:
        return self.cancelled

    def cancel(self) -> None:
        self.cancelled = True


def _map(members: _Members, monkeypatch: pytest.MonkeyPatch) -> ClusterMap:
    monkeypatch.setattr(cluster, "POLL_SECONDS", 0.01)
    ran = ClusterMap.__new__(ClusterMap)
    ran.members, ran.specs, ran.vetting = members, None, None  # type: ignore[assignment]
    ran.finished, ran.pending, ran.allowed_on = threading.Event(), collections.deque(), {}
    return ran


def test_a_batch_whose_workers_all_retired_is_taken_back(monkeypatch: pytest.MonkeyPatch) -> None:
    ran = _map(_Members("tcp://left:1"), monkeypatch)
    batch = _Pending()
    ran.allowed_on[batch.key] = frozenset({"tcp://retired:1"})
    with pytest.raises(cluster._Stranded):
        ran._wait(batch)
    assert batch.cancelled


def test_a_batch_with_a_worker_still_there_is_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    ran = _map(_Members("tcp://left:1"), monkeypatch)
    batch = _Pending()
    ran.allowed_on[batch.key] = frozenset({"tcp://retired:1", "tcp://left:1"})
    looks = [0]

    def meanwhile() -> None:
        looks[0] += 1
        if looks[0] == 5:
            raise TimeoutError("still waited for, as it should be")

    monkeypatch.setattr(ran, "_meanwhile", meanwhile)
    with pytest.raises(TimeoutError):
        ran._wait(batch)
    assert not batch.cancelled
