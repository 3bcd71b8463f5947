"""What a bot says it is at hello (its card) is what arena checks before any game: a command
may say its rule sets and options and is refused in the same words as a Python bot; one that
says only its name is checked as before (not at all); a card arena cannot read is the bot's
protocol fault."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli

COMMAND = """\
import json
import sys

CARD = json.loads(sys.argv[1])
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {"type": "hello", "protocol": 2, **CARD}
    elif message["type"] == "start":
        reply = {"type": "ready"}
    elif message["type"] == "shutdown":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
"""


def _validate(tmp_path: Path, card: dict[str, object], rules: str = "dice",
              options: str = "") -> tuple[int, str, str]:
    script = tmp_path / "carded.py"
    script.write_text(COMMAND)
    argv = json.dumps([sys.executable, str(script), json.dumps(card)])
    config = tmp_path / "t.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: t
        rules: {rules}
        entrants:
          - random
          - honest
          - command: {argv}
            alias: carded
        """) + options)
    result = CliRunner().invoke(cli, ["validate", str(config)])
    return result.exit_code, result.stdout, result.stderr.replace(str(config), "t.yaml")


def test_a_command_that_says_its_rule_sets_is_refused_for_another(tmp_path: Path) -> None:
    card = {"name": "dice-only", "rules": ["dice"], "options": {"doubt": 0.5}}
    refused = "arena: error: t.yaml:6: entrants.2: bot 'dice-only' does not play 'cards' "
    assert _validate(tmp_path, card, "cards") == (2, "", refused + "(it plays dice)\n")
    code, out, err = _validate(tmp_path, card, "dice")
    assert (code, err) == (0, "")
    assert out.endswith("entrant 'carded' (command): says it is 'dice-only', plays dice\n")


def test_a_command_that_says_its_options_is_refused_an_unknown_one(tmp_path: Path) -> None:
    card = {"name": "doubter", "options": {"doubt": 0.5}}
    options = "    options: {nerve: 1}\n"
    refused = "arena: error: t.yaml:8: entrants.2.options.nerve: unknown option 'nerve' for "
    assert _validate(tmp_path, card, options=options) == (
        2, "", refused + "bot 'doubter' (known: doubt)\n")


def test_a_command_that_says_only_its_name_is_not_checked(tmp_path: Path) -> None:
    code, out, err = _validate(tmp_path, {"name": "terse"}, "cards", "    options: {x: 1}\n")
    assert (code, err) == (0, "")
    assert out.endswith("entrant 'carded' (command): says it is 'terse', rule sets not said\n")


@pytest.mark.parametrize(("card", "said"), [
    ({"name": "x", "rules": "dice"}, '"rules" is not a list of rule set ids'),
    ({"name": "x", "rules": [1, 2]}, '"rules" is not a list of rule set ids'),
    ({"name": "x", "options": ["doubt"]}, '"options" is not an object of bot options'),
    ({"name": "x", "rules": ["dice"] * 65}, '"rules" is not a list of rule set ids'),
    # a default nested 950 deep passed hello, then stopped the run pickling it for a worker:
    # a default is a number, a short text or a flat short list
    ({"name": "x", "options": {"k": [[1]]}}, '"options" is not an object of bot options'),
    ({"name": "x", "options": {"k": "d" * 201}}, '"options" is not an object of bot options'),
])
def test_a_card_arena_cannot_read_is_the_bots_protocol_fault(
        tmp_path: Path, card: dict[str, object], said: str) -> None:
    code, out, err = _validate(tmp_path, card)
    assert (code, out) == (2, "")
    assert err.startswith("arena: error: t.yaml:6: entrants.2.command: does not start for a "
                          "'dice' game of 2 seats: sent a hello whose ")
    assert said in err


def test_what_a_card_says_reaches_the_organiser_only_printable(tmp_path: Path) -> None:
    card = {"name": "x\x1b[2J", "rules": ["dice\x1b]0;pwned\x07"], "summary": "\x1b[31m"}
    code, out, err = _validate(tmp_path, card, "cards")
    assert (code, out) == (2, "")
    assert "\x1b" not in err and "\\x1b" in err
    assert err.endswith("bot 'x\\\\x1b[2J' does not play 'cards' (it plays "
                        "dice\\x1b]0;pwned\\x07)\n")
