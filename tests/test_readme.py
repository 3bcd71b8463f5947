"""README.md stays true: its example bot plays legally, and its commands are the real ones."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import arena
from arena.cli.main import cli
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


def test_the_tours_replay_and_report_commands_work_on_the_quickstart_results(
    tmp_path: Path,
) -> None:
    tour = re.search(r"## A tour\n\n```sh\n(.*?)```", README.read_text(), re.DOTALL)
    assert tour is not None
    commands = [line.split("#")[0].split() for line in tour.group(1).splitlines()]
    on_results = [c[1:] for c in commands
                  if c[:2] in (["arena", "replay"], ["arena", "report"], ["arena", "publish"])]
    assert len(on_results) >= 4
    out = tmp_path / "quickstart"
    runner = CliRunner()
    ran = runner.invoke(cli, ["run", str(README.parent / "configs" / "quickstart.yaml"),
                              "--out", str(out), "--workers", "1", "--quiet"])  # fmt: skip
    assert ran.exit_code == 0, ran.output
    for args in on_results:
        result = runner.invoke(cli, [a.replace("results/quickstart", str(out))
                                     .replace("quickstart-site", str(tmp_path / "site"))
                                     for a in args])  # fmt: skip
        assert result.exit_code == 0, f"arena {' '.join(args)}: {result.output}"


def test_the_tours_game_with_a_person_starts_with_the_stakes() -> None:
    """The tour's `arena play ... human` line: the primer comes before the first prompt, and
    `help rules` answers there."""
    tour = re.search(r"## A tour\n\n```sh\n(.*?)```", README.read_text(), re.DOTALL)
    assert tour is not None
    plays = [line.split("#")[0].split()[1:] for line in tour.group(1).splitlines()
             if line.startswith("arena play") and "human" in line]
    assert plays
    for args in plays:
        result = CliRunner().invoke(cli, args, input="help rules\n")
        assert result.exit_code == 130, result.output  # the end of input stops the game
        lines = result.output.splitlines()
        assert lines[1].endswith("how a game goes (the full rules: docs/rules.md; 'help rules'"
                                 " at any prompt)")
        assert any(line.startswith("  every claim, lowest first") for line in lines)
