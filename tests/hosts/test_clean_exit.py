"""A bot's clean exit: a helper it started that hides from every search by name (its own
session, no environment, so no token) dies with it at every isolation level, however its end
is found (its PID namespace's init, its cgroup, or the whole machine's processes)."""

from __future__ import annotations

import os
import time
from dataclasses import replace

import pytest
from isolation_support import LIMITS, NAMESPACES, play_zoo, zoo

from arena.hosts.pipe import ProcessHost

MARKER = b"arena-zoo-vanisher-helper"


def helpers() -> list[int]:
    """Live processes whose command line carries the vanisher's marker."""
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                if MARKER in f.read().split(b"\0"):
                    found.append(int(name))
        except (OSError, ValueError):
            continue
    return found


def assert_none_left() -> None:
    until = time.monotonic() + 3.0
    while (left := helpers()) and time.monotonic() < until:
        time.sleep(0.05)
    assert not left, f"the vanisher's helper outlived it: {left}"


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
