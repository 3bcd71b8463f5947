"""Entrant names on a phone: at 390 px every name the report shows (the standings, the
champions, the crosstable, the bluffing table, the spread, the faults, the games, an
entrant's page) is shown whole, wrapped if it must be, so `student-number-15` and
`student-number-45` never both read `student-num…`. Screenshots:
artifacts/names-phone-*.png."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from browser import shot, zoo_folder

NAMES = ("student15", "student45", "student-number-15", "student-number-45", "student99")
CONFIG = """\
name: names
rules: dice
options: {{on_fault: penalty, max_faults: 3, max_points: 2}}
entrants:
  - {{bot: random, alias: student15}}
  - {{bot: random, alias: student45}}
  - {{bot: random, alias: student-number-15}}
  - {{bot: statistician, alias: student-number-45}}
  - {{command: [{python}, {zoo}, illegal], alias: student99}}
format: {{type: FORMAT, seats: 2, games: 1MORE}}
isolation: none
seed: 5
workers: 1
"""

CLIPPED = """names => {
  const clipped = [];
  for (const el of document.querySelectorAll('main *, #entrant *')) {
    if (!el.getClientRects().length || !names.includes(el.textContent.trim())) continue;
    const svg = el.closest('svg');
    if (svg) {  // a chart's label: inside the chart, not cut off at its edge
      const [r, s] = [el.getBoundingClientRect(), svg.getBoundingClientRect()];
      if (r.left < s.left - 1 || r.right > s.right + 1) clipped.push(`${el.textContent} in svg`);
      continue;
    }
    for (let box = el; box && box !== document.body; box = box.parentElement) {
      const style = getComputedStyle(box);
      const hides = ['hidden', 'clip'].includes(style.overflowX);
      if (hides && box.scrollWidth > box.clientWidth + 1) {
        clipped.push(`${el.textContent.trim()} in ${box.tagName}.${box.className}`);
        break;
      }
    }
  }
  return clipped;
}"""
"""Every rendered element whose text is a name, and that an element around it cuts off
(overflow hidden, as `text-overflow: ellipsis` needs, with the name wider than the box),
or a chart's label that runs past the chart's edge."""
SHOWN = """names => [...document.querySelectorAll('main *, #entrant *')]
  .filter(el => el.getClientRects().length && names.includes(el.textContent.trim()))
  .map(el => el.textContent.trim())"""


@pytest.fixture(scope="session")  # before the browser: see conftest
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return zoo_folder(tmp_path_factory.mktemp("names"), "names",
                      CONFIG.replace("FORMAT", "round-robin").replace("MORE", ""))  # fmt: skip


@pytest.fixture(scope="session")  # before the browser: see conftest
def gauntlet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    more = ", champions: [student15, student45]"
    return zoo_folder(tmp_path_factory.mktemp("names-g"), "names",
                      CONFIG.replace("FORMAT", "gauntlet").replace("MORE", more))  # fmt: skip


def _check(phone: Any, shot_name: str) -> None:
    shown = phone.evaluate(SHOWN, list(NAMES))
    assert set(shown) == set(NAMES)  # every name is on the page somewhere
    assert phone.evaluate(CLIPPED, list(NAMES)) == []
    shot(phone, shot_name, full=True)


@pytest.mark.parametrize("which", ["league", "gauntlet"])
def test_every_name_in_the_report_is_whole_on_a_phone(
    phone: Any, which: str, request: pytest.FixtureRequest
) -> None:
    folder = request.getfixturevalue(which)
    phone.goto((folder / "report.html").as_uri())
    phone.wait_for_selector("table.standings tbody tr")
    # The standings' name column: whole, on one line or wrapped, and the two differ.
    cells = phone.eval_on_selector_all(
        "table.standings td.name", "cells => cells.map(c => [c.innerText, c.scrollWidth <= "
        "c.clientWidth + 1])")
    assert sorted(text.replace("\n", "") for text, _ in cells) == sorted(NAMES)
    assert all(whole for _, whole in cells), cells
    _check(phone, f"names-phone-{which}.png")


def test_an_entrant_page_shows_every_name_whole_on_a_phone(phone: Any, league: Path) -> None:
    phone.goto((league / "report.html").as_uri() + "#entrant=" + quote("student15"))
    phone.wait_for_selector("#entrant:not([hidden]) #e-record tr")
    clipped = phone.evaluate(CLIPPED, list(NAMES))
    assert clipped == []
    shown = phone.evaluate(SHOWN, list(NAMES))
    assert set(NAMES) - {"student15"} <= set(shown)
    shot(phone, "names-phone-entrant.png", full=True)
