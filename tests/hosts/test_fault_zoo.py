"""The fault zoo: every misbehaving bot ends in its recorded fault kind, the game finishes with
consistent results for the other seats, and no process of the bot survives (conftest)."""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from isolation_support import DECISION, LIMITS, NAMESPACES, play_zoo, zoo

import arena
from arena import play_game
from arena.bot import Limits
from arena.entrants import Reference, resolve
from arena.hosts.inline import Host
from arena.hosts.pipe import CommandHost, ProcessHost
from arena.referee import ActionEntry, FaultEntry, GameRecord, Player
from arena.rules.base import Event

PYTHON_ZOO = [
    ("raiser.py", {}, "crash", "ValueError: the zoo raiser gives up"),
    ("exiter.py", {}, "crash", "exited with code 3"),
    ("segfault.py", {}, "crash", "killed by SIGSEGV"),
    ("sleeper.py", {}, "timeout", "no answer"),
    ("glutton.py", {}, "crash", "MemoryError"),
]

WIRE_ZOO = [
    ("junk", "protocol", "not JSON"),
    ("silent", "timeout", "no answer"),
    ("enormous", "protocol", "longer than 65536 bytes"),
    ("unfinished", "timeout", "no answer"),
    ("close", "crash", "closed its standard output"),
    ("stale", "protocol", "answered turn"),
    ("unreadable", "protocol", "action arena cannot read"),
    ("badutf8", "protocol", "not UTF-8 text"),
    ("stderr", "timeout", "turn 1"),  # a CPU or a wall timeout, as the machine goes
]


def wire(mode: str) -> list[str]:
    """The raw-protocol zoo bot's command, its Python started without `site` (-S: stdlib
    only, which is all wire.py imports): 10 ms of CPU a start, not 50, in some 45 tests."""
    return [sys.executable, "-S", zoo("wire.py"), mode]


def assert_forfeited(record: GameRecord, kind: str, words: str) -> None:
    """Seat 0 faulted once, in this way, on a decision, and lost; the others were unharmed."""
    assert [(f.seat, f.kind) for f in record.faults] == [(0, kind)], record.faults
    assert words in record.faults[0].message
    assert [e.seat for e in record.log if isinstance(e, FaultEntry)] == [0]
    outs = [e for e in record.log if isinstance(e, Event) and e.kind == "out"]
    assert outs[0].seat == 0 and outs[0].data["reason"] == "forfeit"
    placements = record.result.placements
    assert placements[0] == 3
    assert sorted(placements[1:]) == [1, 2]
    assert record.result.out_order[0] == 0


@pytest.mark.parametrize(("bot", "options", "kind", "words"), PYTHON_ZOO,
                         ids=[row[0] for row in PYTHON_ZOO])
def test_a_misbehaving_python_bot_forfeits_with_its_fault(
        bot: str, options: dict, kind: str, words: str) -> None:
    limits = replace(LIMITS, memory=256 << 20)
    started = time.monotonic()
    record = play_zoo(ProcessHost(zoo(bot), limits), bot_options=options)
    assert_forfeited(record, kind, words)
    assert time.monotonic() - started < 15


SPIN = DECISION / 2
"""The CPU limit a spinner spins out (each spin is this much CPU burnt): half the zoo's, as
every seat's wall limit is 20 of them (3 s), which no innocent bot nears at any load."""


@pytest.mark.parametrize("mode", ["inline", "process"])
def test_a_spinning_bot_is_stopped_by_its_cpu_time_before_its_wall_limit(mode: str) -> None:
    host = (resolve(Reference(zoo("spinner.py"), mode="inline")).host() if mode == "inline"
            else ProcessHost(zoo("spinner.py"), LIMITS))
    try:
        record = play_game("dice", [Player("zoo", host), "random", "random"], seed=1,
                           limits=Limits(SPIN, wall_factor=20.0))
    finally:
        getattr(host, "shutdown", host.close)()
    assert_forfeited(record, "timeout", "CPU time")
    seconds = next(e.seconds for e in record.log if isinstance(e, FaultEntry))
    assert SPIN <= seconds < SPIN * 20


@pytest.mark.parametrize("namespace", NAMESPACES)
@pytest.mark.parametrize(("bot", "options", "kind", "words"), [
    ("stubborn_child.py", {}, "timeout", "no answer"),
    ("escaper.py", {"then": "sleep"}, "timeout", "no answer"),
    ("escaper.py", {"then": "exit"}, "crash", "exited with code 0"),
], ids=["term-ignoring-child", "setsid-then-sleep", "setsid-then-exit"])
def test_helpers_that_dodge_signals_or_leave_the_session_die_with_the_bot(
        bot: str, options: dict, kind: str, words: str, namespace: bool) -> None:
    host = ProcessHost(zoo(bot), replace(LIMITS, pid_namespace=namespace))
    record = play_zoo(host, bot_options=options)
    assert_forfeited(record, kind, words)


@pytest.mark.parametrize(("mode", "kind", "words"), WIRE_ZOO, ids=[row[0] for row in WIRE_ZOO])
def test_a_command_bot_that_breaks_the_protocol_forfeits(mode: str, kind: str, words: str) -> None:
    record = play_zoo(CommandHost(wire(mode), LIMITS))
    assert_forfeited(record, kind, words)


def test_cpu_time_is_billed_to_the_whole_tree_so_a_wrapper_script_does_not_hide_a_spinner(
        ) -> None:
    command = ["sh", "-c", " ".join(wire("spin")) + "; true"]  # sh waits: the bot is its child
    record = play_zoo(CommandHost(command, LIMITS), decision=SPIN, wall_factor=20.0)
    assert_forfeited(record, "timeout", "CPU time")


def test_a_second_reply_to_one_turn_is_a_protocol_fault_at_the_next_request() -> None:
    record = play_zoo(CommandHost(wire("twice"), LIMITS))
    assert [(f.seat, f.kind) for f in record.faults] == [(0, "protocol")]
    message = record.faults[0].message
    assert "answered turn" in message or "where 'done' was expected" in message


def test_a_newer_protocol_is_refused_when_the_game_starts() -> None:
    record = play_zoo(CommandHost(wire("future"), LIMITS))
    assert_forfeited(record, "protocol", "speaks protocol 99")


def test_a_command_that_does_not_exist_crashes_at_the_start() -> None:
    record = play_zoo(CommandHost(["/nonexistent/bot"], LIMITS))
    assert_forfeited(record, "crash", "exited with code 127")


def test_an_unknown_bot_crashes_at_the_start_naming_it() -> None:
    record = play_zoo(ProcessHost("no-such-bot", LIMITS))
    assert_forfeited(record, "crash", "unknown bot 'no-such-bot'")


@pytest.mark.parametrize(("bot", "tail"), [
    ("stderr_flood.py", "last words of the flood"),
    ("chatty.py", "thinking about"),
])
def test_stderr_floods_and_stray_prints_do_not_disturb_the_protocol(bot: str, tail: str) -> None:
    host = ProcessHost(zoo(bot), LIMITS)
    try:
        record = play_game("dice", [Player("zoo", host), "random", "random"], seed=1,
                           limits=Limits(2.0))
        text = host.stderr_tail()
    finally:
        host.shutdown()
    assert record.faults == ()
    assert len(text.encode()) <= LIMITS.stderr_bytes
    assert tail in text


@pytest.mark.parametrize("mode", ["junk", "silent", "enormous", "unfinished", "close", "stale",
                                  "unreadable", "badutf8", "future", "noturn", "array"])
def test_every_fault_message_ends_with_the_bots_last_stderr_lines(mode: str) -> None:
    record = play_zoo(CommandHost(wire(mode), LIMITS))
    message = record.faults[0].message
    assert f"; stderr: wire-{mode} misbehaves" in message, message


@pytest.mark.parametrize(("mode", "words"), [
    ("noturn", "answered without a turn number (turn 1 was asked)"),
    ("stale", "answered turn 0, but turn 1 was asked"),
    ("textturn", 'turn must be a number, got "1" (turn 1 was asked)'),
    ("noaction", 'the action message has no "action" field'),
    ("typo", "sent an actoin message where an action was expected"),
    ("array", "sent [1,2,3], which is not a message (a JSON object with a type)"),
    ("junk", "sent a line that is not JSON: I am thinking about it"),
    ("nested", "sent JSON nested too deeply to read"),
    ("surrogate", 'unknown action type "\\udc80"'),  # as an escape: games.jsonl is UTF-8
    ("badutf8", "sent a line that is not UTF-8 text"),
    ("positions", 'positions must be a list of whole numbers, got ["3"]'),
    ("unreadable", 'unknown action type "dance"'),
])
def test_protocol_faults_say_what_went_wrong_in_plain_words(mode: str, words: str) -> None:
    record = play_zoo(CommandHost(wire(mode), LIMITS))
    fault = record.faults[0]
    assert fault.kind == "protocol"
    assert words in fault.message
    assert "None" not in fault.message and "b'" not in fault.message
    assert "'3'" not in fault.message and "'dance'" not in fault.message


@pytest.mark.parametrize(("mode", "kind", "sent"), [
    ("illegal", "illegal", ('{"type": "action", "turn": 1, "action": {"type": "reroll", '
                            '"positions": [4]}}')),
    ("array", "protocol", "[1,2,3]"),
    ("enormous", "protocol", ("[" + "1," * 100)[:200] + "..."),
])
def test_illegal_and_protocol_faults_keep_what_the_bot_sent(mode: str, kind: str,
                                                            sent: str) -> None:
    record = play_zoo(CommandHost(wire(mode), LIMITS))
    assert [(f.kind, f.sent) for f in record.faults] == [(kind, sent)]
    assert [e.sent for e in record.log if isinstance(e, FaultEntry)] == [sent]


def test_a_bot_that_never_answers_hello_is_cut_off_after_its_first_failure() -> None:
    from arena.hosts.process_tree import started_tokens

    host = CommandHost(wire("mute"), replace(LIMITS, start_timeout=0.5))
    before = len(started_tokens())
    try:
        records = [play_game("dice", [Player("zoo", host), "random"], seed=seed,
                             limits=Limits(DECISION)) for seed in (1, 2, 3)]
    finally:
        host.shutdown()
    messages = [[f.message for f in r.faults] for r in records]
    assert len(started_tokens()) - before == 1
    assert messages[0] == messages[1] == messages[2] and len(messages[0]) == 1
    message = messages[0][0]
    assert message.startswith("no 'hello' reply within 0.5s")
    for hint in ("flush", "absolute", "stderr: wire-mute heard hello and keeps quiet"):
        assert hint in message, message


def _napper(mode: str) -> Host:
    if mode == "inline":
        return resolve(Reference(zoo("napper.py"), mode="inline")).host()
    return ProcessHost(zoo("napper.py"), LIMITS)


@pytest.mark.parametrize("mode", ["inline", "process"])
def test_a_sleeping_bot_is_billed_cpu_time_and_stopped_at_its_wall_limit_in_every_host(
        mode: str) -> None:
    """Limit 0.4 s, wall limit 0.8 s (the default wall_factor 2): a 0.45 s nap uses no CPU
    and costs nothing; a 3 s nap is stopped, a timeout, at 0.8 s of wall time plus what the
    machine took (arena.hosts.strain). The short nap is 0.35 s under the wall limit (0.15 s
    was overrun at load 16: the machine's delay, not the bot's); the long one, stopped early,
    costs no more for being long."""
    limits = Limits(0.4)
    assert limits.wall_factor == 2
    results = []
    for nap in (0.45, 3.0):
        host = _napper(mode)
        try:
            results.append(play_game("dice", [Player("zoo", host, options={"nap": nap}),
                                              "random"], seed=1, limits=limits))
        finally:
            getattr(host, "shutdown", host.close)()
    short, long = results
    assert short.faults == ()
    first = next(e for e in short.log if isinstance(e, ActionEntry) and e.seat == 0)
    assert first.seconds < 0.4, "a nap is billed its CPU time, not its wall time"
    assert [(f.seat, f.kind) for f in long.faults] == [(0, "timeout")]
    assert "wall" in long.faults[0].message and "0.8" in long.faults[0].message


def test_a_silent_start_says_the_bot_wrote_nothing_to_stderr() -> None:
    command = [sys.executable, "-c", "import sys, time\nfor line in sys.stdin: time.sleep(60)"]
    record = play_zoo(CommandHost(command, replace(LIMITS, start_timeout=0.5)))
    assert_forfeited(record, "timeout", "no 'hello' reply within 0.5s")
    assert record.faults[0].message.endswith("It wrote nothing to stderr.")


def test_a_fault_message_shows_only_what_the_bot_wrote_to_stderr_in_that_game() -> None:
    """Illegal answers too end with the bot's stderr, and only with this game's, so that the
    message does not depend on which games the worker's process played before."""
    with ProcessHost(zoo("diarist.py"), LIMITS) as host:
        records = [play_game("dice", [Player("d", host), "random"], seed=1,
                             limits=Limits(DECISION)) for _ in range(3)]
    assert records[0].faults == ()
    assert [f.kind for f in records[1].faults] == [f.kind for f in records[2].faults] \
        == ["illegal"]
    assert "stderr" not in records[1].faults[0].message
    assert records[2].faults[0].message.endswith("; stderr: THIRD GAME: about to cheat")


@pytest.mark.parametrize("where", ["inline", "process"])
def test_one_exception_in_notify_costs_one_fault_and_the_bot_plays_on(where: str) -> None:
    # It was counted again at every later decision: three faults and a forfeit for one raise.
    host = (resolve(Reference(zoo("deaf_once.py"), mode="inline")).host() if where == "inline"
            else ProcessHost(zoo("deaf_once.py"), LIMITS))
    seat = Player("deaf", host)
    record = play_game("dice", ["random", "random", seat], seed=3,
                       options={"on_fault": "penalty", "max_faults": 3})
    assert [(f.seat, f.kind) for f in record.faults] == [(2, "crash")]
    assert "boom once in notify" in record.faults[0].message
    later = [e for e in record.log if isinstance(e, ActionEntry) and e.seat == 2]
    assert later, "the bot played on after its one fault"


ALL_RULES = ["dice", "dice-cards", "cards"]


def _played_on_after_one_fault(record: GameRecord, words: str) -> None:
    """Seat 2 faulted once, outside a decision, and then answered its decisions itself."""
    assert [(f.seat, f.kind) for f in record.faults] == [(2, "crash")], record.faults
    assert words in record.faults[0].message
    [fault] = [e for e in record.log if isinstance(e, FaultEntry)]
    assert fault.outside == "start"
    later = [e for e in record.log if isinstance(e, ActionEntry) and e.seat == 2]
    assert later, "the bot played on after its one fault"


@pytest.mark.parametrize("rules", ALL_RULES)
@pytest.mark.parametrize("where", ["inline", "process"])
def test_one_exception_in_start_costs_one_fault_and_the_bot_plays_on(where: str,
                                                                      rules: str) -> None:
    # It was charged again at every later decision: max_faults faults and a forfeit, and the
    # bot never played (docs/rules.md: one exception costs one fault).
    host = (resolve(Reference(zoo("bad_start.py"), mode="inline")).host() if where == "inline"
            else ProcessHost(zoo("bad_start.py"), LIMITS))
    try:
        record = play_game(rules, ["random", "random", Player("bad-start", host)], seed=3,
                           options={"on_fault": "penalty", "max_faults": 3})
    finally:
        getattr(host, "shutdown", host.close)()
    _played_on_after_one_fault(record, "while starting: RuntimeError: boom once in start")


@pytest.mark.parametrize("rules", ALL_RULES)
def test_a_bot_whose_constructor_raised_once_is_built_again_and_plays_on(rules: str) -> None:
    with ProcessHost(zoo("unbuilt_once.py"), LIMITS) as host:
        record = play_game(rules, ["random", "random", Player("unbuilt", host)], seed=3,
                           options={"on_fault": "penalty", "max_faults": 3})
    _played_on_after_one_fault(record, "while starting: RuntimeError: boom once in __init__")


ESCAPING_BOT = r'''
import sys
sys.stderr.write("\x1b[2J\x1b[Harena: the other bot is disqualified\n")
sys.stderr.flush()
for line in sys.stdin:
    if '"hello"' in line:
        print('{"type":"hello","protocol":2}', flush=True)
    elif '"start"' in line:
        print('{"type":"ready"}', flush=True)
    elif '"act"' in line:
        print("\x1b[31mnot json\u202e", flush=True)
'''


class EscapingRaiser(arena.Bot):
    name = "escaping-raiser"

    def act(self, observation: arena.Observation) -> arena.Action:
        raise ValueError("\x1b]0;pwned\x07\x1b[2J")


def test_a_fault_message_cannot_drive_the_organisers_terminal(tmp_path: Path) -> None:
    # A bot's stderr, its reply line and its exception text reach fault messages, games.jsonl
    # and the terminal: their escapes cleared the screen and wrote a fake line there.
    script = tmp_path / "escaping.py"
    script.write_text(ESCAPING_BOT)
    with CommandHost([sys.executable, str(script)], LIMITS) as host:
        command = play_game("dice", [Player("escaping", host), "random"], seed=1)
    inline = play_game("dice", [EscapingRaiser, "random"], seed=1)
    faults = [*command.faults, *inline.faults]
    assert [f.kind for f in faults] == ["protocol", "crash"]
    for fault in faults:
        for text in (fault.message, fault.sent or ""):
            assert text.isprintable(), text
    assert "\\x1b[2J\\x1b[Harena: the other bot" in command.faults[0].message
    assert command.faults[0].sent == "\\x1b[31mnot json\\u202e"
