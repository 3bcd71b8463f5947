"""The games list and the faults section in a real headless Chromium: the list filters by
entrant, opponent, result, fault kind and stage, sorts by its heads, and keeps its filter in
the address (report.html#games&...), through a trip to the viewer and Back; the faults
section shows examples of every kind each entrant had, with what the bot sent, each opening
the viewer at that fault. The faulty bots are the wire zoo's (tests/hosts/zoo/wire.py).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from browser import games_of, shot, zoo_folder

from arena.report.html import build_report

FAULTY = """\
name: faulty
rules: dice
options: {{on_fault: penalty, max_faults: 3, max_points: 2}}
entrants:
  - {{bot: random, alias: ana}}
  - {{command: [{python}, {zoo}, junk], alias: junky}}
  - {{command: [{python}, {zoo}, illegal], alias: cheat}}
  - {{command: [{python}, {zoo}, silent], alias: mute}}
  - {{command: [{python}, {zoo}, close], alias: closer}}
limits: {{decision: 0.05}}
format: {{type: round-robin, seats: 2, games: 1}}
isolation: none
seed: 3
workers: 2
"""
KINDS = {"junky": "protocol", "cheat": "illegal", "mute": "timeout", "closer": "crash"}


@pytest.fixture(scope="session")  # before the browser: see conftest
def faulty_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A round robin where four bots time out, crash, move illegally and break the protocol,
    and one plays (20 games: a second well-behaved bot added 10 more and no kind of fault).
    Its 32 zoo starts skip `site` (see zoo_folder); the zoo vs zoo games stay: cheat's wins
    and closer's three crash examples are in them."""
    return zoo_folder(tmp_path_factory.mktemp("faulty"), "faulty", FAULTY, workers=2)



def _shown_ids(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        "#g-rows tr[data-game]", "rows => rows.map(r => r.dataset.game)"
    )


def _count(page: Any) -> tuple[int, int]:
    text = page.text_content("#g-count")
    found = re.match(r"([\d,]+) of ([\d,]+) games", text)
    assert found, text
    return int(found.group(1).replace(",", "")), int(found.group(2).replace(",", ""))


def _open(page: Any, folder: Path, address: str = "") -> None:
    page.goto((folder / "report.html").as_uri() + address)
    page.wait_for_selector("#g-rows tr")


# --- the games list -----------------------------------------------------------------------


def test_a_filter_survives_a_trip_to_the_viewer_and_back(page: Any, dice_folder: Path) -> None:
    games = games_of(dice_folder)
    _open(page, dice_folder)
    assert _count(page) == (len(games), len(games))
    page.select_option("#f-entrant", "ana")
    page.select_option("#f-result", "won")
    won = [g["id"] for g in games if "ana" in g["entrants"]
           and g["placements"][g["entrants"].index("ana")] == 1]  # fmt: skip
    assert _shown_ids(page) == won[:50]
    assert _count(page) == (len(won), len(games))
    assert page.url.endswith("report.html#games&entrant=ana&result=won")
    link = page.get_attribute("#g-rows a >> nth=0", "href")
    assert link == f"viewer.html#game={won[0]}&pack=0&back=games%26entrant%3Dana%26result%3Dwon"
    page.click("#g-rows a >> nth=0")
    page.wait_for_selector("#game:not([hidden])")
    page.go_back()
    page.wait_for_selector("#g-rows tr")
    assert page.input_value("#f-entrant") == "ana"
    assert _shown_ids(page) == won[:50]
    assert _count(page) == (len(won), len(games))


def test_an_address_with_a_filter_opens_the_filtered_list(page: Any, faulty_folder: Path) -> None:
    games = games_of(faulty_folder)
    _open(page, faulty_folder, "#games&entrant=cheat&opponent=ana")
    both = [g["id"] for g in games if {"cheat", "ana"} <= set(g["entrants"])]
    assert both and _shown_ids(page) == both
    assert _count(page) == (len(both), len(games))
    assert page.input_value("#f-opponent") == "ana"
    page.evaluate("location.hash = 'games&fault=none&entrant=junky'")  # as a link would
    page.wait_for_function("document.getElementById('f-fault').value === 'none'")
    clean = [g["id"] for g in games if "junky" in g["entrants"]
             and not any(g["entrants"][f["seat"]] == "junky" for f in g["faults"])]  # fmt: skip
    assert _shown_ids(page) == clean
    page.go_back()  # Back restores the earlier filter
    page.wait_for_function("document.getElementById('f-opponent').value === 'ana'")
    assert _shown_ids(page) == both


@pytest.mark.parametrize("kind", ["timeout", "crash", "illegal", "protocol"])
def test_the_list_filters_by_fault_kind(page: Any, faulty_folder: Path, kind: str) -> None:
    games = games_of(faulty_folder)
    _open(page, faulty_folder, f"#games&fault={kind}")
    expected = [g["id"] for g in games if any(f["kind"] == kind for f in g["faults"])]
    assert expected and _shown_ids(page) == expected


def test_the_list_filters_by_place_and_stage(page: Any, faulty_folder: Path) -> None:
    games = games_of(faulty_folder)
    _open(page, faulty_folder, "#games&entrant=cheat&result=placed-2&stage=main")
    second = [g["id"] for g in games if "cheat" in g["entrants"]
              and g["placements"][g["entrants"].index("cheat")] == 2]  # fmt: skip
    placed = {g["placements"][g["entrants"].index("cheat")] for g in games
              if "cheat" in g["entrants"]}  # fmt: skip
    assert placed == {1, 2}  # its won games are left out
    assert second and _shown_ids(page) == second
    _open(page, faulty_folder, "#games&entrant=cheat&result=lost")
    assert _shown_ids(page) == second  # two seats: lost is placed 2


def test_clicking_a_head_sorts_and_the_sort_is_in_the_address(
    page: Any, faulty_folder: Path
) -> None:
    games = games_of(faulty_folder)
    _open(page, faulty_folder)
    page.click("th[data-sort=decisions] button")
    by_decisions = sorted(games, key=lambda g: g["decisions"])  # stable: log order in ties
    assert _shown_ids(page) == [g["id"] for g in by_decisions]
    assert page.url.endswith("#games&sort=decisions")
    page.click("th[data-sort=decisions] button")
    down = sorted(games, key=lambda g: -g["decisions"])
    assert _shown_ids(page) == [g["id"] for g in down]
    assert page.get_attribute("th[data-sort=decisions]", "aria-sort") == "descending"
    page.reload()
    page.wait_for_selector("#g-rows tr")
    assert _shown_ids(page) == [g["id"] for g in down]


def test_a_filter_that_matches_nothing_says_so(page: Any, faulty_folder: Path) -> None:
    _open(page, faulty_folder, "#games&entrant=ana&fault=crash")
    assert _shown_ids(page) == [] and _count(page)[0] == 0
    assert page.text_content("#g-rows") == "No game matches."


def test_a_faulted_games_row_ends_with_its_faults_seat_and_kind(faulty_folder: Path) -> None:
    page = (faulty_folder / "report.html").read_text()
    found = re.search(r'id="games-data">(.*?)</script>', page, re.DOTALL)
    assert found
    rows = json.loads(found.group(1))["games"]
    kinds = ["timeout", "crash", "illegal", "protocol"]
    for row, game in zip(rows, games_of(faulty_folder), strict=True):
        tail = [[f["seat"], kinds.index(f["kind"])] for f in game["faults"]]
        assert row[9:] == ([tail] if tail else []), game["id"]


# --- the faults section -------------------------------------------------------------------


def _examples(page: Any, entrant: str) -> list[dict[str, Any]]:
    return page.eval_on_selector_all(
        f'table.faults tr[data-entrant="{entrant}"] ul.examples li',
        "items => items.map(li => ({kind: li.dataset.kind, text: li.textContent,"
        " href: li.querySelector('a') && li.querySelector('a').getAttribute('href')}))",
    )


def test_the_faults_show_every_kind_with_what_was_sent_at_the_faults_step(
    page: Any, faulty_folder: Path
) -> None:
    games = {g["id"]: g for g in games_of(faulty_folder)}
    _open(page, faulty_folder, "#faults")
    for entrant, kind in KINDS.items():
        shown = _examples(page, entrant)
        assert shown and {e["kind"] for e in shown} == {kind}, entrant
        for example in shown:
            found = re.match(r"viewer\.html#game=([^&]+)&pack=0&fault=(\d+)&back=faults$",
                             example["href"])  # fmt: skip
            assert found, example["href"]
            fault = games[found.group(1)]["faults"][int(found.group(2))]
            assert games[found.group(1)]["entrants"][fault["seat"]] == entrant
            assert fault["kind"] == kind and fault["message"][:60] in example["text"]
            if kind in ("illegal", "protocol"):
                assert "sent " + fault["sent"][:40] in example["text"]
    shot(page, "faults.png")


def test_a_crasher_that_also_moves_illegally_shows_both_kinds(
    page: Any, faulty_folder: Path, tmp_path: Path
) -> None:
    """An entrant with many crashes and one illegal move: the illegal one is shown too."""
    copy = tmp_path / "copy"
    shutil.copytree(faulty_folder, copy, ignore=shutil.ignore_patterns(".lock"))
    games = games_of(copy)
    crashed = [g for g in games if any(f["kind"] == "crash" for f in g["faults"])]
    last = crashed[-1]
    seat = last["entrants"].index("closer")
    last["faults"].append({"seat": seat, "kind": "illegal", "message": "not now",
                           "sent": '{"type": "action"}'})  # fmt: skip
    (copy / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    build_report(copy)
    _open(page, copy, "#faults")
    shown = _examples(page, "closer")
    assert [e["kind"] for e in shown] == ["crash"] * 3 + ["illegal"]
    assert shown[-1]["href"].endswith(f"fault={len(last['faults']) - 1}&back=faults")
    assert 'sent {"type": "action"}' in shown[-1]["text"]


def test_the_list_at_phone_width_does_not_scroll_sideways(phone: Any, faulty_folder: Path) -> None:
    _open(phone, faulty_folder, "#games&fault=any")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    box = phone.evaluate(
        "(() => { const b = document.querySelector('#games .scroll');"
        " return [b.scrollWidth, b.clientWidth]; })()"
    )
    assert box[0] <= box[1]  # one stage: the list itself fits, nothing scrolls inside it
    shot(phone, "games-list-phone.png")


def test_fault_links_in_the_list_open_the_entrants_own_fault(
    page: Any, faulty_folder: Path
) -> None:
    games = {g["id"]: g for g in games_of(faulty_folder)}
    _open(page, faulty_folder, "#games&entrant=mute&fault=timeout")
    links = page.eval_on_selector_all(
        "#g-rows td.warn a", "links => links.map(a => a.getAttribute('href'))"
    )
    assert links
    for href in links:
        found = re.match(r"viewer\.html#game=([^&]+)&pack=0&fault=(\d+)&back=(.*)$", href)
        assert found, href
        game = games[found.group(1)]
        assert game["entrants"][game["faults"][int(found.group(2))]["seat"]] == "mute"
        assert unquote(found.group(3)) == "games&entrant=mute&fault=timeout"
