"""The command line: exact output and exit statuses of `arena bots`, `rules` and `play`."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import arena.plugins
from arena.cli import cli
from arena.plugins import Registry
from arena_bots.random_bot import RandomBot

PLAY_WITH_A_HUMAN = """\
dice, seed 4: seat 0 human, seat 1 random
-- round 1: seat 0 (human) throws --
  points: seat 0: 0  seat 1: 0
  under the cup: J K T T A   (positions 0-4)
  you decide: claim; lowest legal claim: high A
seat 0, claim > nonsense
  not understood: unknown action 'nonsense' (challenge, accept, look, reroll 0 3, \
claim pair J, pass three Q swap 0-2 reveal 1 3)
  try: claim pair J   |   claim full K 9   |   claim two-pair A 9
seat 0, claim > claim pair 9
seat 0 (human) sees [J K T T A], claims pair 9
seat 1 (random) looks, rerolls 2 dice, claims pair J
  points: seat 0: 0  seat 1: 0
  claim to beat: pair J (by seat 1)
  you decide: respond; lowest legal claim: pair Q
seat 0, respond > challenge
seat 0 (human) challenges seat 1's pair J: the hand is [K 9 T T A] (pair T), it was a lie
seat 1 (random) takes a point (1)
seat 1 (random) is out on points
-- game over --
result:
 1st  seat 0 (human)  0 points
 2nd  seat 1 (random)  1 point
"""


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)
    return result.exit_code, result.output


def test_play_prompts_a_human_and_narrates_the_game() -> None:
    code, output = run("play", "--rules", "dice", "--bots", "human,random", "--seed", "4",
                       "--option", "max_points=1",
                       input="nonsense\nclaim pair 9\nchallenge\n")
    assert code == 0
    assert output == PLAY_WITH_A_HUMAN


def test_play_with_bots_only_is_reproducible_and_ends_with_the_result() -> None:
    args = ("play", "--rules", "cards", "--bots", "random,random,random", "--seed", "3")
    first, second = run(*args), run(*args)
    assert first == second
    code, output = first
    assert code == 0
    assert output.startswith("cards, seed 3: seat 0 random, seat 1 random, seat 2 random\n")
    assert "-- central hand 1: seat 0 (random) takes it fresh (32 cards left to draw) --" in output
    assert output.splitlines()[-4] == "result:"
    assert "sees [" not in output  # private cards stay hidden without --reveal
    assert "sees [" in run(*args, "--reveal")[1]


@pytest.mark.parametrize(("args", "message"), [
    (("--bots", "random,randon"), "unknown bot 'randon' (did you mean 'random'?)"),
    (("--rules", "cards", "--bots", "random,random"), "cards is for 3 to 6 players, not 2"),
    (("--bots", "random"), "dice is for 2 to 6 players, not 1"),
    (("--rules", "poker", "--bots", "random,random"),
     "unknown rule set 'poker' (known: cards, dice, dice-cards)"),
    (("--bots", "random,random", "--option", "max_points=0"),
     "max_points: 0 is below the minimum 1"),
    (("--bots", "random,random", "--option", "colour=red"),
     ("colour: unknown option (known: look_must_reroll, max_faults, max_points, on_fault, "
     "receiver, reroll_once_per, straight_over_full)")),
    (("--bots", "random,random", "--option", "max_points"),
     "--option wants KEY=VALUE, got 'max_points'"),
])
def test_play_errors_are_one_line_with_status_2(args: tuple[str, ...], message: str) -> None:
    result = CliRunner().invoke(cli, ["play", *args])
    assert result.exit_code == 2
    assert result.output == f"arena: error: {message}\n"


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


def test_play_refuses_a_bot_that_does_not_play_the_rules(tmp_path) -> None:
    bot = tmp_path / "dice_only.py"
    bot.write_text(
        "import arena\n\n\nclass DiceOnly(arena.Bot):\n    name = 'dice-only'\n"
        "    rules = ('dice',)\n\n    def act(self, observation):\n"
        "        return observation.legal_actions()[0]\n"
    )
    result = CliRunner().invoke(cli, ["play", "--rules", "cards", "--bots",
                                      f"random,{bot},random"])
    assert result.exit_code == 2
    assert result.output == "arena: error: bot 'dice-only' (seat 1) does not play cards\n"
