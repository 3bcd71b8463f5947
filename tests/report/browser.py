"""The headless Chromium the report and viewer tests open pages in, the small tournaments
they open, and where their screenshots go (artifacts/ at the repository top).

Needs Playwright for Python (`pip install playwright`) and a Chromium binary (Debian:
`apt-get install chromium`; or set ARENA_CHROMIUM). Skipped, with the reason, without them,
except in CI (CI=true), which installs both and so fails instead; `playwright install` is
never run. The fixtures are in tests/report/conftest.py.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from needs import require

from arena.report.html import build_report
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
ZOO = Path(__file__).resolve().parents[1] / "hosts" / "zoo" / "wire.py"
"""The wire zoo: bots that time out, crash, move illegally and break the protocol."""
PLAYWRIGHT_OFF = [
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
    "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin", "OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled",
    "PreconnectToSearch",
]  # fmt: skip
"""The features Playwright (1.65) turns off by its own --disable-features: Chromium reads one
such switch, the last, so ours repeats them."""
TOP_CHROME_OFF = ["WebUIOmniboxPopup", "WebUIOmniboxFullPopup", "WebUIOmniboxAimPopup",
                  "PreloadTopChromeWebUI"]  # fmt: skip
"""The address bar's popup, a web page (a renderer) Chromium 156 preloads for each window,
headless too, and keeps drawing: with it, five idle tabs took 3.2 to 3.6 s of CPU in 15 s;
without it 0.13 s (measured at load 11)."""
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
    "--disable-features=" + ",".join(PLAYWRIGHT_OFF + TOP_CHROME_OFF),
]  # fmt: skip
CONFIG = """\
name: {name}
rules: {rules}
options: {options}
entrants: [random, {{bot: random, alias: ana}}, {{bot: random, alias: bruno}}]
format: {{type: round-robin, seats: {seats}, games: 1}}
seed: 11
workers: 1
"""


def _chromium() -> str | None:
    candidates = [os.environ.get("ARENA_CHROMIUM"), "/usr/bin/chromium"]
    candidates += [shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")]
    return next((c for c in candidates if c and Path(c).is_file()), None)


def launch_browser() -> Iterator[Any]:
    """Chromium, headless and offline, for a module's pages; skipped or failed without it."""
    browser = shared_browser()
    try:
        yield browser
    finally:
        close_shared_browser()


_RUNNING: list[Any] = []
"""This process's Playwright and Chromium while a run of browser modules goes on."""


def shared_browser() -> Any:
    """This process's Chromium, launched by the first module that asks for it (Playwright's
    start and Chromium's launch were 1.5 to 3 s a module at load 11); skipped or failed
    without it. Playwright's loop counts as a running asyncio loop in this thread, which
    Django's ORM refuses: close_shared_browser() before any test that needs neither."""
    if not _RUNNING:
        try:
            from playwright import sync_api
        except ImportError:
            sync_api = None
        require(sync_api, "Playwright is not installed (pip install -e '.[test]')")
        executable = _chromium()
        require(executable, "no Chromium found (apt-get install chromium, or set ARENA_CHROMIUM)")
        assert sync_api is not None and executable is not None
        playwright = sync_api.sync_playwright().start()
        try:
            launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        except BaseException:
            playwright.stop()
            raise
        _RUNNING[:] = [playwright, launched]
    return _RUNNING[1]


def close_shared_browser() -> None:
    """Close this process's Chromium and stop its Playwright, if they run."""
    if _RUNNING:
        playwright, launched = _RUNNING
        _RUNNING.clear()
        try:
            launched.close()
        finally:
            playwright.stop()


def open_page(browser: Any, tabs: dict[tuple[int, int], Any], width: int = 1400,
              height: int = 900) -> Iterator[Any]:  # fmt: skip
    """A page for one test that fails it on any script error or network request: its module's
    tab of this size (a new tab was a new renderer process, 0.2 s a test at load 13), at this
    size, on a new document each test (left on about:blank: the pages keep nothing else, no
    cookie and no storage on file://)."""
    opened = _tab(browser, tabs, width, height)
    yield opened
    errors, requests = opened.errors, opened.requests
    opened.goto("about:blank")  # the next test's address loads anew, even one a hash apart
    _clean(errors, requests)


def kept_page(browser: Any, tabs: dict[tuple[int, int], Any], width: int = 1400,
              height: int = 900) -> Iterator[Any]:  # fmt: skip
    """open_page's tab with its checks, its page left as the test left it: for tests that
    read one page in turn (the first of them, or any after open_page's reset, loads it)."""
    opened = _tab(browser, tabs, width, height)
    yield opened
    _clean(opened.errors, opened.requests)


def _clean(errors: list[Any], requests: list[str]) -> None:
    """A page's checks: no script error, no request but to a file (the report is offline)."""
    assert errors == []
    assert all(url.startswith("file://") for url in requests), requests


def _tab(browser: Any, tabs: dict[tuple[int, int], Any], width: int, height: int) -> Any:
    """The module's tab of this size, made on first use, its errors and requests cleared."""
    opened = tabs.get((width, height))
    if opened is None:
        opened = browser.new_context(viewport={"width": width, "height": height}).new_page()
        opened.on("request", lambda request: opened.requests.append(request.url))
        opened.on("pageerror", lambda error: opened.errors.append(str(error)))
        tabs[(width, height)] = opened
    opened.set_viewport_size({"width": width, "height": height})
    opened.requests = []
    opened.errors = []
    return opened


def tournament_folder(root: Path, name: str, rules: str, options: str, seats: int) -> Path:
    """A small played round robin of three random bots with its report built."""
    config = root / f"{name}.yaml"
    config.write_text(CONFIG.format(name=name, rules=rules, options=options, seats=seats))
    folder = root / name
    run_tournament(load_tournament(config), folder, workers=1)
    build_report(folder)
    return folder


def shot(page: Any, name: str, *, full: bool = False) -> None:
    """Keep a screenshot in artifacts/, to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=full)


def zoo_folder(root: Path, name: str, config: str, workers: int = 1) -> Path:
    """A played tournament with its report built; `config` may name the wire zoo's bots as
    `[{python}, {zoo}, <misbehaviour>]` commands. The zoo needs only the standard library:
    its Python starts without `site` (-S), whose .pth imports were most of a start (the
    faulty round robin of test_games_in_browser.py, 32 starts: 5.3 to 6.0 s of CPU with them,
    4.0 s without)."""
    path = root / f"{name}.yaml"
    python = json.dumps(sys.executable) + ", -S"  # a command's first two words
    path.write_text(config.format(python=python, zoo=json.dumps(str(ZOO))))
    run_tournament(load_tournament(path), root / name, workers=workers)
    build_report(root / name)
    return root / name


def games_of(folder: Path) -> list[dict[str, Any]]:
    """The folder's games.jsonl, a dict a game."""
    return [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]
