"""An entrant's page (report.html#entrant=<name>) in a real headless Chromium: its record
against each opponent (each row opening those games), its faults by kind with examples, its
bluffing row, its best and worst games, each a viewer link that comes back to the page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from browser import games_of, shot, zoo_folder

CONFIG = """\
name: entrants
rules: dice
options: {{on_fault: penalty, max_faults: 3, max_points: 2}}
entrants:
  - random
  - {{bot: random, alias: ana}}
  - {{bot: random, alias: bruno}}
  - {{command: [{python}, {zoo}, illegal], alias: cheat}}
format: {{type: round-robin, seats: 3, games: 2}}
isolation: none
seed: 5
workers: 1
"""


@pytest.fixture(scope="session")  # before the browser: see conftest
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return zoo_folder(tmp_path_factory.mktemp("entrants"), "entrants", CONFIG)



def _open(page: Any, folder: Path, name: str) -> None:
    page.goto((folder / "report.html").as_uri() + "#entrant=" + quote(name))
    page.wait_for_selector("#entrant:not([hidden]) #e-record tr")


def _record(games: list[dict[str, Any]], who: str) -> dict[str, list[str]]:
    """Its games, wins, win rate and mean place at the tables each opponent sat at."""
    rows: dict[str, list[int]] = {}
    for g in games:
        if who not in g["entrants"]:
            continue
        place = g["placements"][g["entrants"].index(who)]
        for other in set(g["entrants"]) - {who}:
            row = rows.setdefault(other, [0, 0, 0])
            row[0] += 1
            row[1] += place == 1
            row[2] += place
    return {o: [str(n), str(w), f"{100 * w / n:.1f}%", f"{p / n:.2f}"]
            for o, (n, w, p) in rows.items()}  # fmt: skip


def test_the_page_shows_its_record_against_each_opponent(page: Any, folder: Path) -> None:
    _open(page, folder, "ana")
    hidden = page.eval_on_selector_all(
        "main > section", "all => all.filter(s => s.hidden).map(s => s.id)"
    )
    assert "standings" in hidden and "games" in hidden and "entrant" not in hidden
    shown = page.eval_on_selector_all(
        "#e-record tr", "rows => rows.map(r => [r.dataset.opponent,"
        " ...[...r.cells].slice(1).map(c => c.textContent)])"
    )
    expected = _record(games_of(folder), "ana")
    assert {row[0]: row[1:] for row in shown} == expected
    assert page.text_content("#e-name") == "ana"
    shot(page, "entrant.png", full=True)


def test_a_record_row_opens_the_games_against_that_opponent(page: Any, folder: Path) -> None:
    _open(page, folder, "ana")
    assert page.get_attribute("#e-record tr[data-opponent=cheat] a", "href") == (
        "#games&entrant=ana&opponent=cheat")
    page.click("#e-record tr[data-opponent=cheat] a")
    page.wait_for_selector("#games:not([hidden])")
    both = [g["id"] for g in games_of(folder) if {"ana", "cheat"} <= set(g["entrants"])]
    ids = page.eval_on_selector_all("#g-rows tr", "rows => rows.map(r => r.dataset.game)")
    assert ids == both
    assert page.is_hidden("#entrant")
    page.go_back()  # back to its page
    page.wait_for_selector("#entrant:not([hidden])")
    assert page.text_content("#e-name") == "ana"


def test_its_faults_bluffing_and_games_are_shown_with_links_back(
    page: Any, folder: Path
) -> None:
    games = {g["id"]: g for g in games_of(folder)}
    _open(page, folder, "cheat")
    illegal = sum(f["kind"] == "illegal" and g["entrants"][f["seat"]] == "cheat"
                  for g in games.values() for f in g["faults"])  # fmt: skip
    assert illegal
    assert page.text_content("#e-faults .counts .count-illegal") == f"{illegal} illegal"
    links = page.eval_on_selector_all(
        "#e-faults li a", "links => links.map(a => a.getAttribute('href'))"
    )
    assert links and all(h.endswith("&back=entrant%3Dcheat") and "&fault=" in h for h in links)
    assert page.locator("#e-bluffing tr[data-entrant=cheat]").count() == 1
    worst = page.eval_on_selector_all("#e-worst li", "items => items.map(li => li.dataset.game)")
    faulted = [i for i, g in games.items()
               if any(g["entrants"][f["seat"]] == "cheat" for f in g["faults"])]  # fmt: skip
    assert 0 < len(faulted) < len(worst)
    assert set(worst[: len(faulted)]) == set(faulted)  # its faulted games come first
    for game_id in worst[len(faulted):]:  # then its losses
        g = games[game_id]
        assert g["placements"][g["entrants"].index("cheat")] > 1
    assert page.get_attribute("#e-games", "href") == "#games&entrant=cheat"


def test_best_games_are_its_widest_wins(page: Any, folder: Path) -> None:
    games = games_of(folder)
    _open(page, folder, "ana")
    wins = []
    for g in games:
        if "ana" not in g["entrants"]:
            continue
        seat = g["entrants"].index("ana")
        if g["placements"][seat] != 1 or any(f["seat"] == seat for f in g["faults"]):
            continue
        runner = g["scores"][g["placements"].index(2)]
        wins.append((-abs(g["scores"][seat] - runner), g["decisions"], g["id"]))
    best = page.eval_on_selector_all("#e-best li", "items => items.map(li => li.dataset.game)")
    assert best == [w[2] for w in sorted(wins, key=lambda w: w[:2])][:5]
    hrefs = page.eval_on_selector_all(
        "#e-best li a", "links => links.map(a => a.getAttribute('href'))"
    )
    assert hrefs and all(h.endswith("&back=entrant%3Dana") for h in hrefs)


def test_an_entrant_page_fits_a_phone(phone: Any, folder: Path) -> None:
    _open(phone, folder, "cheat")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    shot(phone, "entrant-phone.png", full=True)


def test_the_page_is_one_section_whatever_the_entrants(folder: Path) -> None:
    page = (folder / "report.html").read_text()
    assert page.count('<section id="entrant"') == 1
