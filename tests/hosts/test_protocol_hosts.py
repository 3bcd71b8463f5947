"""Process and command hosts: the same games as inline, bots in any language, a process reused
across games and replaced after a fault, limits and surroundings as documented, and bots that
die with the referee."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest
from isolation_support import LIMITS, NAMESPACES, play_zoo, wire, zoo
from needs import require

from arena import play_game
from arena.bot import BotContext, Limits
from arena.entrants import Reference
from arena.hosts.pipe import CommandHost, PipeHost, ProcessHost, ProcessLimits
from arena.hosts.process_tree import TOKEN_VARIABLE, leftovers
from arena.hosts.processes import MiB, remove_stale_folders
from arena.referee import ActionEntry, FaultEntry, GameRecord, Player
from arena.rules.base import Event

RULES = ("dice", "dice-cards", "cards")
EXAMPLES = Path(__file__).parents[2] / "bots" / "examples"


def parent_of(pid: int | None) -> int | None:
    """A process's parent, read from /proc (None once it is gone)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def moves(record: GameRecord) -> list[tuple]:
    """The log without think times, which differ from run to run."""
    return [entry[:2] if isinstance(entry, ActionEntry) else
            entry[:3] if isinstance(entry, FaultEntry) else entry
            for entry in record.log]


@pytest.mark.parametrize("rules", RULES)
def test_a_python_bot_plays_the_same_game_in_a_process_as_inline(rules: str) -> None:
    inline = play_game(rules, ["random", "random", "random"], seed=11)
    with ProcessHost("random", LIMITS) as third:
        isolated = play_game(rules, ["random", "random", Player("random", third)], seed=11)
    assert moves(isolated) == moves(inline)
    assert isolated.result == inline.result
    assert isolated.faults == ()


@pytest.mark.parametrize("rules", RULES)
def test_a_process_bot_sees_every_observation_exactly_as_inline(
        rules: str, capsys: pytest.CaptureFixture[str]) -> None:
    bot = zoo("historian.py")
    inline = play_game(rules, [Reference(bot, mode="inline"), "random", "random"], seed=4)
    printed = [t for t in capsys.readouterr().out.splitlines() if t.startswith("SEEN ")]
    host = ProcessHost(bot, LIMITS)
    isolated = play_zoo(host, rules, seed=4, decision=1.0)
    seen = [t for t in host.stderr_tail().splitlines() if t.startswith("SEEN ")]
    assert moves(isolated) == moves(inline)
    assert seen == printed
    assert max(int(t.split()[1]) for t in seen) >= 3  # histories of several events


CHRONICLER = """
import hashlib

import arena
from arena.rules.playout import random_action


class Chronicler(arena.Bot):
    name = "chronicler"

    def act(self, observation):
        text = repr(observation)  # its claims show their straight_over_full
        print("SEEN", hashlib.sha256(text.encode()).hexdigest()[:16])
        return random_action(observation.legal, self.rng)
"""


def test_one_process_sees_every_observation_as_inline_over_games_and_options(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The bot's process keeps the events it decoded from game to game: a later game, and
    one whose claims order differently (straight_over_full), must still see its own."""
    bot = tmp_path / "chronicler.py"
    bot.write_text(CHRONICLER)
    bot = str(bot)
    games = [(4, False), (5, True), (4, True), (6, False)]
    printed = []
    for seed, sof in games:
        play_game("dice", [Reference(bot, mode="inline"), "random", "random"], seed=seed,
                  options={"straight_over_full": sof})
        printed += [t for t in capsys.readouterr().out.splitlines() if t.startswith("SEEN ")]
    with ProcessHost(bot, LIMITS) as host:
        for seed, sof in games:
            record = play_game("dice", [Player("zoo", host), "random", "random"], seed=seed,
                               options={"straight_over_full": sof}, limits=Limits(1.0))
            assert record.faults == ()
        seen = [t for t in host.stderr_tail().splitlines() if t.startswith("SEEN ")]
    assert seen == printed
    assert len(seen) > 20


@pytest.mark.parametrize("rules", RULES)
def test_protocol_2_rebuilds_from_the_events_the_history_protocol_1_repeats(rules: str) -> None:
    digests = []
    for version in (1, 2):
        host = CommandHost(wire(f"history{version}"), LIMITS)
        record = play_zoo(host, rules, seed=6, decision=1.0)
        assert record.faults == ()
        assert host.protocol == version
        digests.append([t for t in host.stderr_tail().splitlines() if t.startswith("HISTORY")])
    assert digests[0] == digests[1]
    assert len(digests[0]) > 3


class EagerHost(CommandHost):
    """Sends every event at once instead of with the next request."""

    def notify(self, event: Event) -> None:
        super().notify(event)
        self.deliver()


def test_events_delivered_ahead_of_the_request_give_the_same_histories() -> None:
    digests = []
    for host in (CommandHost(wire("history2"), LIMITS), EagerHost(wire("history2"), LIMITS)):
        record = play_zoo(host, "dice", seed=8, decision=1.0)
        assert record.faults == ()
        digests.append([t for t in host.stderr_tail().splitlines() if t.startswith("HISTORY")])
    assert digests[0] == digests[1]
    assert len(digests[0]) > 3


@pytest.mark.parametrize("rules", RULES)
def test_the_javascript_and_python_example_bots_play_identical_games(rules: str) -> None:
    require(shutil.which("node"), "node is not installed (apt-get install nodejs)")
    records = []
    for command in (["node", str(EXAMPLES / "example_bot.js")],
                    [sys.executable, str(EXAMPLES / "example_bot.py")]):
        with CommandHost(command, LIMITS) as host:
            records.append(play_game(rules, [Player("example", host), "random", "random"],
                                     seed=5))
            assert host.name in ("example-js", "example-py")
    js, py = records
    assert js.faults == py.faults == ()
    assert moves(js) == moves(py)
    assert sum(1 for e in js.log if isinstance(e, ActionEntry) and e.seat == 0) > 0


def test_a_healthy_process_is_reused_and_a_faulted_one_replaced() -> None:
    with ProcessHost("random", LIMITS) as host:
        play_game("dice", [Player("r", host), "random"], seed=1)
        assert host.process is not None
        pid = host.process.pid
        play_game("cards", [Player("r", host), "random", "random"], seed=2)
        assert host.process is not None and host.process.pid == pid
        assert (host.name, host.games) == ("random", 2)
    assert host.process is None
    with CommandHost(wire("junk"), LIMITS) as faulty:
        record = play_game("dice", [Player("j", faulty), "random"], seed=1)
        assert [f.kind for f in record.faults] == ["protocol"]
        assert faulty.process is None


def test_after_an_illegal_answer_the_process_plays_on_as_documented() -> None:
    """An illegal answer is a well-formed reply: the referee charges it through the rules,
    and the process, which followed the protocol, is kept (docs/protocol.md, Faults)."""
    with CommandHost(wire("illegal"), LIMITS) as host:
        record = play_game("dice", [Player("i", host), "random"], seed=1)
        assert [f.kind for f in record.faults] == ["illegal"]
        assert host.process is not None
        pid = host.process.pid
        again = play_game("dice", [Player("i", host), "random"], seed=2)
        assert again.faults == ()  # the zoo bot misbehaves only on its first decision
        assert host.process is not None and host.process.pid == pid


def test_a_command_bot_behind_a_wrapper_script_lives_on_between_games() -> None:
    command = ["sh", "-c", f"{sys.executable} {EXAMPLES / 'example_bot.py'}; true"]
    with CommandHost(command, LIMITS) as host:
        for seed in (1, 2):
            record = play_game("dice", [Player("wrapped", host), "random"], seed=seed)
            assert record.faults == ()


def test_a_python_bot_s_helpers_are_stopped_at_the_end_of_its_game() -> None:
    with ProcessHost(zoo("forker.py"), LIMITS) as host:
        record = play_game("dice", [Player("forker", host), "random"], seed=1)
        assert record.faults == ()
        assert host.process is not None
        helpers = [int(t[7:]) for t in host.stderr_tail().splitlines()
                   if t.startswith("HELPER ")]
        assert helpers
        bot = {host.process.pid, host.process.handle.bot_pid}  # with `unshare`, two processes
        bot |= {parent_of(pid) for pid in bot}  # in bubblewrap, three (its init between)
        until = time.monotonic() + 3  # SIGKILL takes a moment to finish them
        while set(leftovers([host.process.handle.token])) - bot and time.monotonic() < until:
            time.sleep(0.02)
        assert set(leftovers([host.process.handle.token])) <= bot


def test_in_penalty_mode_a_crashed_bot_is_restarted_for_its_next_decision() -> None:
    record = play_zoo(ProcessHost(zoo("exiter.py"), LIMITS),
                      options={"on_fault": "penalty", "max_faults": 2})
    assert [(f.seat, f.kind) for f in record.faults] == [(0, "crash"), (0, "crash")]
    assert all("exited with code 3" in f.message for f in record.faults)
    assert record.result.placements[0] == 3


def _report(text: str, marker: str) -> dict:
    line = next(t for t in text.splitlines() if t.startswith(marker + " "))
    return json.loads(line[len(marker) + 1:])


ALLOWED_ENV = {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "PYTHONUNBUFFERED", "PYTHONHASHSEED",
               "PYTHONDONTWRITEBYTECODE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
               "MKL_NUM_THREADS", TOKEN_VARIABLE}


@pytest.mark.parametrize("namespace", NAMESPACES)
@pytest.mark.parametrize("kind", ["process", "command"])
def test_a_bot_runs_limited_in_an_empty_folder_with_a_clean_environment(
        kind: str, namespace: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_SECRET_FOR_TEST", "the dice are 9 9 9 9 9")
    limits = replace(LIMITS, memory=300 * MiB, file_size=2 * MiB, open_files=40, cpu=50,
                     pid_namespace=namespace, isolation="none")  # the sandbox: test_sandbox.py
    host: PipeHost = (ProcessHost(zoo("inspector.py"), limits) if kind == "process"
                      else CommandHost(wire("inspect"), limits))
    with host:
        record = play_game("dice", [Player("i", host), "random"], seed=3)
        report = _report(host.stderr_tail(), "INSPECT")
        folder = report["cwd"]
        assert Path(folder).is_dir()
    assert record.faults == ()
    assert not Path(folder).exists()  # removed with the process
    assert report["files"] == [] and folder != os.getcwd()
    assert set(report["env"]) <= ALLOWED_ENV
    assert report["limits"]["RLIMIT_AS"] == [300 * MiB] * 2
    assert report["limits"]["RLIMIT_FSIZE"] == [2 * MiB] * 2
    assert report["limits"]["RLIMIT_NOFILE"] == [40, 40]
    assert report["limits"]["RLIMIT_CPU"] == [50, 51]
    assert report["limits"]["RLIMIT_CORE"] == [0, 0]
    assert report["limits"]["RLIMIT_NPROC"][0] > 0
    assert report["session"] is True
    assert (report["pid"] == 1) == namespace


REFEREE = textwrap.dedent("""
    import json, os, random, sys
    from arena.bot import BotContext, Limits
    from arena.hosts.pipe import ProcessHost, ProcessLimits
    host = ProcessHost("random", ProcessLimits(pid_namespace={namespace}))
    host.start(BotContext(0, 2, "dice", {{}}, Limits(), random.Random(1)))
    handle = host.process.handle
    print(json.dumps([handle.token, handle.bot_pid, handle.folder]), flush=True)
    os._exit(0)  # the referee dies without cleaning up
""")


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_bots_die_with_the_referee(namespace: bool, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot dies with its referee; its folder, left behind, goes with the next referee's
    first bot (in a temp folder of its own: the suite's other referees would remove it)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    done = subprocess.run([sys.executable, "-c", REFEREE.format(namespace=namespace)],
                          capture_output=True, text=True, timeout=60, check=True,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    token, pid, folder = json.loads(done.stdout)
    assert pid is not None
    until = time.monotonic() + 5
    while leftovers([token]) and time.monotonic() < until:
        time.sleep(0.05)
    assert leftovers([token]) == []
    assert Path(folder).is_dir()  # nobody was left to remove it: the next referee does
    remove_stale_folders.cache_clear()
    assert folder in remove_stale_folders()
    assert not Path(folder).exists()


def test_limits_are_checked() -> None:
    for bad in ({"memory": -1}, {"open_files": 1.5}, {"line_bytes": 10}, {"start_timeout": 0}):
        with pytest.raises(ValueError):
            ProcessLimits(**bad)  # type: ignore[arg-type]
    for wrong in ({"wall_factor": 0.5}, {"wall_factor": float("inf")}, {"decision": 0}):
        with pytest.raises(ValueError):
            Limits(**wrong)  # type: ignore[arg-type]


def test_a_host_used_outside_a_game_says_so() -> None:
    host = ProcessHost("random", LIMITS)
    context = BotContext(0, 2, "dice", {}, Limits(), random.Random(1))
    with pytest.raises(Exception, match="not started"):
        host.end(None)  # type: ignore[arg-type]
    host.start(context)
    host.close()
    host.shutdown()
    assert host.process is None


def test_a_bot_is_told_its_wall_limit_in_the_start_context() -> None:
    with CommandHost(wire("inspect"), LIMITS) as host:
        play_game("dice", [Player("w", host), "random"], seed=1,
                  limits=Limits(0.3, bank=2.0, wall_factor=3.0))
        told = [t for t in host.stderr_tail().splitlines() if t.startswith("LIMITS ")]
    assert [json.loads(t[7:]) for t in told] == [
        {"decision": 0.3, "bank": 2.0, "wall_factor": 3.0}]


def test_a_failure_in_notify_after_the_last_decision_is_said_at_the_end() -> None:
    """The events after a bot's last request reach it with `end`: its launcher answers that
    with the failure, so it is recorded (with no effect: the game is decided)."""
    bot = Path(__file__).parents[1] / "fixtures" / "checkbot" / "deaf_to_the_end.py"
    with ProcessHost(str(bot), LIMITS) as host:
        record = play_game("dice", [Player("deaf", host), "random"], seed=3)
    assert [(f.seat, f.kind) for f in record.faults] == [(0, "crash")]
    assert record.faults[0].message.startswith("in notify: RuntimeError: the game cannot be over")


def test_shutdown_says_how_the_bot_process_ended() -> None:
    host = ProcessHost("random", LIMITS)
    host.start(BotContext(0, 2, "dice", {}, Limits(), random.Random(1)))
    host.close()
    assert host.shutdown() == "exited with code 0"
    assert host.shutdown() is None  # no process was running


def test_a_process_asked_to_stop_exits_on_its_own_before_its_shutdown_waits() -> None:
    """What lets a worker's kept processes end side by side: each is asked first, and by
    the time its `shutdown` comes it has exited without being waited for or killed."""
    host = ProcessHost("random", LIMITS)
    host.start(BotContext(0, 2, "dice", {}, Limits(), random.Random(1)))
    host.close()
    process = host.process
    assert process is not None
    host.ask_to_stop()
    host.ask_to_stop()  # asked twice, told once: the second finds it asked
    until = time.monotonic() + 20.0
    while process.alive() and time.monotonic() < until:
        time.sleep(0.01)
    assert not process.alive(), "asked to stop, the bot process went on running"
    assert host.shutdown(wait=0) == "exited with code 0"
