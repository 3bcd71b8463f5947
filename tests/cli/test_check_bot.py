"""`arena check-bot REF`: the built-in and example bots pass (one checklist word for word),
every broken bot of tests/fixtures/checkbot fails on the line that names what it does wrong
and on no other, the scripted games put the bot in every position they are for and tell it
every kind of event, and a reference that names no bot is one line with exit status 2."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from cli_support import invoke_cli
from needs import require

from arena import checkbot
from arena.checkbot.run import play_checks
from arena.checkbot.scenarios import SCENARIOS
from arena.entrants import Reference, resolve
from arena.limits import Limits
from arena.rules import RULESETS

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "fixtures" / "checkbot"
EXAMPLES = ROOT / "bots" / "examples"

RANDOM_CHECKLIST = """\
✓ starts and says hello (dice, dice-cards, cards)
✓ dice: answers every decision (claim 28, respond 25, reroll 8, choose 2)
✓ dice: answers when only a challenge is legal (once)
✓ dice: answers a reroll when nothing may be rerolled (once)
✓ dice-cards: answers every decision (claim 31, respond 28, reroll 30, choose 1)
✓ dice-cards: answers when only a challenge is legal (once)
✓ dice-cards: answers a reroll when nothing may be rerolled (once)
✓ dice-cards: plays on after the deck is reshuffled (once)
✓ cards: answers every decision (accept 8, turn 16)
✓ cards: answers when only a challenge is legal (once)
✓ cards: takes a turn with face-up cards (once)
✓ answers in time (slowest S billed of the 1 s limit, S wall of the 2 s wall limit)
✓ ends every game (it runs inline: no protocol)
✓ is deterministic under a seed (a game of dice, dice-cards, cards played twice, the same answers)
✓ survives notify for every event kind (dice 12, dice-cards 14, cards 11)
18 games, 184 decisions asked; 27 more were played for it, to reach the positions
"""


def check(*args: str | Path) -> tuple[int, str]:
    """Run `arena check-bot ARGS`: its exit status and output, the slowest time masked."""
    result = invoke_cli("check-bot", *args)
    return result.exit_code, re.sub(r"\b\d+\.\d{3} s\b", "S", result.output)


def test_a_built_in_bot_passes_with_this_checklist() -> None:
    assert check("random") == (0, RANDOM_CHECKLIST)


def test_the_json_checklist_says_the_same_as_the_text() -> None:
    status, output = check(BROKEN / "counts_the_deck.py", "--trust", "--json")
    _, text = check(BROKEN / "counts_the_deck.py", "--trust")
    found = json.loads(output)
    marks = {"passed": "✓", "failed": "✗", "not checked": "–"}
    assert status == 1 and found["passed"] is False
    shown = [f"{marks[c['result']]} {c['check']}" for c in found["checks"]] + [found["summary"]]
    assert "\n".join(shown) + "\n" == text  # a crash's check holds its frames, a line each


@pytest.mark.parametrize("bot", ["bluffer", "honest", "statistician", "boss", "sparring"])
def test_every_built_in_bot_passes(bot: str) -> None:
    status, output = check(bot)
    assert status == 0, output
    assert "✗" not in output


@pytest.mark.parametrize("program", ["python3", "node"])
def test_the_example_command_bots_pass(program: str) -> None:
    require(shutil.which(program), f"{program} is not installed")
    script = EXAMPLES / ("example_bot.py" if program == "python3" else "example_bot.js")
    status, output = check(f"cmd:{program} {script}")
    assert status == 0, output
    assert "✓ speaks the protocol (hello, turns, end, shutdown)" in output


def test_a_bot_file_passes_in_its_own_process() -> None:
    status, output = check(ROOT / "bots" / "random_bot.py", "--rules", "cards")
    assert status == 0, output
    assert output.splitlines()[0] == "✓ starts and says hello (cards)"


def failed(output: str) -> list[str]:
    """The lines of a checklist that failed."""
    return [line for line in output.splitlines() if line.startswith("✗")]


BROKEN_BOTS = [
    ("crashes_on_claim.py", [], re.escape(
        "✗ dice: answers every decision: 8 of 13 answers went wrong, the first (a 'claim'): "
        "it crashed: ZeroDivisionError: division by zero")),
    ("illegal_answer.py", [], re.escape(
        "✗ dice: answers every decision: 8 of 16 answers went wrong, the first (a 'respond'): "
        "claim high A is not higher than the claim to beat (legal: challenge, look, or blind "
        "a claim of pair 9 or higher)")),
    ("too_slow.py", ["--time-limit", "0.2"], re.escape(
        "✗ answers in time: 6 of 33 decisions ran out of time, over 0.2 s billed or 0.4 s wall "
        "(slowest S billed, S wall, a dice 'claim'") + r"(, in a game with the rule options? "
        r"[^;]+)?; .+\)"),
    ("coin_flipper.py", [], re.escape(
        "✗ is deterministic under a seed: a dice game played twice from one seed went "
        "differently at its decision ") + r"\d+ \('[^']+', then '[^']+'\): " + re.escape(
        "use self.rng for chance, never the clock or the random module")),
    ("keeps_its_dice.py", [], re.escape(
        "✗ dice: answers every decision: ") + r"1 of \d+" + re.escape(
        " answers went wrong, the first (a 'reroll', in a game with the rule options "
        "reroll_once_per: round, look_must_reroll: true): a player who looks must reroll at "
        "least one die (legal: reroll distinct positions among 0 1 2 3 4 (at least one))")),
    ("deaf_to_choices.py", [], re.escape(
        "✗ survives notify: it crashed on a 'choose' event (dice, in a game with the rule "
        "option receiver: loser_chooses): ValueError: who chose?")),
    ("deaf_to_rerolls.py", [], re.escape(
        "✗ survives notify: it crashed on a 'reroll' event (dice): KeyError: 'dice'")),
]
"""Each bot of tests/fixtures/checkbot run inline, its flags, and its one failed line (a
pattern: where it went wrong depends on the global random module, or the CPU time on the
machine's clock)."""


@pytest.mark.parametrize(("bot", "flags", "line"), BROKEN_BOTS,
                         ids=[b for b, _, _ in BROKEN_BOTS])
def test_a_broken_bot_fails_on_the_line_that_says_why(bot: str, flags: list[str],
                                                       line: str) -> None:
    status, output = check(BROKEN / bot, "--trust", *flags)
    assert status == 1
    lines = failed(output)
    assert len(lines) == 1 and re.fullmatch(line, lines[0]), output


def test_a_bot_that_breaks_only_on_a_reroll_of_nothing_fails_there_only() -> None:
    status, output = check(BROKEN / "rerolls_something.py", "--trust")
    assert status == 1
    assert failed(output) == [
        f"✗ {rules}: answers a reroll when nothing may be rerolled: its answer went wrong (in a "
        "game with the rule options reroll_once_per: round, look_must_reroll: true): it "
        "crashed: IndexError: tuple index out of range" for rules in ("dice", "dice-cards")]


def test_a_bot_that_never_challenges_fails_only_where_a_challenge_is_all_that_is_legal() -> None:
    status, output = check(BROKEN / "never_challenges.py", "--trust")
    assert status == 1
    assert failed(output) == [
        ("✗ dice: answers when only a challenge is legal: its answer went wrong: 'look' is not "
         "legal: no claim is higher than five A (legal: challenge)"),
        ("✗ dice-cards: answers when only a challenge is legal: its answer went wrong: 'look' "
         "is not legal: no claim is higher than straight-flush A (legal: challenge)"),
        ("✗ cards: answers when only a challenge is legal: its answer went wrong: 'accept' is "
         "not legal: no claim is higher than straight-flush A (legal: challenge (reject))"),
    ]


def test_a_bot_that_never_hears_of_the_reshuffle_fails_only_after_it() -> None:
    status, output = check(BROKEN / "counts_the_deck.py", "--trust")
    assert status == 1
    assert failed(output) == [
        ("✗ dice-cards: plays on after the deck is reshuffled: its answer went wrong: it "
         "crashed: ValueError: the deck cannot hold -3 cards")]


def test_a_bot_that_reveals_face_up_cards_again_fails_only_at_a_turn_with_face_up_cards() -> None:
    status, output = check(BROKEN / "reveals_everything.py", "--trust")
    assert status == 1
    assert failed(output) == [
        ("✗ cards: takes a turn with face-up cards: its answer went wrong: central card 0 is "
         "already face up")]


def test_a_bot_that_fails_on_its_last_events_fails_notify_in_its_own_process() -> None:
    status, output = check(BROKEN / "deaf_to_the_end.py")
    assert status == 1
    assert failed(output) == [
        ("✗ survives notify: it crashed on one of the events claim, challenge, point, out, over "
         "(dice): RuntimeError: the game cannot be over")]


def test_a_bot_out_of_a_game_after_a_fault_is_not_checked_for_the_events_it_missed() -> None:
    """The 'choose' event follows a choice: a bot that answers 'choose' wrongly is out of
    that game before it, and the notify line says so, not that check-bot's games failed."""
    status, output = check(BROKEN / "never_chooses.py", "--trust")
    assert status == 1
    wrong, unchecked = [ln for ln in output.splitlines() if ln.startswith(("✗", "–"))]
    assert re.fullmatch(re.escape("✗ dice: answers every decision: ") + r"1 of \d+" + re.escape(
        " answers went wrong, the first (a 'choose', in a game with the rule option receiver: "
        "loser_chooses): 'challenge' is not a legal answer to 'choose' (legal: choose the "
        "receiver, seat 0 or 2)"), wrong), output
    assert unchecked == ("– survives notify for every event kind: not checked for 'choose' "
                         "(dice): an earlier fault ended the games first (see the ✗ above)")


def test_the_time_line_shows_wall_time_beside_billed_time() -> None:
    """A bot that sleeps is billed its CPU time only, within its wall limit; the line shows
    both, and which limit is which (RULES.md, Time)."""
    result = invoke_cli("check-bot", BROKEN / "sleeps.py", "--time-limit", "0.2")
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if "answers in time" in ln)
    found = re.fullmatch(r"✓ answers in time \(slowest (\d+\.\d{3}) s billed of the 0\.2 s "
                         r"limit, (\d+\.\d{3}) s wall of the 0\.4 s wall limit\)", line)
    assert found is not None, line
    billed, wall = map(float, found.groups())
    assert billed < 0.2 and wall >= 0.3  # billed its CPU time; its sleep on the wall clock
    checks = json.loads(invoke_cli("check-bot", BROKEN / "sleeps.py", "--time-limit", "0.2",
                                   "--trust", "--json").output)
    timed = next(c for c in checks["checks"] if c["check"].startswith("answers in time"))
    assert timed["result"] == "passed"
    assert timed["seconds"]["billed"] < 0.2 and timed["seconds"]["wall"] >= 0.3, timed
    assert timed["seconds"]["limit"] == 0.2 and timed["seconds"]["wall_limit"] == 0.4
    assert re.search(r"s billed of the 0\.2 s limit, \d+\.\d{3} s wall of the 0\.4 s wall "
                     r"limit", timed["check"]), timed


def docs_first_bot() -> str:
    """The bot docs/writing-a-bot.md tells a student to save as my_bot.py."""
    page = (ROOT / "docs" / "writing-a-bot.md").read_text(encoding="utf-8")
    found = re.search(r"Save this as `my_bot\.py`.*?```python\n(.*?)```", page, re.DOTALL)
    assert found is not None, "docs/writing-a-bot.md: no first bot to save as my_bot.py"
    return found.group(1)


def test_the_docs_first_bot_passes_check_bot(tmp_path: Path) -> None:
    """A student's first run: the bot copied from the docs, in its own process, as given."""
    bot = tmp_path / "my_bot.py"
    bot.write_text(docs_first_bot(), encoding="utf-8")
    status, output = check(bot)
    assert status == 0, output
    assert "✗" not in output and "–" not in output, output


def test_a_command_that_prints_garbage_breaks_the_protocol() -> None:
    status, output = check(f"cmd:{BROKEN / 'garbage.py'}")
    assert status == 1
    assert "✗ speaks the protocol: sent a line that is not JSON: I think I will claim a pair " \
           "of nines (at a dice 'claim')" in failed(output)


def test_a_command_that_never_says_hello_is_checked_no_further() -> None:
    mute = BROKEN / "mute.py"
    assert check(f"cmd:{mute}") == (1, (
        f"✗ starts and says hello: bot 'cmd:{mute}' did not say hello: exited with code 3\n"
        "nothing else was checked: a bot must start before it can play\n"))


def test_a_command_bot_named_as_a_file_is_told_to_run_as_a_command() -> None:
    script = EXAMPLES / "example_bot.py"
    assert check(script) == (1, (
        f"✗ starts and says hello: file {script}: expected one arena.Bot subclass, found none "
        f"(name one as FILE.py:Class; a program that speaks the protocol runs as "
        f"'cmd:python3 {script}')\n"
        "nothing else was checked: a bot must start before it can play\n"))


def test_a_command_that_outlives_its_shutdown_breaks_the_protocol(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # It never exits: however long check-bot waits, it is still running. A 0.3 s wait, not the
    # 1 s a bot that does exit is given, is 0.7 s less of the test's time spent waiting.
    monkeypatch.setattr(checkbot, "SHUTDOWN_WAIT", 0.3)
    status, output = check(f"cmd:{BROKEN / 'stays_up.py'}")
    assert status == 1
    assert failed(output) == [
        ("✗ speaks the protocol: told 'shutdown', it did not exit (it must exit with code 0 "
         "when told to, or at the end of its input)")]


@pytest.mark.parametrize(("args", "said"), [
    (["statisitcian"], "unknown bot 'statisitcian' (did you mean 'statistician'?"),
    (["./no_such_bot.py"], "bot file './no_such_bot.py' not found"),
    (["cmd:no-such-program"], "program 'no-such-program' is not on the PATH"),
    (["random", "--rules", "poker"], ("check-bot has games for dice, dice-cards, cards, not "
                                      "'poker'")),
    ([str(BROKEN / "crashes_on_claim.py"), "--rules", "cards"],
     "does not play 'cards' (it plays dice)"),
])
def test_a_reference_that_names_no_bot_it_can_check_is_one_line(args: list[str],
                                                                 said: str) -> None:
    result = invoke_cli("check-bot", *args)
    assert result.exit_code == 2
    assert result.output.startswith("arena: error: ")
    assert said in result.output
    assert result.output.count("\n") == 1


def test_every_check_game_puts_the_bot_where_it_is_for_and_tells_it_every_event() -> None:
    """What the checklist counts is what happened: each game's first decision of the bot's
    own is the position the game is for, and every kind of event reached it."""
    entrant = resolve(Reference("random"))
    evidence, replays = play_checks(entrant, entrant.host(), list(SCENARIOS), Limits())
    games = [(s.rules, s.target) for rules in SCENARIOS for s in SCENARIOS[rules]]
    assert [(rules, first) for rules, _, first, _ in evidence.targets] == games
    for rules in SCENARIOS:
        assert set(evidence.told[rules]) == set(RULESETS[rules].event_kinds)  # type: ignore[attr-defined]
    assert [r.decision for r in replays] == [None, None, None]
