"""Shared test fixtures."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator

import pytest
from hypothesis import settings

# Python's default, each module's bytecode kept in its __pycache__ (.gitignore'd), for every
# process the suite starts: where the environment sets PYTHONDONTWRITEBYTECODE (the project's
# own development machines do), each `arena` run and Dask worker would compile arena from its
# source again (tests/test_crafted_input.py: 23.0 s of CPU with it set, 15.6 s without). Bots
# still run with it set: their hosts set it again for them.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# Ctrl-C as a terminal gives it, whatever started the suite: a shell script's `cmd &`, nohup
# or a CI runner may start it with SIGINT ignored, which its workers and every process they
# start would inherit, and then the tests that press Ctrl-C (tests/ctrl_c.py) would find it
# does nothing (7 such tests failed so). A handler, unlike the ignoring, is not inherited
# across exec: each Python the suite starts installs Python's own again.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

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
        items.sort(key=lambda item: (_started_first(item) is None,
                                     item.get_closest_marker("xdist_group") is None))


def _started_first(item: pytest.Item) -> pytest.Mark | None:
    """A slow test, or one of the `load` tests (one long chain on one worker)."""
    return item.get_closest_marker("slow") or item.get_closest_marker("load")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject's addopts) starts one worker more than the CPUs this process may
    use: with one per CPU the CPUs stood 16% idle while tests waited (a stopped referee, a
    sleeping bot at its wall limit, a killed Dask worker, a browser's page), and a third worker
    on 2 CPUs fills that wait: 274 and 258 s against 290 and 279 with one per CPU, CPUs 96%
    busy against 82-84% (`benchmarks/suite.py`, two interleaved rounds, idle machine). Two per
    CPU took 268 and 258 s with 1 failure: not worth a second extra worker's load on each
    test. (Before arena/hosts/strain.py and pipe_lines.py excused the machine's time, two per
    CPU made the `load` tests fault innocent bots; they run one at a time, on a worker of
    their own.)"""
    return len(os.sched_getaffinity(0)) + 1


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
