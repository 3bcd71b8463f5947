"""What an organiser and a bot author do with a report, end to end in Chromium, across the
report's parts: from a crosstable cell to exactly that pair's games, into the viewer and
back to the same list; from a fault example to the step the bot faulted at, with what it
sent; from a name in the standings to its entrant page and on to its games."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from browser import games_of, shot, zoo_folder

CLASS = """\
name: class
rules: dice
options: {{on_fault: penalty, max_faults: 3, max_points: 3}}
entrants:
  - honest
  - {{bot: random, alias: ana}}
  - {{bot: random, alias: bruno}}
  - {{command: [{python}, {zoo}, illegal], alias: cheat}}
format: {{type: round-robin, seats: 2, games: 2}}
isolation: none
seed: 5
workers: 1
"""


@pytest.fixture(scope="session")  # before the browser: see conftest
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four entrants, two games a pair, one of them a bot that sends illegal moves."""
    return zoo_folder(tmp_path_factory.mktemp("journeys"), "class", CLASS)



def _listed(page: Any) -> list[str]:
    page.wait_for_selector("#g-rows tr[data-game]")
    return page.eval_on_selector_all(
        "#g-rows tr[data-game]", "rows => rows.map(r => r.dataset.game)"
    )


def test_a_crosstable_cell_opens_that_pairs_games_and_the_viewer_returns_to_them(
    page: Any, folder: Path
) -> None:
    pair = {"ana", "bruno"}
    wanted = [g["id"] for g in games_of(folder) if set(g["entrants"]) == pair]
    page.goto((folder / "report.html").as_uri())
    page.click('table.heat a[href="#games&entrant=ana&opponent=bruno"]')
    assert _listed(page) == wanted and len(wanted) == 4  # 2 games, each seat order
    page.click(f'#g-rows tr[data-game="{wanted[1]}"] a')
    page.wait_for_selector("#game:not([hidden])")
    assert page.text_content("#title") == f"Game {wanted[1]}"
    page.click("#back")  # the viewer's "← Report"
    assert _listed(page) == wanted
    page.go_back()  # and the browser's Back, to the viewer, then to the same list
    page.wait_for_selector("#game:not([hidden])")
    page.go_back()
    assert _listed(page) == wanted


def test_a_fault_example_opens_the_viewer_at_the_illegal_move_it_shows(
    page: Any, folder: Path
) -> None:
    page.goto((folder / "report.html").as_uri() + "#faults")
    example = page.locator('#faults [data-kind="illegal"]').first
    sent = (example.text_content() or "").strip()
    game = next(g for g in games_of(folder) if any(f["kind"] == "illegal" for f in g["faults"]))
    fault = next(f for f in game["faults"] if f["kind"] == "illegal")
    assert fault["sent"][:40] in sent  # what the bot sent, for its author to read
    example.locator("a").first.click()
    page.wait_for_selector("#game:not([hidden])")
    now = page.eval_on_selector_all("#log li.now.fault", "items => items.map(i => i.textContent)")
    assert any("illegal" in line for line in now), now  # opened at the faulted step
    shot(page, "journey-fault.png")


def test_a_name_in_the_standings_opens_its_page_and_itsgames_of(page: Any, folder: Path) -> None:
    page.goto((folder / "report.html").as_uri())
    page.click(f'table.standings a[href="#entrant={quote("cheat")}"]')
    page.wait_for_selector("#entrant:not([hidden])")
    assert "cheat" in (page.text_content("#entrant h2") or "")
    page.click('#entrant a[href="#games&entrant=cheat"]')
    mine = [g["id"] for g in games_of(folder) if "cheat" in g["entrants"]]
    assert sorted(_listed(page)) == sorted(mine)


MARKUP = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
INJECTOR = f'''\
import arena


class Injector(arena.Bot):
    """Crashes with markup in its message, which reaches the faults, its page and the viewer."""

    name = "injector"

    def act(self, observation):
        raise ValueError({MARKUP!r})
'''


def test_a_bots_fault_message_is_shown_as_text_never_run_as_markup(
    tmp_path: Path, page: Any
) -> None:
    (tmp_path / "injector.py").write_text(INJECTOR)
    config = CLASS.replace("  - {{command: [{python}, {zoo}, illegal], alias: cheat}}\n",
                           "  - {{bot: injector.py, alias: inject}}\n")
    folder = zoo_folder(tmp_path, "injected", config)
    assert any(MARKUP in f["message"] for g in games_of(folder) for f in g["faults"])
    for address in ("report.html#faults", "report.html#entrant=inject"):
        page.goto((folder / address).as_uri().replace("%23", "#"))
        page.wait_for_function("text => document.querySelector('main').textContent"
                               ".includes(text)", arg=MARKUP)  # shown, as text
        assert page.evaluate("window.pwned === undefined && !document.querySelector('img[src=x]')")
    page.click('#faults a[href*="fault="] >> nth=0')
    page.wait_for_selector("#game:not([hidden])")
    assert MARKUP in (page.text_content("#log") or "")
    assert page.evaluate("window.pwned === undefined && !document.querySelector('img[src=x]')")
