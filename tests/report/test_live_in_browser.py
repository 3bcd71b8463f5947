"""A report made while its run goes on, in Chromium: the banner says so at the top, at 1400
and at 390 px, without making the phone scroll sideways."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from browser import shot

from arena.report.html import build_report
from arena.report.live import Live


@pytest.fixture(scope="session")  # before the browser: see conftest
def live_folder(dice_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("live") / "dice"
    shutil.copytree(dice_folder, folder)
    build_report(folder, live=Live(3, 40, "2026-12-02 04:50 UTC", 300.0))
    return folder


def _banner(page: Any, folder: Path) -> dict[str, Any]:
    page.goto((folder / "report.html").as_uri())
    found: dict[str, Any] = page.eval_on_selector("#live", """p => ({
        text: p.textContent, top: p.getBoundingClientRect().top,
        height: p.getBoundingClientRect().height,
        wide: document.documentElement.scrollWidth, view: window.innerWidth})""")
    return found


def test_the_live_banner_heads_the_page(page: Any, live_folder: Path) -> None:
    banner = _banner(page, live_folder)
    assert banner["text"] == (
        "Tournament in progress: 3 of 40 games played (8%), as of 2026-12-02 04:50 UTC. "
        "This page is remade every 5 minutes and reloads itself; the final report replaces "
        "it when the run ends.")
    assert banner["top"] == 0 and 0 < banner["height"] < 80
    assert page.title().startswith("(in progress) ")
    shot(page, "live-report-1400.png")


def test_the_live_banner_fits_a_phone(phone: Any, live_folder: Path) -> None:
    banner = _banner(phone, live_folder)
    assert banner["top"] == 0 and banner["wide"] <= banner["view"]
    shot(phone, "live-report-390.png")
