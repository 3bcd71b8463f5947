"""The report's header says what was played, from config.yaml as run (rules and options,
format, limits, isolation, seeds, when), and links the folder's files; the spread of scores
is each entrant's quartiles of the scores in games.jsonl."""

from __future__ import annotations

import datetime
import html
import json
import os
import re
import statistics
from importlib import resources
from pathlib import Path

import pytest
import yaml

from arena.report.charts import heat_styles
from arena.report.folder import read_folder
from arena.report.header import FILES, header_facts
from arena.report.html import REPORT, build_report
from arena.report.spread import spreads
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

CONFIG = """\
name: told
rules: dice
options: {max_points: 2, receiver: loser_chooses}
entrants: [random, {bot: random, alias: ana}, {bot: random, alias: bruno}]
format: {type: round-robin, seats: 3, games: 2}
limits: {decision: 0.5, game: 20}
isolation: none
workers: 1
"""


@pytest.fixture(scope="module")
def told(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("told")
    (root / "told.yaml").write_text(CONFIG)
    run_tournament(load_tournament(root / "told.yaml"), root / "told", workers=1)
    return root / "told"


def _facts(folder: Path) -> dict[str, str]:
    found = re.findall(r"<dt>([^<]+)</dt><dd>(.*?)</dd>", header_facts(read_folder(folder)))
    return {name: html.unescape(re.sub(r"<[^>]+>", " ", text)) for name, text in found}


def test_the_header_says_what_the_config_as_run_played(told: Path) -> None:
    facts = _facts(told)
    as_run = yaml.safe_load((told / "config.yaml").read_text())
    for option, value in as_run["options"].items():  # every option, the defaults too
        shown = {True: "yes", False: "no"}.get(value, value) if isinstance(value, bool) else value
        assert f"{option} {shown}" in facts["rules"]
    assert "max_points 2" in facts["rules"] and "receiver loser_chooses" in facts["rules"]
    assert facts["format"].startswith("round-robin, 3 seats a table, 2 games a seating")
    assert facts["time limits"] == "0.5 s a decision, a 20.0 s bank a game, wall clock × 2.0"
    assert facts["isolation"] == "none"
    assert facts["seeds"].startswith("one tournament seed, kept secret")
    assert facts["replays"] == "kept for every game"


def test_the_date_is_when_games_jsonl_was_last_written(told: Path) -> None:
    when = datetime.datetime(2026, 3, 14, 15, 9, 26, tzinfo=datetime.UTC).timestamp()
    os.utime(told / "games.jsonl", (when, when))
    assert _facts(told)["played"] == "2026-03-14 15:09 UTC (games.jsonl last written)"


def test_the_header_links_every_file_of_the_folder_that_is_there(told: Path) -> None:
    build_report(told)
    page = (told / REPORT).read_text()
    header = page[page.index('<header class="top">') : page.index("</header>")]
    linked = re.findall(r'<a href="([^"#]+)">', header)
    assert linked == [name for name in FILES if (told / name).exists()]
    assert {"config.yaml", "games.jsonl", "standings.csv"} <= set(linked)
    assert all((told / name).is_file() for name in linked)


def test_the_spread_is_each_entrants_quartiles_of_its_scores(told: Path) -> None:
    games = [json.loads(line) for line in (told / "games.jsonl").read_text().splitlines()]
    found = spreads(read_folder(told))
    assert [s.entrant for s in found] == [e for e in read_folder(told).entrants]
    for s in found:
        scores = [g["scores"][g["entrants"].index(s.entrant)] for g in games
                  if s.entrant in g["entrants"]]  # fmt: skip
        q1, median, q3 = statistics.quantiles(scores, n=4, method="inclusive")
        assert (s.games, s.low, s.high) == (len(scores), min(scores), max(scores))
        assert (s.q1, s.median, s.q3) == pytest.approx((q1, median, q3))
        assert s.mean == pytest.approx(statistics.fmean(scores))


def test_report_css_holds_the_heat_maps_shades_from_its_colour_scale() -> None:
    css = resources.files("arena.report").joinpath("static", "report.css").read_text()
    assert heat_styles() in css
    assert css.count("table.heat td.h") == heat_styles().count("\n") == 21
