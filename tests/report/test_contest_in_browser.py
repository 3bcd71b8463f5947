"""The report of a real contest in headless Chromium: 60 entrants (standings first, a search
box, a crosstable that scrolls in its own box with the names in view, cells that link to
their pair's games), an elimination's bracket linked to its matches, and no page that
scrolls sideways on a phone. Screenshots: artifacts/report-60-*.png, report-phone-*.png.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest
from browser import kept_page, shot

from arena.report.html import build_report
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SIXTY = "name: sixty\nrules: dice\noptions: {{max_points: 1}}\nentrants:\n{entrants}\n" + (
    "format: {{type: round-robin, seats: 2, games: 1}}\nseed: 5\nworkers: 1\nreplays: false\n"
)
"""A game of one round (max_points 1): the pages show the 3,540 games' results, never their
rounds, and five rounds a game took twice the CPU to play (4 to 5 s against 2.5)."""


def _played(root: Path, name: str, text: str) -> Path:
    config = root / f"{name}.yaml"
    config.write_text(text)
    run_tournament(load_tournament(config), root / name, workers=1)
    build_report(root / name)
    return root / name


@pytest.fixture(scope="session")  # before the browser: see conftest
def sixty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 60-entrant round robin of random bots, one game a seating, without replays."""
    entrants = "\n".join(f"  - {{bot: random, alias: bot-{i:02}}}" for i in range(1, 61))
    return _played(tmp_path_factory.mktemp("sixty"), "sixty", SIXTY.format(entrants=entrants))


@pytest.fixture(scope="session")  # before the browser: see conftest
def cup(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """configs/dice-elimination.yaml, 3 games a match: matches of one game and of several."""
    text = (CONFIGS / "dice-elimination.yaml").read_text().replace("games: 7", "games: 3")
    return _played(tmp_path_factory.mktemp("cup"), "cup", text)


@pytest.fixture
def sixty_page(browser: Any, tabs: dict[tuple[int, int], Any], sixty: Path) -> Iterator[Any]:
    """The desktop tab on the 60-entrant report, loaded by the first of the tests in a row
    that use it and kept for the next (a load of its 3,540 cells is 0.5 s of CPU), scrolled
    to the top; with `page`'s checks: no script error, no request but to a file."""
    yield from _kept_on(browser, tabs, sixty, 1400, 900)


@pytest.fixture
def sixty_phone(browser: Any, tabs: dict[tuple[int, int], Any], sixty: Path) -> Iterator[Any]:
    """The same on the phone's tab, for the phone tests that only read the report."""
    yield from _kept_on(browser, tabs, sixty, 390, 844)  # conftest.PHONE


def _kept_on(browser: Any, tabs: dict[tuple[int, int], Any], folder: Path, width: int,
             height: int) -> Iterator[Any]:  # fmt: skip
    address = (folder / "report.html").as_uri()
    for tab in kept_page(browser, tabs, width, height):
        if tab.url != address:
            tab.goto(address)
        tab.evaluate("window.scrollTo(0, 0)")
        yield tab


def _csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def _hash_query(href: str) -> dict[str, str]:
    """The keys of a `#games&...` address, as URLSearchParams reads them."""
    assert href.startswith("#games&"), href
    return dict(parse_qsl(href[len("#games&"):]))


def test_the_standings_come_first_and_open_with_rank_entrant_win_rate_and_elo(
    sixty: Path, sixty_page: Any
) -> None:
    page = sixty_page
    sections = page.eval_on_selector_all("main > section", "all => all.map(s => s.id)")
    assert sections[0] == "standings"
    heads = page.eval_on_selector_all(
        "table.standings thead th", "cells => cells.map(c => c.textContent.trim())"
    )
    assert heads[:4] == ["#", "Entrant", "Win rate", "Elo"]
    expected = _csv(sixty / "standings.csv")
    links = page.eval_on_selector_all(
        "table.standings tbody td.name a", "links => links.map(a => a.getAttribute('href'))"
    )
    assert links == [f"#entrant={row['entrant']}" for row in expected]
    elos = page.eval_on_selector_all(
        "table.standings tbody td:nth-child(4) strong", "cells => cells.map(c => c.textContent)"
    )
    assert elos == [f"{float(row['elo']):+.0f}" for row in expected]
    shot(page, "report-60-top.png")


@pytest.mark.parametrize("name", ["sixty", "cup"])
def test_on_a_phone_the_first_four_standings_columns_stay_in_view(
    phone: Any, name: str, request: pytest.FixtureRequest
) -> None:
    folder = request.getfixturevalue(name)  # short names, and long ones ("statistician-bold")
    phone.goto((folder / "report.html").as_uri())
    phone.locator("#standings").scroll_into_view_if_needed()
    box = phone.eval_on_selector("#standings .scroll", "b => b.getBoundingClientRect().right")
    rights = phone.eval_on_selector_all(
        "table.standings thead th", "cells => cells.map(c => c.getBoundingClientRect().right)"
    )
    assert rights[3] <= box <= 390
    # Scrolled sideways to the last columns, the rank and the name stay where they were.
    name_left = "c => c.getBoundingClientRect().left"
    before = phone.eval_on_selector("table.standings tbody td.name", name_left)
    phone.eval_on_selector("#standings .scroll", "b => { b.scrollLeft = b.scrollWidth; }")
    after = phone.eval_on_selector("table.standings tbody td.name", name_left)
    assert phone.eval_on_selector("#standings .scroll", "b => b.scrollLeft") > 0
    assert abs(after - before) < 1
    shot(phone, f"report-phone-{name}-scrolled.png")


def test_a_crosstable_cell_links_to_the_games_of_its_pair(sixty_page: Any, sixty: Path) -> None:
    page = sixty_page
    cells = page.eval_on_selector_all(
        "table.heat tbody td[data-score]",
        """cells => cells.map(td => ({row: td.parentElement.dataset.name,
            column: td.closest('table').tHead.rows[0].cells[td.cellIndex].dataset.name,
            score: Number(td.dataset.score), href: td.querySelector('a').getAttribute('href'),
            text: td.textContent}))""",
    )
    crosstable = {(r["entrant"], r["opponent"]): r for r in _csv(sixty / "crosstable.csv")}
    played = [pair for pair, row in crosstable.items() if int(row["games"])]
    assert len(cells) == len(played) == 60 * 59
    for cell in cells:
        row = crosstable[cell["row"], cell["column"]]
        games = int(row["games"])
        assert cell["score"] == pytest.approx((int(row["above"]) + int(row["ties"]) / 2) / games)
        assert cell["text"] == str(round(100 * cell["score"]))
        assert _hash_query(cell["href"]) == {"entrant": cell["row"], "opponent": cell["column"]}
    heads = page.eval_on_selector_all(
        "table.heat tbody th.name a", "links => links.map(a => a.getAttribute('href'))"
    )
    assert heads == [f"#entrant={row['entrant']}" for row in _csv(sixty / "standings.csv")]


def test_the_crosstable_scrolls_in_its_own_box_with_names_and_heads_in_view(
    sixty_page: Any,
) -> None:
    page = sixty_page
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400
    page.locator("#crosstable").scroll_into_view_if_needed()
    box = page.locator(".heat-box")
    size = box.evaluate("b => [b.scrollWidth, b.clientWidth, b.scrollHeight, b.clientHeight]")
    assert size[0] > size[1] and size[2] > size[3], "60 entrants overflow the box both ways"
    box.evaluate("b => { b.scrollLeft = b.scrollWidth; b.scrollTop = b.scrollHeight / 2; }")
    where = box.evaluate("""b => {
        const at = b.getBoundingClientRect();
        const row = [...b.querySelectorAll('tbody tr')].find(
            tr => tr.getBoundingClientRect().top > at.top + 120);
        const name = row.querySelector('th.name').getBoundingClientRect();
        const head = b.querySelector('thead th.col').getBoundingClientRect();
        return {box_left: at.left, box_top: at.top, name_left: name.left, name_right: name.right,
                head_top: head.top, scrolled: [b.scrollLeft, b.scrollTop]};
    }""")
    assert where["scrolled"][0] > 0 and where["scrolled"][1] > 0
    assert abs(where["name_left"] - where["box_left"]) < 3, "the row names stay at the left"
    assert where["name_right"] > where["name_left"] + 30
    assert abs(where["head_top"] - where["box_top"]) < 3, "the column heads stay at the top"
    shot(page, "report-60-crosstable.png")


def test_the_search_box_keeps_the_rows_of_the_entrant_found(sixty_page: Any) -> None:
    page = sixty_page  # the last in the row to use it: its boxes were left empty till now
    visible = """sel => [...document.querySelectorAll(sel)].filter(
        n => n.getClientRects().length).map(n => n.dataset.entrant || n.dataset.name)"""
    page.fill("#find", "bot-07")
    assert page.evaluate(visible, "#standings tbody tr") == ["bot-07"]
    assert page.evaluate(visible, "#crosstable tbody tr") == ["bot-07"]
    assert page.evaluate(visible, "#spread .sp-row[data-entrant]") == ["bot-07"]
    found = page.eval_on_selector_all("th.col.found", "cols => cols.map(c => c.dataset.name)")
    assert found == ["bot-07"]
    assert page.inner_text("#find-count") == "1 of 60 entrants"
    page.fill("#find", "BOT-1")  # case does not matter: bot-10 to bot-19
    assert sorted(page.evaluate(visible, "#standings tbody tr")) == [
        f"bot-{i}" for i in range(10, 20)
    ]
    page.fill("#find", "")
    assert len(page.evaluate(visible, "#standings tbody tr")) == 60
    assert page.inner_text("#find-count") == ""
    # The box above the crosstable finds the same way, and both boxes show what was typed.
    page.fill("#find-heat", "bot-42")
    assert page.evaluate(visible, "#standings tbody tr") == ["bot-42"]
    assert page.evaluate(visible, "#crosstable tbody tr") == ["bot-42"]
    assert page.input_value("#find") == "bot-42"
    assert page.inner_text("#find-heat-count") == "1 of 60 entrants"


def test_the_spread_of_scores_has_a_row_per_entrant_that_fits_a_phone(
    sixty_phone: Any, sixty: Path
) -> None:
    phone = sixty_phone
    rows = phone.eval_on_selector_all(
        "#spread .sp-row[data-entrant]",
        """rows => rows.map(r => ({name: r.dataset.entrant,
            right: r.querySelector('.sp-num').getBoundingClientRect().right,
            box: r.querySelector('svg').getBoundingClientRect().width}))""",
    )
    assert [r["name"] for r in rows] == [row["entrant"] for row in _csv(sixty / "standings.csv")]
    assert all(r["right"] <= 390 and r["box"] > 100 for r in rows)
    phone.locator("#spread").scroll_into_view_if_needed()
    shot(phone, "report-phone-60-spread.png")


def test_each_bracket_match_links_to_its_games(page: Any, cup: Path) -> None:
    page.goto((cup / "report.html").as_uri())
    games = [json.loads(line) for line in (cup / "games.jsonl").read_text().splitlines()]
    stages = json.loads((cup / "stages.json").read_text())
    tables = [
        (stage["name"], table)
        for stage in stages["stages"] if stage.get("format") == "elimination"
        for table in stage["tables"]
    ]  # fmt: skip
    hrefs = page.eval_on_selector_all(
        "#bracket .match-head > a", "links => links.map(a => a.getAttribute('href'))"
    )
    assert len(hrefs) == len(tables)
    for href, (stage, table) in zip(hrefs, tables, strict=True):
        if len(table["games"]) == 1:
            assert re.fullmatch(rf"viewer\.html#game={table['games'][0]}&pack=\d+", href)
            continue
        query = _hash_query(href)
        assert query["stage"] == stage
        pair = {query["entrant"], query["opponent"]}
        assert pair == set(table["entrants"])
        # The address picks exactly that match's games from the log.
        picked = [g["id"] for g in games if g["stage"] == stage and pair <= set(g["entrants"])]
        assert picked == table["games"]
    assert any(href.startswith("#games&") for href in hrefs)


FOLDERS = ("sixty", "quickstart", "elimination", "cards")
"""sixty first: it reads the phone's load of the spread test just before."""


@pytest.fixture(scope="session")  # before the browser: see conftest
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    text = (CONFIGS / "quickstart.yaml").read_text().replace("games: 10", "games: 2")
    return _played(tmp_path_factory.mktemp("quick"), "quickstart", text)


@pytest.mark.parametrize("name", FOLDERS)
def test_no_report_scrolls_sideways_on_a_phone(name: str, request: pytest.FixtureRequest) -> None:
    # cards: conftest's small cards round robin, the one the other report tests open
    fixture = {"elimination": "cup", "cards": "cards_folder"}.get(name, name)
    folder = request.getfixturevalue(fixture)
    if name == "sixty":
        phone = request.getfixturevalue("sixty_phone")
    else:
        phone = request.getfixturevalue("phone")
        phone.goto((folder / "report.html").as_uri())
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    # Wide tables scroll in their own boxes; none pushes past the page's edge.
    wide = phone.eval_on_selector_all(
        "main table", "tables => tables.map(t => t.closest('.scroll, .heat-box') !== null"
        " || t.getBoundingClientRect().right <= 390)",
    )
    assert all(wide)
    overflow = "b => b.map(x => x.scrollWidth - x.clientWidth)"
    bracket = phone.eval_on_selector_all(".bracket", overflow)
    assert bracket == ([0] if name == "elimination" else [])
    # Counts are written out, not left to hovering: the claims by category, under each bar.
    cats = phone.eval_on_selector_all("#bluffing small.cats", "s => s.map(x => x.textContent)")
    if name != "sixty":  # the 60-entrant run keeps no replays, so it has no bluffing table
        assert cats and all(re.search(r"\d+ \(\d+%\)", text) for text in cats)
    shot(phone, f"report-phone-{name}.png")
    phone.locator("#standings").scroll_into_view_if_needed()
    shot(phone, f"report-phone-{name}-standings.png")


def test_without_scripts_the_find_boxes_are_hidden_and_the_tables_whole(
    browser: Any, sixty: Path
) -> None:
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1400, "height": 900}
    )
    page = context.new_page()
    page.goto((sixty / "report.html").as_uri())
    assert not page.is_visible("#find") and not page.is_visible("#find-heat")
    assert page.locator("table.standings tbody tr:visible").count() == 60
    assert page.locator("table.heat tbody tr:visible").count() == 60
    context.close()
