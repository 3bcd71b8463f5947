"""A crash says where in the bot's own code it happened, wherever a fault is shown: `arena
play`, `arena check-bot`, the warning at the end of `arena run`, report.html and `arena
replay`; in a bot's own process as inline, and never with a frame of arena's."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from cli_support import invoke_cli, write_config

MY_BOT = '''\
"""A student's first bot: it looks up a hand the table does not hold."""

import arena

TABLE = {"left": 1}


def lookup(name):
    return TABLE[name]


class MyBot(arena.Bot):
    name = "my-bot"
    rules = ("dice",)

    def act(self, obs):
        if obs.decision == "claim":
            return self.pick(obs)
        return arena.random_action(obs.legal, self.rng)

    def pick(self, obs):
        lookup("central")
        return arena.Bid(obs.min_claim)
'''
TRACE = ["my_bot.py:18 in MyBot.act: return self.pick(obs)",
         'my_bot.py:22 in MyBot.pick: lookup("central")',
         "my_bot.py:9 in lookup: return TABLE[name]"]
"""The trace every place shows for MY_BOT's crash, innermost last."""
SHOWN = "".join(f"\n    {frame}" for frame in TRACE)
"""How a terminal shows it: a frame a line, below the fault."""
MODES = ["process", "inline"]


@pytest.fixture
def my_bot(tmp_path: Path) -> Path:
    path = tmp_path / "my_bot.py"
    path.write_text(MY_BOT)
    assert MY_BOT.splitlines()[17].strip() == "return self.pick(obs)"  # line 18
    return path


def trust(mode: str) -> list[str]:
    return ["--trust"] if mode == "inline" else []


def no_arena_frames(text: str) -> None:
    assert "referee.py" not in text and "launcher.py" not in text and "inline.py" not in text


@pytest.mark.parametrize("mode", MODES)
def test_play_shows_where_the_bot_crashed(my_bot: Path, mode: str) -> None:
    result = invoke_cli("play", "--rules", "dice", "--bots", f"{my_bot},random", "--seed", "3",
                        *trust(mode))
    assert f"FAULT crash: KeyError: 'central'{SHOWN}\n" in result.output, result.output
    no_arena_frames(result.output)


@pytest.mark.parametrize("mode", MODES)
def test_check_bot_shows_where_the_bot_crashed_below_the_failed_line(my_bot: Path,
                                                                    mode: str) -> None:
    result = invoke_cli("check-bot", str(my_bot), *trust(mode))
    assert result.exit_code == 1
    assert re.search(r"\n✗ dice: answers every decision: \d+ of \d+ answers went wrong, the "
                     r"first \(a 'claim'\): it crashed: KeyError: 'central'" + re.escape(SHOWN)
                     + "\n", result.output), result.output
    no_arena_frames(result.output)


@pytest.mark.parametrize("mode", MODES)
def test_a_run_its_report_and_its_replays_show_where_the_bot_crashed(
        tmp_path: Path, my_bot: Path, mode: str) -> None:
    config = write_config(tmp_path, f"""
        name: traced
        rules: dice
        entrants:
          - {{bot: {my_bot}, alias: mine, mode: {mode}}}
          - random
        format: {{type: round-robin, seats: 2, games: 2}}
        seed: 1
        workers: 1
        """)
    out = tmp_path / "out"
    result = invoke_cli("run", config, "--out", out)
    assert result.exit_code == 0, result.output
    assert ("arena: warning: entrant 'mine' faulted in all 4 games it played; commonest "
            f"fault: crash: KeyError: 'central'{SHOWN}\n") in result.output, result.output
    games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert {f["message"]: f["trace"] for g in games for f in g["faults"]} == {
        "KeyError: 'central'": TRACE}
    page = (out / "report.html").read_text()
    frames = "".join(f"<li><code>{html.escape(frame)}</code></li>" for frame in TRACE)
    assert f"KeyError: &#x27;central&#x27;<ol class=trace>{frames}</ol>" in page
    told = invoke_cli("replay", out, games[0]["id"])
    assert f"FAULT crash: KeyError: 'central'{SHOWN}\n" in told.output, told.output
    no_arena_frames(result.output + page + told.output)


def test_a_games_log_whose_trace_holds_markup_is_escaped_and_bounded(tmp_path: Path,
                                                                       my_bot: Path) -> None:
    config = write_config(tmp_path, f"""
        name: crafted
        rules: dice
        entrants: [{{bot: {my_bot}, alias: mine, mode: inline}}, random]
        format: {{type: round-robin, seats: 2, games: 1}}
        seed: 1
        workers: 1
        """)
    out = tmp_path / "out"
    assert invoke_cli("run", config, "--out", out).exit_code == 0
    log = out / "games.jsonl"
    games = [json.loads(line) for line in log.read_text().splitlines()]
    games[0]["faults"][0]["trace"] = ["<script>alert(1)</script>" + "x" * 5000] * 100
    log.write_text("".join(json.dumps(g) + "\n" for g in games))
    assert invoke_cli("report", out).exit_code == 0
    page = (out / "report.html").read_text()
    assert "<script>alert(1)" not in page
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 4
    assert "x" * 300 not in page


def test_a_bot_that_cannot_start_is_refused_in_one_line_naming_where(tmp_path: Path) -> None:
    bot = tmp_path / "starter.py"
    bot.write_text('import arena\n\n\nclass Starter(arena.Bot):\n    def start(self, context):\n'
                   '        {}["central"]\n')
    result = invoke_cli("play", "--rules", "dice", "--bots", f"{bot},random")
    assert result.exit_code == 2
    assert result.output == (f"arena: error: bot '{bot}' does not start for a 'dice' game of 2 "
                             "seats: KeyError: 'central' (at starter.py:6 in Starter.start: "
                             '{}["central"])\n')
