"""Real Dask clusters for the tests, on loopback: a LocalCluster of worker processes (one of
two workers shared by every module that leaves it as it found it), and a `dask scheduler`
and `dask worker`s as subprocesses where a test must kill one or start one on a machine that
is made weaker (its own PATH, its own copy of arena)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Generator, Iterator, Mapping
from pathlib import Path
from typing import Any

import dask
import pytest
from distributed import Client, LocalCluster
from needs import require

from arena.hosts import walls
from arena.tournament.run import results

QUIET = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}
"""Dask's own diagnostics, slowed: a profiler sampling each worker every 10 ms, an event loop
tick timed every 20 ms, the memory looked at every 100 ms. No test reads them, and they cost
an idle two-worker cluster 1.8 s of CPU in 30 s (0.5 s with these; a busy one more)."""
dask.config.set(QUIET)  # this process's clusters, and the workers their nannies start
os.environ.update({  # the `dask scheduler` and `dask worker` commands the tests start
    "DASK_" + key.upper().replace(".", "__").replace("-", "_"): str(value)
    for key, value in QUIET.items()})

dask.config.set({"distributed.deploy.lost-worker-timeout": "600s"})
"""A LocalCluster closes a nanny for good when no worker of its name joined within this of
its worker's death (15 s by Dask's default): a nanny restarting a killed worker on a loaded
machine (load 14: over 15 s to spawn and import) lost it, and the shared cluster kept one
worker for the rest of the suite. Longer than WAIT: a test fails on its own wait first."""

COMPARED = (results.GAMES, *results.DERIVED)
DASK = Path(sys.executable).with_name("dask")
"""The `dask` command of the interpreter running the tests (an operator's `dask worker`), run by
that interpreter: its `#!` line may name another (a venv made with --system-site-packages),
whose arena is not the tests' one."""
WAIT = 60.0
"""Longest a test waits for an event of a cluster before it fails."""


def strict_here() -> None:
    """Skip (locally) or fail (in CI) a test whose bots run at isolation strict."""
    require(walls.strongest() == "strict",
            "isolation strict is not available here (`arena doctor` says what is missing)")


@contextlib.contextmanager
def local_cluster(workers: int = 2) -> Iterator[LocalCluster]:
    """A LocalCluster of `workers` worker processes (each behind a nanny), one thread each."""
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address=None) as cluster:
        yield cluster


ON_SHARED = pytest.mark.xdist_group("dask")
"""`pytestmark` of every module that plays on the shared clusters: under xdist they all run
on one worker, one after another, so the clusters are started once a suite, not once a module
(tests/conftest.py would give each module a worker, and so a cluster, of its own)."""

_SHARED: dict[int, LocalCluster] = {}
_OPEN = contextlib.ExitStack()


def shared_cluster(request: pytest.FixtureRequest, workers: int = 2) -> LocalCluster:
    """The LocalCluster of `workers` worker processes that the modules of this test process
    share when their tests leave it as they found it (a worker they kill is waited for
    again): started at its first use, closed when the next test is in no module that plays
    on it (`pytest_runtest_teardown`) or at the session's end. Each cluster costs
    interpreters that import Dask and arena, seconds of a loaded machine, to start and stop."""
    if workers not in _SHARED:
        _SHARED[workers] = _OPEN.enter_context(local_cluster(workers))
        request.session.addfinalizer(close_shared)
    return _SHARED[workers]


def close_shared() -> None:
    """Close the shared clusters (started again by the next module that asks)."""
    _SHARED.clear()
    _OPEN.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None,
                            ) -> Generator[None, None, None]:
    """A conftest's hook (tests/executor, tests/tournament, tests/cli): after a test, close
    the shared clusters when the next test's module does not play on them. An idle cluster
    still costs a few percent of a core (heartbeats, monitors) for the rest of the session."""
    yield
    module = getattr(nextitem, "module", None)
    if _SHARED and getattr(module, "shared_cluster", None) is not shared_cluster:
        close_shared()


def client_of(address: str) -> Client:
    """A client for looking at and acting on a cluster (not the run's own)."""
    return Client(address, timeout=WAIT, set_as_default=False)


def worker_pids(client: Client) -> dict[str, int]:
    """Each Dask worker's process id, by address."""
    return dict(client.run(os.getpid))


def wait_for(ready: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
    """Wait until `ready()` is truthy (looked at every 20 ms), or fail naming `what`."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = ready()
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def lines(folder: Path) -> int:
    """Complete lines of games.jsonl so far (0 when there is none yet)."""
    path = folder / results.GAMES
    return path.read_bytes().count(b"\n") if path.exists() else 0


def differing(left: Path, right: Path, names: tuple[str, ...] = COMPARED) -> list[str]:
    """The result files whose bytes differ between two folders (or are missing in one)."""
    return [name for name in names
            if not (left / name).exists() or not (right / name).exists()
            or (left / name).read_bytes() != (right / name).read_bytes()]


class Scheduler:
    """A `dask scheduler` subprocess on loopback; its address once it is up. Workers given
    it (not its address) start beside it: each waits for its scheduler file, so their
    imports overlap the scheduler's, a second or two of a test's wall time each."""

    def __init__(self, folder: Path) -> None:
        self.file = folder / "scheduler.json"
        self.process = subprocess.Popen(
            [sys.executable, str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0",
             "--no-dashboard",
             "--scheduler-file", str(self.file)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self._up: str | None = None

    def _address(self) -> str | None:
        import json

        if self.process.poll() is not None:
            raise AssertionError(f"dask scheduler exited ({self.process.returncode})")
        with contextlib.suppress(OSError, ValueError):
            return str(json.loads(self.file.read_text())["address"])
        return None

    @property
    def address(self) -> str:
        """Its address, waited for until it has written it."""
        if self._up is None:
            self._up = str(wait_for(self._address, "the scheduler to write its address"))
        return self._up

    def kill(self) -> None:
        """kill -9, as a machine that dies."""
        _kill(self.process)


class Worker:
    """A `dask worker` subprocess (no nanny: one process, which is the worker), started with
    its own environment changes (a PATH, a PYTHONPATH) and arguments (a --preload); given a
    `Scheduler`, it starts at once and joins once the scheduler has written its file."""

    def __init__(self, scheduler: str | Scheduler, name: str,
                 env: Mapping[str, str] | None = None, cwd: Path | None = None,
                 args: tuple[str, ...] = ()) -> None:
        environ = {**os.environ, **(env or {})}
        self.name = name
        at = [scheduler] if isinstance(scheduler, str) else [
            "--scheduler-file", str(scheduler.file)]
        self.process = subprocess.Popen(
            [sys.executable, str(DASK), "worker", *at, "--name", name, "--nthreads", "1",
             "--no-nanny", "--no-dashboard", "--host", "127.0.0.1", *args],
            env=environ, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)

    def kill(self) -> None:
        _kill(self.process)


def wait_for_workers(client: Client, names: set[str]) -> None:
    """Wait until every named worker has joined the scheduler."""
    def joined() -> bool:
        info = client.scheduler_info(n_workers=-1)["workers"]
        return names <= {w.get("name") for w in info.values()}
    wait_for(joined, f"workers {sorted(names)} to join")


@contextlib.contextmanager
def one_worker_scheduler(folder: Path, name: str,
                         env: Mapping[str, str] | None = None) -> Iterator[str]:
    """A scheduler with one named worker joined (its environment changed by `env`): its
    address, both killed at the end."""
    scheduler = Scheduler(folder)
    worker = Worker(scheduler, name, env)
    try:
        with client_of(scheduler.address) as client:
            wait_for_workers(client, {name})
        yield scheduler.address
    finally:
        worker.kill()
        scheduler.kill()


def _kill(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    process.wait(10)


def descendants(pids: set[int]) -> set[int]:
    """Every living process below these ones (by parent id, read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rpartition(")")[2].split()[1])
    found: set[int] = set()
    frontier = set(pids)
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def bot_processes(pids: set[int]) -> list[str]:
    """The command lines of arena's bot launchers (and what they started) below `pids`."""
    found = []
    for pid in descendants(pids):
        with contextlib.suppress(OSError):
            line = (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ")
            if b"launcher" in line or b"bwrap" in line:
                found.append(f"{pid}: {line.decode(errors='replace')}")
    return found
