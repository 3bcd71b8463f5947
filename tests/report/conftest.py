"""Fixtures of the browser tests: one Chromium for a worker's run of them (kept from module to
module), a tab of each width a module and a new document in it each test (desktop or phone
width), and the small dice and cards tournaments they open (tests/report/browser.py).

The played folders are session fixtures, here and in the test modules: pytest makes wider
fixtures first, so they are played before the first module's Chromium starts. (Played while
it ran, a 60-entrant round robin once took 24 to 34 s instead of 4, in this suite and in CI;
beside an idle Chromium kept from an earlier module, the faulty round robin of
test_games_in_browser.py took 11.7 s against 12.4 s without one, load 15, one process.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import close_shared_browser, open_page, shared_browser, tournament_folder

HERE = Path(__file__).resolve().parent
PHONE = (390, 844)
"""The phone the pages must fit: no horizontal scrolling at this width."""


@pytest.fixture(scope="module")
def browser() -> Any:
    """This worker's Chromium, kept from module to module while the tests it runs are this
    folder's (none of which uses Django or asyncio), closed before any other."""
    return shared_browser()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After a test's own teardown (its module's tabs closed): the Chromium is closed if the
    next test is not this folder's, or there is none."""
    try:
        return (yield)
    finally:
        if nextitem is None or not nextitem.path.is_relative_to(HERE):
            close_shared_browser()


def pytest_sessionfinish() -> None:
    """A run cut short closes the Chromium too."""
    close_shared_browser()


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
