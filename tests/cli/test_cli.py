"""The command line: exact output and exit statuses of `arena --version`, `bots` and `rules`
(`play`: test_play.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

import arena
from arena.cli.main import cli


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)
    return result.exit_code, result.output


def test_bots_lists_name_origin_rules_and_description() -> None:
    code, output = run("bots")
    assert code == 0
    header, dashes, *rows = output.splitlines()
    widths = [len(d) for d in dashes.split("  ")]
    cells = ("bot", "origin", "rule sets", "Elo (dice, dice-cards, cards)", "beat it for",
             "description")
    assert header == "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()
    code, listed = run("bots", "--json")
    bots = json.loads(listed)
    assert code == 0 and [b["name"] for b in bots] == sorted(b["name"] for b in bots)
    assert {"bluffer", "honest", "random", "statistician"} <= {b["name"] for b in bots}
    for row, bot in zip(rows, bots, strict=True):
        elo = "" if bot["elo"] is None else ", ".join(  # unmeasured (equilibrium): blank
            f"{bot['elo'][r]:+d}" for r in ("dice", "dice-cards", "cards"))
        values = (bot["name"], bot["origin"], bot["rules"], elo, bot["grade"] or "",
                  bot["description"])
        assert row == "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()
    assert {"name": "random", "origin": f"arena {arena.__version__}",
            "rules": "dice,dice-cards,cards",
            "elo": {"dice": 0, "dice-cards": 0, "cards": 0}, "grade": None,
            "description": "Plays a random legal action; claims stay near the lowest legal one "
                           "so games finish."} in bots  # fmt: skip


def test_rules_lists_every_rule_set_with_options_and_player_counts() -> None:
    code, output = run("rules")
    assert code == 0
    lines = output.splitlines()
    assert lines[0] == "cards (version 2): 3-6 players"
    assert "  chips               10       >= 1             chips each player starts with" in lines
    assert "dice (version 1): 2-6 players" in lines
    assert "dice-cards (version 1): 2-6 players" in lines
    assert sum("max_points" in line for line in lines) == 2


def test_version_is_said_in_clicks_words_every_way_it_is_asked() -> None:
    """`arena --version` is answered before click loads (arena.cli.main), in the very words
    click says it in: through click, `python -m arena` and the installed command's entry."""
    said = f"arena, version {arena.__version__}\n"
    assert run("--version") == (0, said)
    for code in ("from arena.cli import main; main()", "import runpy; runpy.run_module('arena')"):
        loaded = "; import sys; print('click' in sys.modules, 'arena.rules.base' in sys.modules)"
        done = subprocess.run([sys.executable, "-c", code + loaded, "--version"],
                              capture_output=True, text=True, check=False)
        assert (done.returncode, done.stdout, done.stderr) == (0, said + "False False\n", "")


def test_bots_lists_the_same_through_the_command_without_the_referee_engines_or_yaml() -> None:
    """`arena bots` reads the bots' classes and measured Elo, never the referee, a rule
    set's engine or a config reader: what the installed command prints, CliRunner prints."""
    heavy = ("arena.referee", "arena.rules.dice", "arena.rules.cards", "arena.tournament",
             "yaml", "arena.hosts.inline")
    code = ("import atexit, sys; atexit.register(lambda: sys.stderr.write(repr(sorted("
            f"m for m in sys.modules if m.startswith({heavy!r}))))); "
            "from arena.cli import main; main()")
    done = subprocess.run([sys.executable, "-c", code, "bots"], capture_output=True,
                          text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, run("bots")[1], "[]")


@pytest.mark.parametrize("seconds", ["nan", "inf", "0"])
def test_a_start_timeout_that_is_no_finite_positive_number_is_a_usage_error(
        seconds: str) -> None:
    code, output = run("play", "random", "random", "--start-timeout", seconds)
    assert code == 2 and "Invalid value for '--start-timeout'" in output, output
