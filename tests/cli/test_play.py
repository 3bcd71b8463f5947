"""`arena play`: bot references, the human prompt, and how a game in the terminal stops."""

from __future__ import annotations

import itertools
import os
import random
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest
from click.testing import CliRunner

import arena
from arena import play_game
from arena.bot import BotContext
from arena.cli.main import cli
from arena.human import HumanBot
from arena.play import TerminalHost
from arena.primer import primer
from arena.referee import ActionEntry, Player
from arena.rules.actions import Action, Pass, parse_action
from arena.rules.base import Observation

EXAMPLES = Path(__file__).resolve().parents[2] / "bots" / "examples"

PLAY_WITH_A_HUMAN = """\
dice, seed 4: seat 0 human, seat 1 random
dice: how a game goes (the full rules: docs/rules.md; 'help rules' at any prompt)
  a round: the thrower rolls 5 dice (9 T J Q K A) under the cup, sees them and claims a hand
  the player to the left receives the claim: challenge it, look, or claim higher blind
  a challenge shows the dice: if they are worth the claim or more, the challenger takes a point;
    if less, the claimant takes it
  a look shows you the dice: reroll any (or none) once, then claim higher; no challenge then
  each claim beats the last; after five A, only a challenge
  1 point and you are out; the last player in wins
-- round 1: seat 0 (human) throws --
  points: seat 0: 0  seat 1: 0
  under the cup: J K T T A   (positions 0-4)
  you decide: claim; lowest legal claim: high A   (help: your choices)
seat 0, claim > nonsense
  not understood: 'nonsense' is not an action or a claim (type help for the choices)
  try: claim high A   |   claim three J
seat 0, claim > claim pair 9
seat 0 (human) sees [J K T T A], claims pair 9
seat 1 (random) looks, rerolls 4 dice, claims pair Q
  points: seat 0: 0  seat 1: 0
  claim to beat: pair Q (by seat 1)
  you decide: respond; lowest legal claim: pair K   (help: your choices)
seat 0, respond > challenge
seat 0 (human) challenges seat 1's pair Q: the hand is [K K 9 K T] (three K), the claim holds
seat 0 (human) takes a point (1)
seat 0 (human) is out on points
-- game over --
result:
 1st  seat 1 (random)  0 points
 2nd  seat 0 (human)  1 point
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
     ("colour: unknown option (known: dice, faces, look_must_reroll, max_faults, max_points, "
      "on_fault, receiver, reroll_once_per, straight_over_full)")),
    (("--bots", "random,random", "--option", "max_points"),
     "--option wants KEY=VALUE, got 'max_points'"),
])
def test_play_errors_are_one_line_with_status_2(args: tuple[str, ...], message: str) -> None:
    result = CliRunner().invoke(cli, ["play", *args])
    assert result.exit_code == 2
    assert result.output == f"arena: error: {message}\n"


# --- bot references: the same as `arena compare` ------------------------------------------


def test_play_takes_a_command_bot() -> None:
    command = f"cmd:{sys.executable} {EXAMPLES / 'example_bot.py'}"
    code, output = run("play", "--bots", f"{command},random", "--seed", "2")
    assert code == 0
    assert f"seat 0 ({command}) claims " in output
    assert "FAULT" not in output
    assert output.splitlines()[-3] == "result:"


def test_play_passes_bot_options_to_the_bot() -> None:
    """A bluffer that doubts every claim challenges where its default one plays on."""
    doubting = run("play", "--bots", "random,bluffer?doubt=1", "--seed", "3")
    trusting = run("play", "--bots", "random,bluffer?doubt=0", "--seed", "3")
    assert doubting[0] == trusting[0] == 0
    assert doubting[1].startswith("dice, seed 3: seat 0 random, seat 1 bluffer?doubt=1\n")
    assert "seat 1 (bluffer?doubt=1) challenges seat 0's" in doubting[1]
    assert doubting[1].count("challenges") > trusting[1].count("challenges")


def test_play_refuses_an_option_the_bot_does_not_have() -> None:
    result = CliRunner().invoke(cli, ["play", "--bots", "random,bluffer?colour=red"])
    assert result.exit_code == 2
    assert result.output == ("arena: error: unknown option 'colour' for bot 'bluffer' "
                             "(known: doubt)\n")


def test_play_refuses_a_command_that_cannot_run_in_the_words_of_compare(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it said "exited with code 127; stderr: arena launcher: cannot run './nope'"
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["play", "--bots", "cmd:./nope,random"])
    assert result.exit_code == 2
    assert result.output == ("arena: error: bot 'cmd:./nope': program './nope' not found "
                             f"(looked at {tmp_path}/nope)\n")


def test_play_refuses_an_option_value_the_bot_refuses() -> None:
    result = CliRunner().invoke(cli, ["play", "--bots", "statistician?threshold=abc,random"])
    assert result.exit_code == 2
    assert result.output == (
        "arena: error: bot 'statistician?threshold=abc' does not start for a 'dice' game of "
        "2 seats: TypeError: statistician: option threshold must be a number, not 'abc'\n")


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
    assert result.output == (f"arena: error: bot {str(bot)!r} does not play 'cards' "
                             "(it plays dice)\n")


# --- the human prompt ----------------------------------------------------------------------


class Person:
    """A scripted person at a HumanBot seat: at each decision it first types nonsense, checks
    that every answer the re-prompt suggests is legal, then types one of them."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seen: Observation | None = None
        self.said: list[str] = []
        self.bad: list[str] = []
        self.typed_nonsense = False
        self.decisions = 0

    def bot(self, context: BotContext) -> HumanBot:
        person = self

        class Watched(HumanBot):
            def act(self, observation: Observation) -> Action:
                person.seen, person.typed_nonsense = observation, False
                person.decisions += 1
                return super().act(observation)

        return Watched(context, self.ask, self.said.append)

    def ask(self, prompt: str) -> str:
        if not self.typed_nonsense:
            self.typed_nonsense = True
            return "nonsense"
        assert self.seen is not None
        sof = self.seen.legal.space.straight_over_full
        hints = self.said[-1].split("  try: ")[1].split("   |   ")
        assert hints, self.said[-1]
        for hint in hints:
            if not self.seen.is_legal(parse_action(hint, sof)):
                self.bad.append(f"{hint!r} at {self.seen.decision} "
                                f"(claim to beat {self.seen.claim})")
        return self.rng.choice(hints)


def test_the_reprompt_suggests_claims_above_the_claim_to_beat() -> None:
    """The issue's game: bluffer claims above three Q (four T under this seed); 'claim three
    Q' is not suggested back."""
    code, output = run("play", "--bots", "statistician,bluffer,human", "--seed", "2",
                       input="claim three Q\n")
    assert "  claim to beat: four T (by seat 1)\n" in output
    assert ("  try: challenge   |   look   |   claim four J   |   claim four A\n"
            in output)
    assert code == 130  # then the input ends


@pytest.mark.parametrize("rules", ["dice", "dice-cards", "cards"])
@pytest.mark.parametrize("sof", [False, True])
def test_every_suggested_answer_is_legal_at_that_moment(rules: str, sof: bool) -> None:
    decisions: set[str] = set()
    for seed in range(6):
        person = Person(seed)
        seats = 3 if rules == "cards" else 2
        record = play_game(rules, [person.bot, *["random"] * (seats - 1)], seed=seed,
                           options={"straight_over_full": sof})
        assert person.bad == []
        assert [f for f in record.faults if f.seat == 0] == []
        assert sum("not legal" in line for line in person.said) == 0
        decisions |= {entry.action.__class__.__name__ for entry in record.log
                      if isinstance(entry, ActionEntry) and entry.seat == 0}
    assert len(decisions) >= 3  # the person took several kinds of decision


def test_a_bare_claim_is_the_claim_of_this_decision() -> None:
    code, output = run("play", "--rules", "dice", "--bots", "human,random", "--seed", "4",
                       "--option", "max_points=1", input="pair 9\nchallenge\n")
    assert code == 0
    assert "seat 0 (human) sees [J K T T A], claims pair 9\n" in output
    assert "not understood" not in output


def test_a_bare_claim_in_a_cards_turn_is_a_pass() -> None:
    said: list[str] = []
    seen: list[Observation] = []

    class Typist(HumanBot):
        def act(self, observation: Observation) -> Action:
            seen.append(observation)
            return super().act(observation)

    def ask(prompt: str) -> str:
        obs = seen[-1]
        return str(obs.min_claim) if obs.decision == "turn" else "accept"

    def typist(context: BotContext) -> HumanBot:
        return Typist(context, ask, said.append)

    record = play_game("cards", [typist, "random", "random"], seed=5)
    passes = [entry.action for entry in record.log if isinstance(entry, ActionEntry)
              and entry.seat == 0 and isinstance(entry.action, Pass)]
    assert passes and record.faults == ()
    assert not [line for line in said if "not understood" in line or "not legal" in line]


def test_a_misspelt_claim_says_what_is_wrong_with_it() -> None:
    code, output = run("play", "--bots", "human,random", "--seed", "4",
                       "--option", "max_points=1", input="pair Z\npair 9\nchallenge\n")
    assert code == 0
    assert "  not understood: unknown rank 'Z'" in output


def test_help_shows_the_choices_the_claim_ladder_and_the_hand_value() -> None:
    code, output = run("play", "--bots", "human,random", "--seed", "4",
                       "--option", "max_points=1", input="help\npair 9\nhelp\nchallenge\n")
    assert code == 0
    thrower = output.split("seat 0, claim > help\n")[1].split("seat 0, claim >")[0]
    assert thrower == (
        "  you may: a claim of high A or higher\n"
        "  e.g.: claim high A   |   claim three J\n"
        "  claim ladder: high A < pair 9 < pair T < pair J < pair Q < ...\n"
        "  your hand: pair T (J K T T A)\n"
        "  'high A' alone means 'claim high A'; end of input (Ctrl-D) or Ctrl-C stops the game\n"
        "  help rules: how the game goes, every claim, the options in force\n"
    )
    responder = output.split("seat 0, respond > help\n")[1].split("seat 0, respond >")[0]
    assert responder == (
        "  you may: challenge, look, or blind a claim of pair K or higher\n"
        "  e.g.: challenge   |   look   |   claim pair K   |   claim three A\n"
        "  claim ladder: ... < pair T < pair J < [pair Q] < pair K < pair A < two-pair T 9 "
        "< two-pair J 9 < ...\n"
        "  'pair K' alone means 'claim pair K'; end of input (Ctrl-D) or Ctrl-C stops the game\n"
        "  help rules: how the game goes, every claim, the options in force\n"
    )  # no hand value: the dice are still under the cup


# --- the primer: what is at stake, once, before a person's first decision ------------------

DICE_PRIMER = """\
dice: how a game goes (the full rules: docs/rules.md; 'help rules' at any prompt)
  a round: the thrower rolls 5 dice (9 T J Q K A) under the cup, sees them and claims a hand
  the player to the left receives the claim: challenge it, look, or claim higher blind
  a challenge shows the dice: if they are worth the claim or more, the challenger takes a point;
    if less, the claimant takes it
  a look shows you the dice: reroll any (or none) once, then claim higher; no challenge then
  each claim beats the last; after five A, only a challenge
  5 points and you are out; the last player in wins
"""

CARDS_PRIMER = """\
cards: how a game goes (the full rules: docs/rules.md; 'help rules' at any prompt)
  each player has 10 chips and 5 private cards; a central hand of 5 goes round the table with a
    claim
  handed a claim: accept it (the passer gets 1 chip from the bank) or reject it
  a reject shows the central hand: if it is worth the claim or more, you pay the passer 5 chips;
    if less, the passer pays you; the player left of the rejecter takes a fresh hand
  after accepting, or with a fresh hand, you see it: swap cards one for one with yours, turn
    some face up, and pass it left with a higher claim
  0 chips and you are out; when the draw pile cannot make a new central hand, the most chips win
"""


@pytest.mark.parametrize(("args", "expected"), [
    (("--bots", "statistician,human"), DICE_PRIMER),
    (("--rules", "cards", "--bots", "statistician,human,random"), CARDS_PRIMER),
])
def test_a_person_reads_the_stakes_once_before_the_first_decision(
    args: tuple[str, ...], expected: str
) -> None:
    code, output = run("play", *args, "--seed", "4", input="")
    assert code == 130  # end of input at the first prompt
    header, rest = output.split("\n", 1)
    assert header.endswith("seat 1 human" + (", seat 2 random" if "cards" in args else ""))
    assert rest.startswith(expected)
    assert output.count("how a game goes") == 1
    assert rest.index(expected) < rest.index("seat 1, ")  # before the prompt


def test_bots_alone_get_no_primer() -> None:
    code, output = run("play", "--bots", "statistician,random", "--seed", "4")
    assert code == 0
    assert "how a game goes" not in output


def test_the_primer_says_the_options_in_force() -> None:
    code, output = run("play", "--rules", "dice-cards", "--bots", "human,random", "--seed", "4",
                       "--option", "max_points=3", "--option", "look_must_reroll=true",
                       "--option", "reroll_once_per=round", "--option", "straight_over_full=true",
                       "--option", "receiver=loser_chooses", input="")
    assert code == 130
    assert output.split("\n")[1:11] == [
        "dice-cards: how a game goes (the full rules: docs/rules.md; 'help rules' at any prompt)",
        ("  a round: the thrower gets 5 cards of a fresh deck, may exchange any once, and claims"
         " a hand"),
        ("  the seat a thrower who lost the last round picks (else the left one) receives the"
         " claim:"),
        "    challenge it, look, or claim higher blind",
        ("  a challenge shows the cards: if they are worth the claim or more, the challenger"
         " takes a"),
        "    point; if less, the claimant takes it",
        ("  a look shows you the cards: exchange at least one (each once a round), then claim"
         " higher; no"),
        "    challenge then",
        ("  each claim beats the last (straights above fulls); after straight-flush A, only a"
         " challenge"),
        "  3 points and you are out; the last player in wins",
    ]
    code, output = run("play", "--rules", "cards", "--bots", "human,random,random", "--seed", "4",
                       "--option", "chips=1", "--option", "accept_reward=0", "--option",
                       "penalty=2", "--option", "fresh_hand_to=rejecter", input="")
    assert ("  each player has 1 chip and 5 private cards; a central hand of 5 goes round the"
            " table with a\n    claim\n"
            "  handed a claim: accept it (the passer gets 0 chips from the bank) or reject it\n"
            "  a reject shows the central hand: if it is worth the claim or more, you pay the"
            " passer 2 chips;\n    if less, the passer pays you; the rejecter takes a fresh"
            " hand\n") in output


def test_help_rules_at_a_claim_and_at_a_respond_prompt() -> None:
    code, output = run("play", "--bots", "human,random", "--seed", "4", "--option",
                       "max_points=1", input="help rules\npair 9\n? rules\nchallenge\n")
    assert code == 0
    thrower = output.split("seat 0, claim > help rules\n")[1].split("seat 0, claim >")[0]
    responder = output.split("seat 0, respond > ? rules\n")[1].split("seat 0, respond >")[0]
    assert thrower == responder
    primer = PLAY_WITH_A_HUMAN.split("\n", 1)[1].split("-- round 1")[0]
    assert thrower.startswith(primer)
    assert thrower.removeprefix(primer) == """\
  every claim, lowest first (72); a claim holds when the hand is worth it or more (no kickers):
    high: A
    pair: 9 T J Q K A
    two-pair (high pair, low pair): T9 J9 JT Q9 QT QJ K9 KT KJ KQ A9 AT AJ AQ AK
    three: 9 T J Q K A
    straight: K A
    full (triple, pair): 9T 9J 9Q 9K 9A T9 TJ TQ TK TA J9 JT JQ JK JA Q9 QT QJ QK QA K9 KT KJ KQ
        KA A9 AT AJ AQ AK
    four: 9 T J Q K A
    five: 9 T J Q K A
  options in force:
    max_points: 1  (penalty points that put a player out)
    receiver: left  (who gets the thrower's claim: the next player, or the loser's choice)
    look_must_reroll: false  (a receiver who looks must reroll at least one die)
    reroll_once_per: turn  (each die rerolled at most once by a player per turn, or per round)
    on_fault: forfeit  (what a fault costs: forfeit or penalty)
    max_faults: 3  (with on_fault=penalty: the fault that forfeits)
    straight_over_full: false  (rank straight above full-house)
    dice: 5  (dice under the cup (fewer: a reduced game))
    faces: 6  (faces of a die, the top of 9 T J Q K A (4: J Q K A))
"""


def test_help_rules_in_cards_lists_all_309_claims_in_the_game_s_order() -> None:
    code, output = run("play", "--rules", "cards", "--bots", "human,random,random", "--seed",
                       "4", "--option", "straight_over_full=true", input="rules\n")
    assert code == 130
    ladder = output.split("every claim, lowest first (309)")[1].split("options in force")[0]
    lines = [line for line in ladder.splitlines()[1:] if line.strip()]
    categories = [line.split(":")[0].strip() for line in lines if not line.startswith(" " * 8)]
    assert categories == ["high", "pair", "two-pair (high pair, low pair)", "three",
                          "full (triple, pair)", "flush", "straight", "four", "straight-flush"]
    assert len(" ".join(line.split(":")[-1] for line in lines).split()) == 309


@pytest.mark.parametrize("rules", ["dice", "dice-cards", "cards"])
def test_the_primer_stays_short_under_every_option(rules: str) -> None:
    """At most 10 lines of at most 96 characters, whatever the options say."""
    ruleset = arena.rules.get_rules(rules)
    choices = {spec.name: spec.choices or (spec.default, (spec.minimum or 0) + 1)
               for spec in ruleset.option_specs}
    for values in itertools.product(*choices.values()):
        lines = primer(ruleset, ruleset.check_options(dict(zip(choices, values, strict=True))))
        assert len(lines) <= 10 and max(map(len, lines)) <= 96, lines


# --- how a game in the terminal stops --------------------------------------------------------

ARENA = [sys.executable, "-m", "arena"]


def test_end_of_input_stops_the_game_with_status_130() -> None:
    result = CliRunner().invoke(cli, ["play", "--bots", "human,random", "--seed", "4"],
                                input="pair 9\n")
    assert result.exit_code == 130
    assert result.stderr == "arena: game stopped (end of input)\n"
    assert "FAULT" not in result.stdout
    assert "result:" not in result.stdout
    assert result.stdout.endswith("seat 0, respond > \n")


def read_until(stream: IO[bytes], marker: bytes, seconds: float = 30.0) -> bytes:
    """Read a child's output until `marker` shows (a prompt that ends without a newline)."""
    seen, deadline = b"", time.monotonic() + seconds
    while marker not in seen:
        ready, _, _ = select.select([stream], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(stream.fileno(), 4096) if ready else b""
        if not chunk:
            raise AssertionError(f"no {marker!r} in {seen!r}")
        seen += chunk
    return seen


def test_ctrl_c_at_the_prompt_stops_the_game_with_status_130() -> None:
    child = subprocess.Popen([*ARENA, "play", "--bots", "human,random", "--seed", "4"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    try:
        shown = read_until(child.stdout, b"seat 0, claim > ")  # type: ignore[arg-type]
        child.send_signal(signal.SIGINT)
        rest, errors = child.communicate(timeout=30)
    finally:
        child.kill()
    assert child.returncode == 130
    assert errors == b"arena: game stopped (Ctrl-C)\n"
    assert b"FAULT" not in shown + rest


def test_a_reader_that_goes_away_stops_the_game_quietly() -> None:
    """`arena play ... | head`: the game tells far more than a pipe holds (~190 kB), so the
    pipe breaks while the game is being played."""
    child = subprocess.Popen([*ARENA, "play", "--bots", ",".join(["random"] * 6),
                              "--option", "max_points=100"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stderr is not None
        first = child.stdout.readline()
        child.stdout.close()
        errors = child.stderr.read()
        child.wait(timeout=60)
    finally:
        child.kill()
    assert re.match(rb"dice, seed \d+: seat 0 random", first)  # a secret seed, said
    assert errors == b""
    assert child.returncode == 1


def test_a_human_plays_against_a_command_bot_that_keeps_its_time_limit() -> None:
    command = f"cmd:{sys.executable} {EXAMPLES / 'example_bot.py'}"
    code, output = run("play", "--bots", f"human,{command}", "--seed", "2",
                       "--option", "max_points=2", input="challenge\nhigh A\n" * 40)
    assert code == 0
    assert "FAULT" not in output
    assert output.splitlines()[-3] == "result:"


def test_no_alarm_tick_can_land_while_the_person_types() -> None:
    """A Ctrl-C inside an alarm tick surfaced as "FAULT crash: SystemError" in 1 game of 5;
    so while the person thinks, the bots' 5 ms alarm is held off (and runs again after)."""
    held_while_typing: list[bool] = []

    def ask(prompt: str) -> str:
        held_while_typing.append(signal.SIGALRM in signal.pthread_sigmask(signal.SIG_BLOCK, []))
        time.sleep(0.02)  # four ticks' worth
        return "challenge" if prompt.endswith("respond") else "claim pair 9"

    class Typist(HumanBot):
        def __init__(self, context: arena.BotContext) -> None:
            super().__init__(context, ask=ask, say=lambda line: None)

    record = arena.play_game("dice", [Player("human", TerminalHost(Typist)), "random"], seed=4,
                             options={"max_points": 1})
    assert record.faults == ()
    assert held_while_typing and all(held_while_typing)
    assert signal.SIGALRM not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
