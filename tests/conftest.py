"""Shared test fixtures."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

# The same examples on every run and machine: CI results never depend on luck. A property
# that fails is found by a developer running with HYPOTHESIS_PROFILE=explore.
settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _no_plugin_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep a developer's ARENA_DISABLE_PLUGINS out of the tests."""
    monkeypatch.delenv("ARENA_DISABLE_PLUGINS", raising=False)
