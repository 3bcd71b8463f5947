"""A ladder's report as Chromium shows it: the ranking with its provisional rows, the rating
chart (a line a player, a picked player's band), the versions with a rejected reason as
text, the final first, a phone's width, and a player's link to its entrant page and games.
The folder is tests/report/ladder_season.py's scripted season."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser import shot
from ladder_season import REASON, history_of, ladder_folder

from arena.report.html import build_report
from arena.report.ladder.data import label


@pytest.fixture(scope="session")  # before the browser: see conftest
def season(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = ladder_folder(tmp_path_factory.mktemp("ladder-web"))
    build_report(folder)
    return folder


def _ladder(folder: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((folder / "ladder.json").read_text())
    return loaded


def _open(page: Any, folder: Path, address: str = "") -> None:
    page.goto((folder / "report.html").as_uri() + address)


def test_the_ranking_lists_the_ranked_then_the_provisional(page: Any, season: Path) -> None:
    ranking = _ladder(season)["ranking"]
    _open(page, season)
    rows = page.eval_on_selector_all(
        "#ranking tbody tr",
        "rows => rows.map(r => [r.cells[1].innerText.trim(), r.cells[2].innerText])")
    assert [name for name, _ in rows] == [label(r["player"]) for r in ranking]
    for (_, games), row in zip(rows, ranking, strict=True):
        assert ("PROVISIONAL" in games.upper()) == row["provisional"]
    assert page.locator("#ranking tr.provisional").count() == sum(r["provisional"] for r in ranking)
    assert "not yet separated (z" in page.inner_text("#ld-unresolved")


def test_the_chart_draws_a_line_a_player_and_a_picked_player_s_band(
    page: Any, season: Path
) -> None:
    ladder = _ladder(season)
    _open(page, season)
    lines = page.locator("#ladder-rating polyline.ld-line")
    keys = page.locator("#ld-legend button.ld-key")
    assert lines.count() == keys.count() == len(
        {p for b in history_of(season) for p, r in b["ratings"].items() if r}
        | {r["player"] for r in ladder["ranking"]})  # fmt: skip
    first = ladder["ranking"][0]["player"]
    band = page.locator(f'#ladder-rating g[data-player="{first}"] polygon.ld-band')
    assert not band.is_visible()
    page.hover(f'#ld-legend button[data-player="{first}"]')
    assert band.is_visible()
    page.mouse.move(0, 0)
    assert not band.is_visible()
    page.click(f'#ld-legend button[data-player="{first}"]')
    assert band.is_visible()
    assert page.inner_text("#ld-picked").startswith(f"{label(first)}: ")
    assert page.get_attribute(f'#ld-legend button[data-player="{first}"]', "aria-pressed") == "true"
    page.click(f'#ld-legend button[data-player="{first}"]')  # let go
    page.mouse.move(0, 0)
    assert not band.is_visible() and page.inner_text("#ld-picked") == ""


def test_a_rejected_version_shows_its_reason_as_text(page: Any, season: Path) -> None:
    _open(page, season)
    row = page.locator("#versions tr.v-rejected")
    assert row.count() == 1
    assert row.locator("q.ld-reason").text_content() == REASON
    assert row.locator("img, script").count() == 0
    assert page.evaluate("window.pwned") is None
    statuses = page.eval_on_selector_all("#versions tbody tr", "rows => rows.map(r => r.className)")
    assert statuses == [f"v-{v['status']}" for v in _ladder(season)["versions"]]


def test_the_final_comes_first_and_names_the_contest_s_result(page: Any, season: Path) -> None:
    final = _ladder(season)["final"]
    _open(page, season)
    first = page.eval_on_selector("main > section", "s => s.id")
    assert first == "final"
    places = page.eval_on_selector_all("#ld-result li", "items => items.map(i => i.innerText)")
    assert places == [label(p) for p in final["ranking"]]


def test_on_a_phone_the_ladder_fits_its_width(phone: Any, season: Path) -> None:
    _open(phone, season)
    phone.click("#ld-legend button.ld-key >> nth=0")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    tick = phone.eval_on_selector("#ladder-rating text.tick",
                                  "t => t.getBoundingClientRect().height")  # fmt: skip
    assert tick >= 9, "the chart's numbers are readable at a phone's width"
    shot(phone, "ladder-phone.png", full=True)


def test_a_player_opens_its_entrant_page_and_its_games(page: Any, season: Path) -> None:
    player = _ladder(season)["ranking"][0]["player"]
    _open(page, season)
    page.click(f'#ranking a.who[title="{player}"]')
    assert page.evaluate("location.hash") == "#entrant=" + player.replace("@", "%40")
    page.wait_for_selector("#entrant:not([hidden])")
    assert page.text_content("#e-name") == player
    assert page.get_attribute("#entrant .crumbs a", "href") == "#ranking"
    page.go_back()
    page.click(f'#ranking tr[data-entrant="{player}"] td:nth-child(3) a')
    page.wait_for_selector("#g-rows tr[data-game]")
    assert page.input_value("#f-entrant") == player
    shown = page.eval_on_selector_all("#g-rows tr[data-game]", "rows => rows.length")
    assert shown > 0
