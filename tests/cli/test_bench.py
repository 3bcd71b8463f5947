"""`arena bench`: the lines it prints, with and without OpenSpiel's pyspiel (never a speed)."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from tests.needs import require

QUICK = ["bench", "--quick", "--seconds", "0.01", "--repeat", "1"]


def bench_lines(*extra: str) -> list[str]:
    result = CliRunner().invoke(cli, [*QUICK, *extra], catch_exceptions=False)
    assert result.exit_code == 0
    return result.output.splitlines()


def test_without_pyspiel_the_bench_says_so_in_one_line_and_measures_the_rest(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel raises ImportError
    header, rules, referee, footer, openspiel = bench_lines()
    assert header.split() == ["layer", "rules", "players", "games/s", "decisions/s", "vs", "rules"]
    assert rules.split()[:3] == ["rules", "dice", "2"] and rules.endswith(" 1.00")
    assert referee.split()[:3] == ["referee", "dice", "2"]
    assert footer == "(median of 1 runs of 0.01s each, one core)"
    assert openspiel == "OpenSpiel: not installed (pip install open_spiel)"


def test_with_pyspiel_the_referee_and_rules_are_timed_against_liars_dice() -> None:
    require(importlib.util.find_spec("pyspiel"), "OpenSpiel: pip install open_spiel")
    lines = bench_lines()[4:]
    assert lines[:4] == [
        "",
        ("against OpenSpiel's liars_dice (2 players, 5 dice each, an information-state string "
         "per decision),"),
        "arena's 2-player dice:",
        f"{'layer':10} {'us/decision':>11} {'vs OpenSpiel':>12}",
    ]
    assert [line.split()[0] for line in lines[4:7]] == ["openspiel", "rules", "referee"]
    assert lines[4].endswith(" 1.00")
    assert lines[7] == "(median of 1 interleaved runs of 0.01s each, one core)"


def test_the_breakdown_names_each_part_the_referee_adds_and_the_remainder() -> None:
    title, *parts, footer = bench_lines("--breakdown")
    assert title.startswith("2-player dice, inline random bots, us per decision")
    words = [line.rsplit(maxsplit=1)[0].strip() for line in parts]
    assert words[0].startswith("the rules layer") and words[-2] == "the referee, in all"
    assert any(w.startswith("the host call") for w in words)
    assert any(w.startswith("the event log") for w in words)
    assert any(w.startswith("each game's set-up") for w in words)
    assert words[-1].startswith("notify") and footer.startswith("(median of 1 interleaved")
    for line in parts:
        float(line.rsplit(maxsplit=1)[1])  # every part has its figure
