"""`arena validate` and `arena run` refuse, before any game, entrants that can only fail:
each entrant is started once the way it will run, and config paths are the config's own."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]

DICE_ONLY = '''
import json
import sys

# A command bot that plays only dice, as docs/protocol.md lets it say: an `error` answer.
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {"type": "hello", "protocol": 2, "name": "dice-only"}
    elif message["type"] == "start" and message["context"]["rules"] != "dice":
        reply = {"type": "error", "message": "I play only dice"}
    elif message["type"] == "start":
        reply = {"type": "ready"}
    elif message["type"] == "shutdown":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
'''

FILE_BOT = '''
import arena
from arena.rules.playout import random_action


class Mine(arena.Bot):
    """A student's bot next to its config."""

    name = "mine"

    def act(self, observation):
        return random_action(observation.legal, self.rng)
'''


def _invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def _refused(config: Path, out: Path) -> str:
    """The one error line of `validate`, checked to be the very line `run` stops with."""
    checked = _invoke("validate", config)
    assert (checked.exit_code, checked.stdout) == (2, ""), checked.output
    assert checked.stderr.startswith("arena: error: ") and checked.stderr.count("\n") == 1
    ran = _invoke("run", config, "--out", out, "-q")
    assert (ran.exit_code, ran.stdout, ran.stderr) == (2, "", checked.stderr)
    assert not out.exists(), "a refused entrant must stop the run before any game"
    return checked.stderr.removeprefix("arena: error: ").rstrip("\n")


def _command_config(tmp_path: Path, command: str, rules: str = "dice") -> Path:
    return _write(tmp_path / "t.yaml", f"""
        name: t
        rules: {rules}
        entrants:
          - random
          - honest
          - command: {command}
            alias: theirs
        format: {{type: round-robin, seats: 3}}
    """)


# --- item 4: entrants that can only fail --------------------------------------------------


def test_a_command_program_that_does_not_exist_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = _command_config(tmp_path, '["./no-such-bot", "--fast"]')
    assert _refused(config, tmp_path / "out") == (
        f"{config}:6: entrants.2.command: program '{tmp_path}/no-such-bot' not found "
        f"(looked at {tmp_path}/no-such-bot)"
    )


def test_a_command_program_not_on_the_path_is_refused(tmp_path: Path) -> None:
    config = _command_config(tmp_path, "[no-such-bot-anywhere]")
    assert _refused(config, tmp_path / "out") == (
        f"{config}:6: entrants.2.command: program 'no-such-bot-anywhere' is not on the PATH"
    )


def test_a_command_program_that_is_not_executable_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "bot.sh", "echo hello\n")
    config = _command_config(tmp_path, "[./bot.sh]")
    assert _refused(config, tmp_path / "out") == (
        f"{config}:6: entrants.2.command: {tmp_path}/bot.sh is not executable "
        f"(make it executable, or name its interpreter first: [sh, {tmp_path}/bot.sh])"
    )


def test_a_bot_option_value_the_bot_refuses_is_refused_at_the_option(tmp_path: Path) -> None:
    config = _write(tmp_path / "t.yaml", """
        name: t
        rules: dice
        entrants:
          - random
          - bot: statistician
            options:
              threshold: abc
    """)
    error = _refused(config, tmp_path / "out")
    assert error.startswith(
        f"{config}:7: entrants.1.options.threshold: bot 'statistician' does not start with "
        "this option: "
    )
    assert "option threshold must be a number, not 'abc'" in error


def test_a_refused_option_in_process_mode_is_found_in_the_process(tmp_path: Path) -> None:
    config = _write(tmp_path / "t.yaml", """
        name: t
        rules: dice
        entrants:
          - random
          - bot: statistician
            mode: process
            options: {threshold: 2}
    """)
    error = _refused(config, tmp_path / "out")
    assert error.startswith(
        f"{config}:7: entrants.1.options.threshold: bot 'statistician' does not start with "
        "this option: "
    )
    assert "option threshold must be within 0..1, not 2" in error


def test_a_dice_only_command_bot_is_refused_in_a_cards_tournament(tmp_path: Path) -> None:
    script = _write(tmp_path / "dice_only.py", DICE_ONLY)
    command = f'["{sys.executable}", "{script}"]'
    ok = _invoke("validate", _command_config(tmp_path, command, "dice"))
    assert (ok.exit_code, ok.stderr) == (0, "")
    assert ok.stdout == ("ok: 3 entrants, 3 games\n"  # what its dry run said, one line
                         "entrant 'theirs' (command): says it is 'dice-only', rule sets not said\n")
    config = _command_config(tmp_path, command, "cards")
    error = _refused(config, tmp_path / "out")
    assert error.startswith(
        f"{config}:6: entrants.2.command: does not start for a 'cards' game of 3 seats: "
    )
    assert error.endswith("I play only dice")


def test_a_dice_only_python_bot_is_refused_in_a_cards_tournament(tmp_path: Path) -> None:
    _write(tmp_path / "dice_bot.py", FILE_BOT.replace('name = "mine"',
                                                       'name = "mine"\n    rules = ("dice",)'))
    config = _write(tmp_path / "t.yaml", """
        name: t
        rules: cards
        entrants: [random, honest, dice_bot.py]
    """)
    assert _refused(config, tmp_path / "out") == (
        f"{config}:3: entrants.2: bot 'mine' does not play 'cards' (it plays dice)"
    )


def test_an_entrant_that_starts_passes_in_every_mode(tmp_path: Path) -> None:
    """Inline, process and command entrants that start are fine, and are stopped again."""
    from arena.hosts.process_tree import leftovers

    example = ROOT / "bots" / "examples" / "example_bot.py"
    config = _write(tmp_path / "t.yaml", f"""
        name: t
        rules: dice
        entrants:
          - random
          - bot: statistician
            mode: process
            options: {{threshold: 0.3}}
          - command: ["{sys.executable}", "{example}"]
            alias: example
    """)
    result = _invoke("validate", config)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == ("ok: 3 entrants, 6 games\n"
                             "entrant 'example' (command): says it is 'example-py', rule sets "
                             "not said\n")
    assert leftovers() == []


def test_an_inline_bot_that_never_starts_is_stopped_at_the_start_timeout() -> None:
    import random
    from types import MappingProxyType

    import arena
    from arena.bot import BotContext, Limits
    from arena.hosts.inline import InlineHost
    from arena.trial import start_problem

    class Stuck(arena.Bot):
        name = "stuck"

        def start(self, context: BotContext) -> None:
            while True:
                pass

    context = BotContext(0, 2, "dice", MappingProxyType({}), Limits(), random.Random(1))
    assert start_problem(InlineHost(Stuck), context, timeout=0.2) == "did not start within 0.2s"


# --- item 4: compare ----------------------------------------------------------------------


def test_compare_with_a_bot_option_the_bot_refuses_is_a_usage_error() -> None:
    result = _invoke("compare", "statistician?threshold=abc", "random", "--workers", "1")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(
        "arena: error: bot 'statistician?threshold=abc' does not start for a 'dice' game of "
        "2 seats: "
    )
    assert "option threshold must be a number, not 'abc'" in result.stderr
    assert result.stderr.count("\n") == 1


def test_compare_with_a_command_that_does_not_exist_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = _invoke("compare", "cmd:./nope", "random", "--workers", "1")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"arena: error: bot 'cmd:./nope': program './nope' not found (looked at {tmp_path}/nope)\n"
    )


# --- item 9: paths and the gauntlet -------------------------------------------------------


def test_a_bot_file_is_found_relative_to_the_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path / "contest" / "mine.py", FILE_BOT)
    config = _write(tmp_path / "contest" / "t.yaml", """
        name: t
        rules: dice
        entrants: [random, mine.py]
    """)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = _invoke("validate", config)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (f"ok: 2 entrants, 2 games\nentrant 'mine' (process, file "
                             f"{tmp_path}/contest/mine.py): says it is 'mine', plays dice, "
                             "dice-cards, cards\n")
    ran = _invoke("run", config, "--out", tmp_path / "out", "-q", "--workers", "1")
    assert ran.exit_code == 0, ran.output
    games = (tmp_path / "out" / "games.jsonl").read_text().splitlines()
    assert len(games) == 2 and all('"faults":[]' in game for game in games)
    assert '"mine"' in games[0]


def test_a_missing_bot_file_names_where_it_was_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _write(tmp_path / "contest" / "t.yaml", """
        name: t
        rules: dice
        entrants:
          - random
          - bot: bots/mine.py
    """)
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "bots" / "mine.py", FILE_BOT)  # where the old rule would have found it
    assert _refused(config, tmp_path / "out") == (
        f"{config}:5: entrants.1.bot: bot file 'bots/mine.py' not found: looked at "
        f"{tmp_path}/contest/bots/mine.py (a bot file is found relative to the config file; "
        "the one in the current folder would be '../bots/mine.py')"
    )
    os.remove(tmp_path / "bots" / "mine.py")
    assert _refused(config, tmp_path / "out") == (
        f"{config}:5: entrants.1.bot: bot file 'bots/mine.py' not found: looked at "
        f"{tmp_path}/contest/bots/mine.py (a bot file is found relative to the config file)"
    )


def test_a_gauntlet_with_too_few_challengers_is_a_one_line_config_error(tmp_path: Path) -> None:
    config = _write(tmp_path / "t.yaml", """
        name: t
        rules: dice
        entrants: [random, honest, bluffer, statistician]
        format:
          type: gauntlet
          seats: 3
          champions: [random, honest, bluffer]
    """)
    assert _refused(config, tmp_path / "out") == (
        f"{config}:7: format.champions: a gauntlet of 3 seats needs at least 2 challengers "
        "(entrants that are not champions), got 1"
    )


LIMITS_CHECKER = '''
import json
import sys

# A command bot that refuses to start unless it is told the config's time limits.
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {"type": "hello", "protocol": 2, "name": "limits-checker"}
    elif message["type"] == "start":
        limits = message["context"]["limits"]
        told = (limits["decision"], limits["bank"], limits["wall_factor"])
        reply = ({"type": "ready"} if told == (0.5, 7.0, 3.0)
                 else {"type": "error", "message": f"told the limits {told}"})
    elif message["type"] == "shutdown":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
'''


def test_an_entrant_is_started_with_the_configs_time_limits(tmp_path: Path) -> None:
    """validate starts each entrant with the limits its games will have, the wall factor too."""
    checker = _write(tmp_path / "checker.py", LIMITS_CHECKER)
    config = _write(tmp_path / "t.yaml", f"""
        name: t
        rules: dice
        entrants:
          - random
          - command: ["{sys.executable}", "{checker}"]
            alias: checker
        limits: {{decision: 0.5, game: 7, wall_factor: 3}}
    """)
    result = _invoke("validate", config)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == ("ok: 2 entrants, 2 games\n"
                             "entrant 'checker' (command): says it is 'limits-checker', rule "
                             "sets not said\n")
