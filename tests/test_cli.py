"""The command line: exact output and exit statuses of `arena bots` and `rules` (`play`:
test_play.py)."""

from __future__ import annotations

import pytest
from arena_bots.random_bot import RandomBot
from click.testing import CliRunner

import arena.plugins
from arena.cli import cli
from arena.plugins import Registry


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)
    return result.exit_code, result.output


def test_bots_lists_name_origin_rules_and_description(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = Registry()
    registry.register(RandomBot, "arena 0.1.0", "0.1.0")
    monkeypatch.setattr(arena.plugins, "_DEFAULT", registry)
    code, output = run("bots")
    assert code == 0
    assert output == (
        "bot     origin       rule sets              description\n"
        "------  -----------  ---------------------  "
        "-----------------------------------------------------------------------------------\n"
        "random  arena 0.1.0  dice,dice-cards,cards  Plays a random legal action; claims stay "
        "near the lowest legal one so games finish.\n"
    )
    code, output = run("bots", "--json")
    assert '"name": "random"' in output


def test_rules_lists_every_rule_set_with_options_and_player_counts() -> None:
    code, output = run("rules")
    assert code == 0
    lines = output.splitlines()
    assert lines[0] == "cards (version 1): 3-6 players"
    assert "  chips               10       >= 1             chips each player starts with" in lines
    assert "dice (version 1): 2-6 players" in lines
    assert "dice-cards (version 1): 2-6 players" in lines
    assert sum("max_points" in line for line in lines) == 2
