"""Duplicate play deals the same dice twice, seats swapped: a bot process that had played
the first game of a pair would know its opponent's hand in the second. No process plays one
chance stream twice."""

from __future__ import annotations

import textwrap
from pathlib import Path

from click.testing import CliRunner

from arena.cli.main import cli

DIARIST = '''
import os

from arena_bots.random_bot import RandomBot

PROCESS = os.urandom(6).hex()


class Twin(RandomBot):
    """Notes which process it plays each game in (a bot at isolation none may write)."""

    name = "twin"
    options = {"log": ""}

    def start(self, context):
        super().start(context)
        with open(context.bot_options["log"], "a") as f:
            f.write(PROCESS + "\\n")
'''


def test_the_two_games_of_a_duplicate_pair_are_played_by_two_processes(tmp_path: Path) -> None:
    bot, log = tmp_path / "twin.py", tmp_path / "processes.log"
    bot.write_text(textwrap.dedent(DIARIST))
    args = ["compare", f"{bot}?log={log}", "random", "--games", "8", "--workers", "1",
            "--seed", "3", "--isolation", "none", "-q"]
    result = CliRunner().invoke(cli, args)
    assert "after 8 games" in result.output, result.output
    games = log.read_text().split()[1:]  # the first start is the dry run, before any game
    assert len(games) == 8
    pairs = [games[i:i + 2] for i in range(0, 8, 2)]
    assert all(first != second for first, second in pairs), pairs
    assert len(set(games)) < 8  # a process is still kept across games of different deals
