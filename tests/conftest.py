"""Shared test fixtures."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# The same examples on every run and machine: CI results never depend on luck. A property
# that fails is found by a developer running with HYPOTHESIS_PROFILE=explore.
settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser: pytest.Parser) -> None:
    """tests/site's second run, on PostgreSQL, runs only the tests that use the database."""
    parser.addoption("--database-tests-only", action="store_true",
                     help="run only the tests that use the site's database (tests/site)")


@pytest.fixture(autouse=True)
def _no_plugin_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep a developer's ARENA_DISABLE_PLUGINS out of the tests."""
    monkeypatch.delenv("ARENA_DISABLE_PLUGINS", raising=False)


WIDE = ("class", "module", "package")
"""Fixture scopes that several tests of a module share (made once per worker that runs one)."""


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config,
                                  items: list[pytest.Item]) -> Iterator[None]:
    """Under pytest-xdist (pyproject's addopts), a module whose tests share a fixture wider
    than one test (a Dask cluster, a Chromium, a built wheel, a played contest) keeps its tests
    on one worker, so the fixture is made once, not once per worker, and the tests marked
    `load` (CPU hogs, timing channels, a stopped referee) run one after another on one worker
    of their own, so no two of them load the machine at once (marked before xdist reads the
    groups). Then, after every other plugin's order (pytest-django's: its database tests
    first), slow tests and the `load` chain start first and the kept modules next, so that no
    long test, chain or module is left to run alone at the end."""
    worker = hasattr(config, "workerinput")  # not `-n 0`, not the controller
    for item in items if worker else ():
        if item.get_closest_marker("xdist_group") is not None:
            continue
        if item.get_closest_marker("load") is not None:
            item.add_marker(pytest.mark.xdist_group("load"))
        elif _shares_a_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    yield
    if worker:
        items.sort(key=lambda item: (not _load(item), item.get_closest_marker("slow") is None,
                                     item.get_closest_marker("xdist_group") is None))
        if any(_load(item) for item in items):
            folder = config.workerinput[LOCKS]  # type: ignore[attr-defined]
            config.stash[MACHINE] = Machine(Path(folder))


def _load(item: pytest.Item | None) -> bool:
    """Whether the test is one of the `load` tests (one chain, the machine to itself)."""
    return item is not None and item.get_closest_marker("load") is not None


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject's addopts) starts two workers per CPU this process may use: most
    of the suite waits (timeouts, subprocesses, sockets), so one per CPU left the CPUs idle
    most of a run. The `load` tests, which one per CPU was for, have the machine to
    themselves (Machine)."""
    return 2 * len(os.sched_getaffinity(0))


LOCKS = "arena_locks"
"""The workerinput key of the run's folder of lock files (made by the controller)."""


class Machine:
    """The machine, shared by the tests but held alone by the chain of `load` tests (CPU hogs,
    timing channels, a stopped referee: no other test's burst beside them). The chain is the
    first unit of work its worker is sent (sorted first, pytest_collection_modifyitems), so
    every other test waits until the chain has taken the machine and then until it lets go:
    the chain runs at the start with nothing beside it, and no test already running has to
    end first. The locks are flock(2)s: a worker that dies lets go of its own."""

    def __init__(self, folder: Path) -> None:
        self.taken = folder / "taken"
        self.lock = os.open(folder / "machine", os.O_RDWR | os.O_CREAT, 0o600)
        self.alone = False

    def share(self) -> None:
        """Wait for the `load` chain to take the machine and let go of it, then share it."""
        deadline = time.monotonic() + CHAIN_START
        while not self.taken.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        fcntl.flock(self.lock, fcntl.LOCK_SH)

    def hold(self) -> None:
        """Take the machine alone for the `load` chain, once every sharer has let go."""
        if not self.alone:
            fcntl.flock(self.lock, fcntl.LOCK_EX)
            self.taken.touch()
            self.alone = True

    def release(self) -> None:
        """Let go of the machine (shared, or after the chain's last test)."""
        fcntl.flock(self.lock, fcntl.LOCK_UN)
        self.alone = False


CHAIN_START = 300.0
"""Seconds a test waits for the `load` chain to take the machine before it shares it anyway:
the chain is its worker's first work, so only a worker that died before it started waits
that long (and then its replacement's chain waits for the tests already running)."""

MACHINE = pytest.StashKey[Machine]()
FOLDER = pytest.StashKey[Path]()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: object) -> None:
    """The xdist controller names one folder of lock files, made for this run, to each
    worker: the runs of other checkouts on the machine keep locks of their own."""
    config: pytest.Config = node.config  # type: ignore[attr-defined]
    if FOLDER not in config.stash:
        config.stash[FOLDER] = Path(tempfile.mkdtemp(prefix="arena-suite-"))
    node.workerinput[LOCKS] = str(config.stash[FOLDER])  # type: ignore[attr-defined]


def pytest_unconfigure(config: pytest.Config) -> None:
    """The controller removes the run's folder of lock files."""
    if FOLDER in config.stash:
        shutil.rmtree(config.stash[FOLDER], ignore_errors=True)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """A `load` test holds the machine alone from the chain's first test to its last; every
    other test shares it (set-up and teardown included: a module's cluster starts there)."""
    machine = item.config.stash.get(MACHINE, None)
    if machine is None:  # `-n 0` (one test at a time anyway), or no `load` test selected
        return (yield)
    (machine.hold if _load(item) else machine.share)()
    try:
        return (yield)
    finally:
        if not (_load(item) and _load(nextitem)):
            machine.release()


def _shares_a_fixture(item: pytest.Item) -> bool:
    """Whether one of the tests' own fixtures (not a plugin's) used here is module-wide, or
    session-wide but defined in the test's module."""
    module = item.nodeid.split("::")[0]
    info = getattr(item, "_fixtureinfo", None)
    for defs in (info.name2fixturedefs.values() if info else ()):
        used = defs[-1]
        if used.baseid and (used.scope in WIDE
                            or (used.scope == "session" and used.baseid == module)):
            return True
    return False
