"""Formula injection in the site's CSV exports (the organiser's leaderboard, the teacher's
gradebook): every cell a spreadsheet would run, by any of the ways one starts (OWASP's =, +,
-, @, a tab, a carriage return), is written as text, and reads back as it was."""

from __future__ import annotations

import csv
import io

import pytest

from arena.ratings.render import sheet_text
from arena.site.contest.admin import LEADERBOARD, rows_csv

FORMULAS = ("=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(1)", "\t=1+1", "\r=1+1", "'quoted")


@pytest.mark.parametrize("name", FORMULAS)
def test_the_leaderboard_export_never_writes_a_formula(name: str) -> None:
    row = {"rank": 1, "player": name, "entrant": f"{name}@1", "version": 1, "elo": 1500.0,
           "low": 1400.0, "high": 1600.0, "games": 4, "faults": 0, "provisional": False,
           "tied": False}
    rows = list(csv.DictReader(io.StringIO(rows_csv([row]), newline="")))
    assert len(rows) == 1 and list(rows[0]) == list(LEADERBOARD)
    for column in ("player", "entrant"):
        cell = rows[0][column]
        assert cell.startswith("'"), (column, cell)
        assert sheet_text(cell) == str(row[column])
