"""README.md stays true: its example bot plays legally, and its commands are the real ones."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import arena
from arena.plugins import bot_from_file

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_opens_with_the_install_and_run_and_the_test_commands() -> None:
    blocks = re.findall(r"```sh\n(.*?)```", README.read_text(), re.DOTALL)
    assert blocks[0].strip() == "python -m pip install -e . && arena run configs/quickstart.yaml"
    assert blocks[1].strip() == "python -m pip install -e '.[test]' && python -m pytest"
    ci = (README.parent / ".ci" / "run").read_text()
    assert blocks[1].strip() in ci


@pytest.mark.parametrize(("rules", "players"), [("dice", 2), ("dice-cards", 3), ("cards", 4)])
def test_the_readme_bot_plays_legally(tmp_path: Path, rules: str, players: int) -> None:
    code = re.search(r"```python\n(.*?)```", README.read_text(), re.DOTALL)
    assert code is not None
    path = tmp_path / "cautious.py"
    path.write_text(code.group(1))
    bot = bot_from_file(path).factory
    record = arena.play_game(rules, [bot, *["random"] * (players - 1)], seed=4)
    assert record.faults == ()
    assert record.decisions > 0
