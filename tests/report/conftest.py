"""Fixtures of the browser tests: one Chromium per module, a tab of each width per module
and a new document in it per test (desktop or phone width), and the small dice and cards
tournaments they open (tests/report/browser.py).

The played folders are session fixtures, here and in the test modules: pytest makes wider
fixtures first, so they are played before a module's Chromium starts. Played while it ran,
a 60-entrant round robin took 24 to 34 s instead of 4 (measured in this suite and in CI)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import launch_browser, open_page, tournament_folder

PHONE = (390, 844)
"""The phone the pages must fit: no horizontal scrolling at this width."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


@pytest.fixture(scope="module")
def tabs(browser: Any) -> Iterator[dict[tuple[int, int], Any]]:
    """The module's tabs, one a size, each in a browser context of its own."""
    opened: dict[tuple[int, int], Any] = {}
    yield opened
    for tab in opened.values():
        tab.context.close()


@pytest.fixture
def page(browser: Any, tabs: dict[tuple[int, int], Any]) -> Iterator[Any]:
    """A desktop-sized page that fails the test on any script error or network request."""
    yield from open_page(browser, tabs)


@pytest.fixture
def phone(browser: Any, tabs: dict[tuple[int, int], Any]) -> Iterator[Any]:
    """A phone-sized page (390 px wide), with the same checks as `page`."""
    yield from open_page(browser, tabs, *PHONE)


@pytest.fixture(scope="session")  # before the browser: see conftest
def dice_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tournament_folder(tmp_path_factory.mktemp("web"), "dice-class", "dice",
                             "{max_points: 2}", 3)  # fmt: skip


@pytest.fixture(scope="session")  # before the browser: see conftest
def cards_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tournament_folder(tmp_path_factory.mktemp("web"), "cards-class", "cards", "{}", 3)
