"""Shared test fixtures."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_plugin_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep a developer's ARENA_DISABLE_PLUGINS out of the tests."""
    monkeypatch.delenv("ARENA_DISABLE_PLUGINS", raising=False)
