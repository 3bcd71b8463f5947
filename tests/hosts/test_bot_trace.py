"""A crash keeps where the bot raised: the last frames of its own code (its file and line,
never the referee's or the launcher's), inline and in its own process, in the record, the
replay and games.jsonl, bounded and printable; and a memory kill names the limit."""

from __future__ import annotations

import gzip
import json
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from isolation_support import LIMITS, play_zoo, wire, zoo

from arena import play_game
from arena.bot import Limits
from arena.entrants import Reference, resolve
from arena.hosts.inline import Host
from arena.hosts.pipe import CommandHost, ProcessHost
from arena.hosts.trace import FRAMES, size_text
from arena.referee import FaultEntry, GameRecord, Player
from arena.replay import encode_game, fault_json

MY_BOT = '''\
"""A student's bot: it looks a name up in a table that does not hold it."""

import arena

TABLE = {"left": 1}


def lookup(name):
    return TABLE[name]


class MyBot(arena.Bot):
    name = "my-bot"

    def start(self, context):
        if self.settings.get("fail") == "start":
            lookup("start")

    def notify(self, event):
        if self.settings.get("fail") == "notify":
            lookup("notify")

    def act(self, obs):
        return self.pick(obs)

    def pick(self, obs):
        lookup("central")
        return arena.Challenge()
'''
MY_BOT_OPTIONS = '    options = {"fail": "act"}\n'


def line_of(text: str) -> int:
    """The line of MY_BOT that holds `text` (as written to the file)."""
    source = bot_source().splitlines()
    return next(i for i, line in enumerate(source, 1) if text in line)


def bot_source() -> str:
    return MY_BOT.replace('    name = "my-bot"\n', '    name = "my-bot"\n' + MY_BOT_OPTIONS)


@pytest.fixture
def my_bot(tmp_path: Path) -> str:
    path = tmp_path / "my_bot.py"
    path.write_text(bot_source())
    return str(path)


def host_of(mode: str, bot: str) -> Host:
    if mode == "inline":
        return resolve(Reference(bot, mode="inline")).host()
    return ProcessHost(bot, LIMITS)


def play(host: Host, fail: str | None = "act") -> GameRecord:
    options = {} if fail is None else {"fail": fail}
    try:
        return play_game("dice", [Player("mine", host, options=options), "random"],
                         seed=1, limits=Limits(5.0))
    finally:
        getattr(host, "shutdown", host.close)()


def frame(source: str, function: str) -> str:
    """How a fault's trace shows a line of my_bot.py."""
    return f"my_bot.py:{line_of(source)} in {function}: {source}"


EXPECTED = [frame("return self.pick(obs)", "MyBot.act"), frame('lookup("central")', "MyBot.pick"),
            frame("return TABLE[name]", "lookup")]


@pytest.mark.parametrize("mode", ["inline", "process"])
def test_a_crash_keeps_the_bots_own_frames_and_nothing_of_arena(mode: str, my_bot: str) -> None:
    record = play(host_of(mode, my_bot))
    [fault] = record.faults
    assert (fault.kind, fault.message) == ("crash", "KeyError: 'central'")
    assert list(fault.trace) == EXPECTED
    [entry] = [e for e in record.log if isinstance(e, FaultEntry)]
    assert entry.trace == fault.trace


@pytest.mark.parametrize("mode", ["inline", "process"])
@pytest.mark.parametrize("where", ["start", "notify"])
def test_a_crash_outside_a_decision_keeps_its_frames_too(mode: str, where: str,
                                                          my_bot: str) -> None:
    record = play(host_of(mode, my_bot), fail=where)
    fault = record.faults[0]
    assert fault.trace[-2:] == (frame(f'lookup("{where}")', f"MyBot.{where}"),
                                frame("return TABLE[name]", "lookup"))


def test_the_trace_is_recorded_only_where_there_is_one(my_bot: str) -> None:
    record = play(host_of("inline", my_bot))
    assert fault_json(record.faults[0])["trace"] == EXPECTED
    replay = gzip.decompress(encode_game(record, {"id": "g"}, [{}, {}])).decode()
    lines = [json.loads(line) for line in replay.splitlines()]
    assert [e["trace"] for e in lines if e.get("type") == "fault"] == [EXPECTED]
    assert lines[-1]["faults"][0]["trace"] == EXPECTED
    timeout = replace(record.faults[0], kind="timeout", trace=())
    assert "trace" not in fault_json(timeout)


def test_a_trace_a_bot_process_sends_is_bounded_and_printable() -> None:
    record = play_zoo(CommandHost(wire("tracer"), LIMITS))
    fault = record.faults[0]
    assert fault.kind == "crash" and fault.message.startswith("gave up")
    assert len(fault.trace) == FRAMES
    for frame in fault.trace:
        assert len(frame) <= 203 and frame.endswith("...")
        assert frame.isprintable() and "\u202e" not in frame and "\x1b" not in frame


def test_a_trace_deep_in_a_recursion_keeps_only_its_last_frames(tmp_path: Path) -> None:
    path = tmp_path / "deep.py"
    path.write_text(textwrap.dedent('''\
        import arena

        def down(n):
            return down(n + 1)

        class Deep(arena.Bot):
            def act(self, obs):
                return down(0)
        '''))
    record = play(host_of("inline", str(path)), fail=None)
    assert record.faults[0].message.startswith("RecursionError: ")
    assert record.faults[0].trace == ("deep.py:4 in down: return down(n + 1)",) * FRAMES


@pytest.mark.parametrize("mode", ["inline", "process"])
@pytest.mark.parametrize("message", ["raise RuntimeError('no')", "return 5",
                                     "return Sly('x')"], ids=["raises", "not a str", "sly str"])
def test_an_exception_whose_message_breaks_is_the_bots_crash(mode: str, message: str,
                                                             tmp_path: Path) -> None:
    """A student's exception class with a broken __str__ (raising, not returning a str, a str
    whose splitlines raises) is that bot's crash, never a referee bug that stops the run."""
    path = tmp_path / "broken.py"
    path.write_text(textwrap.dedent(f'''\
        import arena

        class Sly(str):
            def splitlines(self, *args):
                raise ValueError("sly")

        class Broken(Exception):
            def __str__(self):
                {message}

        class Bot(arena.Bot):
            def act(self, obs):
                raise Broken()
        '''))
    record = play(host_of(mode, str(path)), fail=None)
    fault = record.faults[0]
    assert fault.kind == "crash" and fault.message.startswith("Broken: "), fault.message
    assert "broken.py:13 in Bot.act: raise Broken()" in fault.trace


def test_a_memory_kill_names_the_limit_it_broke() -> None:
    limits = replace(LIMITS, memory=256 << 20)
    record = play_zoo(ProcessHost(zoo("glutton.py"), limits))
    assert record.faults[0].message.startswith("MemoryError: over its 256 MiB memory limit")


@pytest.mark.parametrize(("size", "said"), [
    (1 << 30, "1 GiB"), (256 << 20, "256 MiB"), (1536 << 20, "1536 MiB"), (640 << 10, "640 KiB"),
    (1000, "1000 bytes")])
def test_a_memory_limit_is_said_in_the_unit_it_was_set_in(size: int, said: str) -> None:
    assert size_text(size) == said
