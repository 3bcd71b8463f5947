"""Pauses: a referee stopped from outside (SIGSTOP then SIGCONT, as a suspended laptop, a
VM moved or a swapping machine stops it) longer than a decision's wall limit, even past the
backstop, costs the bot deciding nothing, in every host; the time is recorded as the
machine's (arena.hosts.strain)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest

pytestmark = pytest.mark.load  # stops a referee for seconds: no hog beside it
CHILD = Path(__file__).with_name("paused_referee.py")
DECISION, NAP = 0.2, 0.05
"""Each decision sleeps a quarter of its limit: nearly all the referee's time is inside a
decision, so a pause lands in one."""
PAUSE = 2.0
"""Longer than the wall limit (0.4 s) and than the backstop (4 × 0.4 s)."""


def held(strained: object) -> bool:
    """Whether a pause held a decision: one let run past its wall limit, by a pause's length."""
    return (isinstance(strained, dict) and strained["extended"] >= 1
            and strained["most"] >= PAUSE * 0.9)


def told_held(asks: IO[str], answers: IO[str], until: float) -> bool:
    """Ask the child what the machine cost its decisions until a pause has held one, or
    until the held decision has surely ended (`until`) and none has."""
    while True:
        asks.write("strain\n")
        asks.flush()
        if held(json.loads(answers.readline())):
            return True
        if time.monotonic() > until:
            return False
        time.sleep(0.05)


def paused_run(mode: str, pauses: int) -> dict[str, object]:
    """Run the child referee, stop it for PAUSE seconds until a pause has held a decision
    (on an idle machine the first does; on a loaded one, where the referee spends more of
    its time between decisions, a later one), at most `pauses` times, and read its verdict."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [
        str(Path(__file__).parent), os.environ.get("PYTHONPATH")]))}
    child = subprocess.Popen([sys.executable, str(CHILD), mode, str(DECISION), str(NAP)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdin is not None and child.stdout is not None
    try:
        assert child.stdout.readline().strip() == "PLAYING"
        for _ in range(pauses):
            time.sleep(0.7)
            os.kill(child.pid, signal.SIGSTOP)
            time.sleep(PAUSE)
            os.kill(child.pid, signal.SIGCONT)
            if told_held(child.stdin, child.stdout, until=time.monotonic() + 0.5):
                break
        out, _ = child.communicate("stop\n", timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, out
    verdict: dict[str, object] = json.loads(out.splitlines()[-1])
    return verdict


@pytest.mark.parametrize("mode", ["inline", "process"])
def test_a_referee_paused_past_the_wall_limit_costs_the_deciding_bot_nothing(mode: str) -> None:
    verdict = paused_run(mode, pauses=12)
    assert verdict["faults"] == [], verdict
    assert held(verdict["strain"]), verdict


def test_a_paused_run_costs_no_bot_anything_and_tells_the_organiser(tmp_path: Path) -> None:
    """`arena run` and its workers stopped past the wall limit (the bots, in their own
    sessions, keep running): no fault, and the run says so at its end, in load.json and in
    the report's header. Its games are played to 2 points: the pause needs a game written and
    one being played, not long ones."""
    dozer = Path(__file__).parent / "zoo" / "dozer.py"
    config = tmp_path / "paused.yaml"
    config.write_text("\n".join([
        "name: paused", "rules: dice", "options: {max_points: 2}", "entrants:",
        *(line for n in (1, 2) for line in (
            f"  - bot: {dozer}", f"    alias: d{n}", "    mode: process",
            "    options: {nap: 0.05}")),
        "format: {type: round-robin, games: 2}", "limits: {decision: 0.2}",
        "workers: 1", "replays: false", ""]))
    out = tmp_path / "results"
    run = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), "--out",
                            str(out), "--quiet"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not (out / "games.jsonl").exists() or not (out / "games.jsonl").stat().st_size:
            assert time.monotonic() < deadline and run.poll() is None, run.communicate()
            time.sleep(0.05)
        time.sleep(0.3)  # into the next game's decisions (not between two games, where the
        # bots are started, told the end and frozen, and no decision is waiting)
        os.killpg(run.pid, signal.SIGSTOP)  # the run and its workers, not the bots
        time.sleep(PAUSE)
        os.killpg(run.pid, signal.SIGCONT)
        _, err = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert run.returncode == 0, err
    games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(games) == 4 and [g["faults"] for g in games if g["faults"]] == []
    if not (out / "load.json").exists():  # the pause fell between two decisions (between
        assert "the machine was" not in err, err  # games, or in a start): no decision waited
        return  # past its limit, so none was extended and there is nothing to tell
    assert "arena: warning: the machine was" in err, err
    assert json.loads((out / "load.json").read_text())["extended"] >= 1
    assert "the machine was" in (out / "report.html").read_text()


def test_the_strain_of_resumed_runs_adds_up_and_a_run_that_kept_up_writes_nothing(
        tmp_path: Path) -> None:
    from arena.hosts.strain import Strain
    from arena.tournament.run import strained

    assert strained.record(tmp_path, None) is None
    assert not (tmp_path / "load.json").exists()  # a machine that kept up: no file
    strained.record(tmp_path, Strain(2, 1.5, 1))
    said = strained.record(tmp_path, Strain(1, 8.04, 1))
    assert strained.read(tmp_path) == Strain(3, 8.04, 2)
    assert said is not None and "3 decisions" in said and "8.04s" in said
    (tmp_path / "load.json").write_text('{"waited": -1}')
    assert strained.read(tmp_path) is None  # not one arena wrote: no line, no error


def test_a_pause_counts_whenever_the_pulse_beats_while_a_decision_asks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pulse notes a pause at its first beat after it; a decision that asks what the
    referee lost just then (the pulse beats while the question reads its clock: under load,
    the two threads woken by SIGCONT run in any order) counts the pause all the same. Missed,
    an inline bot's watch stops it at its wall limit, and a process bot is billed the pause."""
    import contextlib
    import queue
    import threading
    import types

    from arena.hosts import strain

    clock = [100.0]
    asleep: queue.Queue[None] = queue.Queue()
    go: queue.Queue[bool] = queue.Queue()

    real = strain.time
    ours = {threading.main_thread()}  # the test's own pulse and the question asking it

    def sleep(seconds: float) -> None:  # the pulse's: it beats when the test says
        if threading.current_thread() not in ours:  # the worker's own pulse beats on
            return real.sleep(seconds)
        asleep.put(None)
        if not go.get(timeout=30):
            raise LookupError  # the test is over: the thread ends

    real_queued = strain._queued

    def queued(fd: int) -> float:  # the question reads the clock: the pulse beats meanwhile
        if threading.current_thread() not in ours:
            return real_queued(fd)
        if threading.current_thread() is threading.main_thread():
            go.put(True)
            asleep.get(timeout=30)
        return 0.0

    def monotonic() -> float:
        return clock[0] if threading.current_thread() in ours else real.monotonic()

    monkeypatch.setattr(strain, "time", types.SimpleNamespace(monotonic=monotonic, sleep=sleep))
    monkeypatch.setattr(strain, "_queued", queued)
    pulse = strain.Pulse()

    def beat() -> None:
        with contextlib.suppress(LookupError):
            pulse._beat(threading.Event())

    beating = threading.Thread(target=beat, daemon=True)
    ours.add(beating)
    beating.start()
    try:
        asleep.get(timeout=30)  # it beat at 100.0 and sleeps
        clock[0] = 100.0 + strain.TICK + PAUSE  # stopped for PAUSE, then continued
        assert pulse.lost(100.0, clock[0]) == pytest.approx(PAUSE)
        assert pulse.lost(100.0, clock[0]) == pytest.approx(PAUSE)  # and once only after it
    finally:
        go.put(False)
        beating.join(30)


def test_a_referee_paused_while_a_bot_starts_costs_it_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The start-up limit (`limits.start`) does not count the time the referee was not
    running either: a bot that says hello after 1 s, 0.1 s of it while the referee ran (its
    pulse says so), is within a 0.5 s limit; the same bot with the referee running throughout
    is stopped (its fault, or the referee's when the machine was too slow to run its launcher
    at all)."""
    from arena.hosts import pipe_lines
    from arena.hosts.inline import BotFault, RefereeFailure
    from arena.hosts.pipe import CommandHost, ProcessLimits

    wire = Path(__file__).parent / "zoo" / "wire.py"
    late = [sys.executable, "-c", ("import runpy, sys, time; time.sleep(1.0); sys.argv = "
                                   f"['wire.py', 'ok']; runpy.run_path({str(wire)!r}, "
                                   "run_name='__main__')")]
    limits = ProcessLimits(start_timeout=0.5, isolation="none")
    for paused, said in ((True, "wire-ok"), (False, None)):
        lost = (lambda since, now: max(0.0, now - since - 0.1)) if paused else (
            lambda since, now: 0.0)
        monkeypatch.setattr(pipe_lines.PULSE, "lost", lost)
        host = CommandHost(late, limits)
        try:
            card = host.introduce()
        except (BotFault, RefereeFailure) as fault:
            assert not paused and "no 'hello' reply within 0.5s" in str(fault), fault
        else:
            assert paused and card.name == said, card
        finally:
            host.shutdown()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # on purpose
def test_a_pulse_that_stopped_is_no_pause_and_beats_again_at_the_next_start(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Were the pulse's thread ever to end (whatever raised in it), its silence would read as
    the referee paused ever since: no decision would ever be late, and a sleeping bot would
    hold its table for ever. A stopped pulse's silence is no pause, and start() beats again."""
    import threading
    import types

    from arena.hosts import strain

    real = strain.time
    ending: set[threading.Thread] = set()

    def sleep(seconds: float) -> None:
        if threading.current_thread() in ending:
            raise SystemExit  # ends the thread, as anything raised in it would
        real.sleep(seconds)

    def started_then_ended(pulse: strain.Pulse) -> None:
        before = set(threading.enumerate())
        pulse.start()
        beating = set(threading.enumerate()) - before
        assert len(beating) == 1  # its thread
        ending.update(beating)
        for thread in beating:
            thread.join(10)
            assert not thread.is_alive()

    monkeypatch.setattr(strain, "time", types.SimpleNamespace(monotonic=real.monotonic,
                                                              sleep=sleep))
    pulse = strain.Pulse()
    started_then_ended(pulse)
    last = pulse.state[0][0]
    assert pulse.lost(last, last + 60.0) == 0.0
    started_then_ended(pulse)  # the same process: started again all the same

