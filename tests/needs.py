"""Tests that need a tool CI installs: skipped with the reason on a developer's machine,
failed in CI (CI=true), where a missing tool means a broken install step, never a pass."""

from __future__ import annotations

import os

import pytest


def in_ci() -> bool:
    """Whether this run is CI's, which installs every tool the suite needs."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require(present: object, reason: str) -> None:
    """Skip (locally) or fail (in CI) the calling test when a needed tool is absent."""
    if present:
        return
    if in_ci():
        pytest.fail(f"CI must provide this: {reason}", pytrace=False)
    pytest.skip(reason)
