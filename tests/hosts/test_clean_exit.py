"""A bot's clean exit: a helper it started that hides from every search by name (its own
session, no environment, so no token), or that leaves its cgroup, dies with it at every
isolation level, however its end is found (its PID namespace's init, its cgroup, or the whole
machine's processes)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import replace
from pathlib import Path

import pytest
from isolation_support import LIMITS, NAMESPACES, play_zoo, zoo

from arena.hosts.pipe import ProcessHost

pytestmark = pytest.mark.xdist_group("clean-exit")
"""One worker runs them one after another: a helper is found by its marker, which each
test's bot gives its helper alike."""
MARKER = b"arena-zoo-vanisher-helper"
DESERTER = b"arena-zoo-deserter-helper"


def helpers(marker: bytes = MARKER) -> list[int]:
    """Live processes whose command line carries a zoo helper's marker."""
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                if marker in f.read().split(b"\0"):
                    found.append(int(name))
        except (OSError, ValueError):
            continue
    return found


def assert_none_left(marker: bytes = MARKER) -> None:
    until = time.monotonic() + 3.0
    while (left := helpers(marker)) and time.monotonic() < until:
        time.sleep(0.05)
    for pid in left:  # not to leave it to the next tests
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"the helper outlived its bot: {left}"


def test_a_sandboxed_bots_hidden_helper_dies_at_its_clean_exit(level: str) -> None:
    host = ProcessHost(zoo("vanisher.py"), replace(LIMITS, isolation=level))
    host.introduce()
    assert helpers(), "the vanisher did not start its helper"
    record = play_zoo(host)
    assert not record.faults
    assert host.shutdown() is None  # already shut down by play_zoo
    assert_none_left()


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_an_unsandboxed_bots_hidden_helper_dies_at_its_clean_exit(namespace: bool) -> None:
    host = ProcessHost(zoo("vanisher.py"), replace(LIMITS, isolation="none",
                                                   pid_namespace=namespace))
    host.introduce()
    assert helpers(), "the vanisher did not start its helper"
    assert host.shutdown() == "exited with code 0"
    assert_none_left()


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_a_helper_that_leaves_its_cgroup_dies_at_its_bots_clean_exit(namespace: bool) -> None:
    """At `none` a bot runs as the referee's user and may move a helper out of its cgroup:
    the end finds it all the same (its PID namespace, or its token)."""
    if os.geteuid() != 0 or not os.path.isdir("/sys/fs/cgroup"):
        pytest.skip("a bot leaves its cgroup only as root")
    host = ProcessHost(zoo("deserter.py"), replace(LIMITS, isolation="none",
                                                   pid_namespace=namespace))
    host.introduce()
    [helper] = helpers(DESERTER)
    assert "/arena-" not in Path(f"/proc/{helper}/cgroup").read_text(), "it did not desert"
    assert host.shutdown() == "exited with code 0"
    assert_none_left(DESERTER)
