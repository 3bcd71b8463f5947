"""Tests that the report reads back the names standings.csv and crosstable.csv quote for a
spreadsheet (arena/ratings/render.py's `sheet_cell`): the same entrants as games.jsonl."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from arena.ratings.render import crosstable_csv, standings_csv
from arena.ratings.summary import summarise
from arena.report.folder import read_folder
from arena.report.html import REPORT, build_report
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

CONFIG = """\
name: rr
rules: dice
options: {max_points: 1}
entrants: [random, {bot: random, alias: ana}]
format: {type: round-robin, seats: 2, games: 2}
seed: 5
workers: 1
replays: false
"""


def test_a_name_quoted_for_a_spreadsheet_is_read_back_as_it_was(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(CONFIG, "utf-8")
    out = tmp_path / "out"
    run_tournament(load_tournament(tmp_path / "t.yaml"), out, workers=1)
    renamed = tmp_path / "renamed"
    shutil.copytree(out, renamed)
    for name in ("games.jsonl", "ratings.json"):
        text = (renamed / name).read_text("utf-8").replace('"ana"', '"-ana"')
        (renamed / name).write_text(text, "utf-8")
    games = [json.loads(line) for line in (renamed / "games.jsonl").read_text("utf-8").splitlines()]
    summary = summarise(games, ["-ana", "random"])
    (renamed / "standings.csv").write_text(standings_csv(summary.standings()), "utf-8")
    (renamed / "crosstable.csv").write_text(crosstable_csv(summary.crosstable()), "utf-8")
    assert "'-ana," in (renamed / "standings.csv").read_text("utf-8")

    folder = read_folder(renamed)
    assert sorted(row["entrant"] for row in folder.standings) == ["-ana", "random"]
    assert {(r["entrant"], r["opponent"]) for r in folder.crosstable} == {
        ("-ana", "random"), ("random", "-ana")}
    build_report(renamed)
    assert 'data-entrant="-ana"' in (renamed / REPORT).read_text("utf-8")
