"""Under load: with CPU hogs on its core, a bot that stays within its CPU budget is not
forfeited although its wall time runs over, inline or in its own process, and a spinning bot
is still stopped in time."""

from __future__ import annotations

import contextlib
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest
from isolation_support import LIMITS, zoo
from needs import require

from arena.bot import Bot, BotContext, Limits
from arena.hosts.cgroups import controllers
from arena.hosts.freezer import settle
from arena.hosts.inline import BotFault, InlineHost, RefereeFailure, decision_alarm
from arena.hosts.pipe import CommandHost, PipeHost, ProcessHost
from arena.hosts.process_limits import ProcessLimits
from arena.hosts.process_tree import runnable
from arena.rules import CHANCE, RULESETS
from arena.rules.actions import Action
from arena.rules.base import Observation
from arena.rules.playout import random_action

pytestmark = pytest.mark.load  # six CPU hogs on one core: one load test at a time
DECISION = 0.4
SPIN = 0.1
"""The spinner's limit: it is stopped once it used that much CPU time (seven processes share
its core, so about 0.7 s of wall time), well within its wall limit (11 times that)."""


@pytest.fixture
def hogs() -> Iterator[Callable[[], None]]:
    """This test and the bots it starts on one core (children inherit the affinity), and a
    call that starts six busy processes on it, for the rest of the test: called once the
    bots have started, whose start is not what is tested (under the hogs, it cost 7 times its
    CPU in theirs)."""
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cores)})
    procs: list[subprocess.Popen[bytes]] = []

    def start() -> None:
        procs.extend(subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                      start_new_session=True)
                     for _ in range(6))  # each its own session: under autogroup, its own share

    try:
        yield start
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
        os.sched_setaffinity(0, cores)


def first_observation():
    """Seat 0's first decision in a dice game."""
    rules = RULESETS["dice"]
    state = rules.new_game(2, rules.check_options({}))
    rng = random.Random(3)
    while rules.to_act(state) == CHANCE:
        state = rules.apply(state, rules.chance(state, rng))
    return rules.observe(state, 0)


def context(**bot_options: float) -> BotContext:
    """Seat 0's context, with a generous wall limit (4.4 s): the test is about CPU billing."""
    return BotContext(0, 2, "dice", {}, Limits(DECISION, wall_factor=11.0), random.Random(1),
                      bot_options)


def test_cpu_time_is_billed_so_a_loaded_machine_does_not_forfeit(
        hogs: Callable[[], None]) -> None:
    limits = LIMITS
    observation = first_observation()
    with ProcessHost(zoo("burner.py"), limits) as burner, ProcessHost(
            zoo("spinner.py"), limits) as spinner:
        burner.start(context(work=DECISION * 0.7))
        spinner.start(context())
        hogs()
        # one decision, several times its limit in wall time under the hogs (a second was
        # the same case again, and cost a core for 2 s more)
        try:
            action = burner.act(observation, DECISION)
        except BotFault as fault:
            pytest.fail(f"forfeited under load: {fault}")
        assert observation.is_legal(action)
        wall, billed = burner.last_wall, burner.billed
        assert billed <= DECISION
        burner.close()
        assert wall > DECISION, f"the load did not slow the bot: {wall, billed}"

        with pytest.raises(BotFault, match="CPU time") as fault:
            spinner.act(observation, SPIN)
        assert fault.value.kind == "timeout"
        spinner.close()


def test_time_a_bot_queued_for_a_cpu_others_held_does_not_count_against_its_wall_limit(
        hogs: Callable[[], None]) -> None:
    """Six hogs share the bot's core: its 0.28 s of work takes longer than its wall limit
    (0.8 s) in wall time, all of it waiting for the CPU, and it is not forfeited."""
    observation = first_observation()
    tight = BotContext(0, 2, "dice", {}, Limits(DECISION, wall_factor=2.0), random.Random(1),
                       {"work": DECISION * 0.7})
    with ProcessHost(zoo("burner.py"), LIMITS) as burner:
        burner.start(tight)
        hogs()
        try:  # one decision (a second was the same case again, and cost a core for 2 s more)
            burner.act(observation, DECISION)
        except BotFault as fault:
            pytest.fail(f"forfeited for the others' load: {fault}")
        except RefereeFailure as failure:  # too loaded for the limits to mean anything:
            assert "the machine is overloaded" in str(failure)  # the referee's, not the bot's
            return
        wall = burner.last_wall
        burner.close()
    assert wall > DECISION * 2.0, f"the load did not slow the bot past its wall: {wall}"


UNFROZEN = ProcessLimits(isolation="none", start_timeout=20.0)
"""A trusted bot, never frozen between turns: a thaw wakes every task of a bot, this one's
tasks wake only for what they wait for."""
RT_HOLD = 0.5
"""How long a real-time process holds the bot's core once the bot is runnable: longer than
the bot's wall limit (0.2 s), shorter than the referee's backstop (4 times that)."""
HOLD = """
import os, sys, time
bot, hold, trigger = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
sys.stdin.readline()  # asleep, the core free, until told the request is coming
def state(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return b"gone"
def children(pid):
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as listed:
                found += [int(child) for child in listed.read().split()]
    except OSError:
        pass  # it has just ended
    return found + [grandchild for child in found for grandchild in children(child)]
def ready():
    if trigger == "bot":
        return state(bot) in (b"R", b"gone")
    return state(bot) != b"R" and any(state(child) == b"R" for child in children(bot))
give_up = time.monotonic() + 3  # the core is held meanwhile
while not (seen := ready()) and time.monotonic() < give_up: 0
end = time.monotonic() + hold
while time.monotonic() < end: 0
print("queued" if seen else "never", flush=True)
"""
"""The real-time process: once told, it spins on the bot's core until the bot is runnable
(`bot`: woken for its request, so queued behind it), or until a child of the bot's process
is runnable while that process sleeps (`child`: the program a wrapper waits for), then
holds the core for `hold` seconds more; it says whether it saw that."""


@pytest.fixture(params=["pressure", "schedstat"])
def counted_by(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """How a bot's wait for a CPU is counted: its cgroup's CPU pressure, or (on a machine
    without cgroups) its process's schedstat and state."""
    if request.param == "schedstat":
        monkeypatch.setenv("ARENA_NO_CGROUPS", "1")
    controllers.cache_clear()
    try:
        yield request.param
    finally:
        controllers.cache_clear()


def test_a_bot_queued_since_its_request_and_not_yet_run_is_not_late(counted_by: str) -> None:
    """A wait in the run queue reaches /proc/PID/schedstat only once the process runs again:
    a bot queued since its request was written, not yet run when its wall limit passes,
    showed no queueing and was faulted (seen in a suite run: 0.00 s of CPU, 0.10 s of wall).
    Held from its core past its wall limit, the bot answers when it gets the core, and is
    billed only its own time."""
    with a_bot_on_a_held_core(RT_HOLD) as burner:
        assert burner.process is not None
        group = burner.process.group
        pressure = group is not None and group.counts_waits
        require(pressure or counted_by == "schedstat", "cgroup2's CPU pressure (PSI)")
        assert pressure == (counted_by == "pressure")
        decides_once_held(burner, "it")


def test_a_wrapped_bot_whose_program_is_queued_while_the_wrapper_waits_is_not_late() -> None:
    """Only the bot's own process was read: a bot started through a wrapper (a shell script
    that runs the program, `npm start`) showed no queueing and no runnable process while
    its program waited for a CPU others held, and was faulted. Every task of it counts."""
    wrapped = CommandHost(["/bin/sh", "-c", '"$0" -S "$1" ok; exit $?', sys.executable,
                           str(zoo("wire.py"))], UNFROZEN)  # woken by its request alone
    with a_bot_on_a_held_core(RT_HOLD, wrapped, "child") as bot:
        decides_once_held(bot, "its program")


def decides_once_held(bot: PipeHost, whose: str) -> None:
    """One decision of a bot held from its core: not forfeited for the time `whose` queued,
    billed only its own time, and past its wall limit in wall time (else nothing held it)."""
    try:
        bot.act(first_observation(), 0.1)
    except BotFault as fault:
        pytest.fail(f"forfeited for the time {whose} queued: {fault}")
    assert bot.last_wall > 0.2, f"the hog did not hold the core: {bot.last_wall}"
    assert bot.billed <= 0.1, bot.billed


def test_a_bot_held_from_the_cpu_past_the_backstop_is_not_blamed_and_is_said_to_queue() -> None:
    """Past the referee's backstop (4 times the wall limit) the run stops as the machine's
    failure, never the bot's, and says the bot queued: a bot queued since its request was
    said to have queued 0.0 s (its process's schedstat counts none of a wait under way)."""
    with a_bot_on_a_held_core(RT_HOLD * 3) as burner, pytest.raises(RefereeFailure) as failure:
        burner.act(first_observation(), 0.1)
    said = str(failure.value)
    assert "got no CPU for" in said and "queued 0.0s" not in said, said


@contextlib.contextmanager
def a_bot_on_a_held_core(hold: float, host: PipeHost | None = None,
                         trigger: str = "bot") -> Iterator[PipeHost]:
    """A bot (the burner unless told: 0.1 s limits, wall factor 2, 0.01 s of work) alone on
    one core, the referee kept off that core, and a real-time process told to hold it for
    `hold` seconds from the bot's wake (or its child's): the body asks the bot one decision;
    checked after it, the bot was queued."""
    cores = sorted(os.sched_getaffinity(0))
    require(len(cores) >= 2, "two CPUs: one held from the bot, one for the referee")
    tight = BotContext(0, 2, "dice", {}, Limits(0.1, wall_factor=2.0), random.Random(1),
                       {"work": 0.01})
    with host or ProcessHost(zoo("burner.py"), LIMITS) as burner:
        try:
            os.sched_setaffinity(0, {cores[0]})  # the bot's process, started here, keeps it
            burner.start(tight)
            assert burner.process is not None and burner.process.handle.bot_pid is not None
            bot = burner.process.handle.bot_pid
            assert os.sched_getaffinity(bot) == {cores[0]}
            _referee_keeps_to(set(cores[1:]))  # never queued behind the hog itself
            settle(10.0)  # the bot's freeze after its start took effect: it needs the core
            asleep_by = time.monotonic() + 10
            while runnable(bot) and time.monotonic() < asleep_by:
                time.sleep(0.001)  # asleep before the hog is told: its first wake is the act's
            hog = subprocess.Popen([sys.executable, "-S", "-c", HOLD, str(bot), str(hold), trigger],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                os.sched_setaffinity(hog.pid, {cores[0]})
                try:
                    os.sched_setscheduler(hog.pid, os.SCHED_FIFO, os.sched_param(1))
                except PermissionError:
                    require(False, "a real-time process: root (CAP_SYS_NICE) and real-time time")
                assert hog.stdin is not None
                hog.stdin.write("go\n")
                hog.stdin.flush()
                yield burner
                seen, _ = hog.communicate(timeout=15)
            finally:
                hog.kill()
                hog.wait()
            assert seen.strip() == "queued", f"the bot was never queued behind the hog: {seen!r}"
        finally:
            _referee_keeps_to(set(cores))
        burner.close()


def _referee_keeps_to(cores: set[int]) -> None:
    """Every thread of this process (the referee's pulse too) on these cores only."""
    for thread in os.listdir("/proc/self/task"):
        with contextlib.suppress(ProcessLookupError):  # a thread that has just ended
            os.sched_setaffinity(int(thread), cores)


class HalfBurner(Bot):
    """An inline bot that spends half its limit of CPU time (its thread's) on each decision."""

    def act(self, observation: Observation) -> Action:
        until = time.thread_time() + INLINE_DECISION / 2
        while time.thread_time() < until:
            pass
        return random_action(observation.legal, self.rng)


INLINE_DECISION = 0.1


def test_an_inline_bot_within_its_cpu_time_is_not_forfeited_for_the_time_it_queued(
        hogs: Callable[[], None]) -> None:
    """Six hogs share the referee's core: the inline bot's 0.05 s of CPU take several times
    its wall limit (0.2 s) in wall time, nearly all of it queued; it is never timed out."""
    observation = first_observation()
    host = InlineHost(HalfBurner)
    host.start(BotContext(0, 2, "dice", {}, Limits(INLINE_DECISION), random.Random(1)))
    hogs()
    walls = []
    with decision_alarm():
        for _ in range(3):
            started = time.perf_counter()
            try:
                host.act(observation, INLINE_DECISION)
            except BotFault as fault:
                pytest.fail(f"forfeited for the others' load: {fault} (walls so far: {walls})")
            walls.append(time.perf_counter() - started)
            assert host.billed is not None and host.billed <= INLINE_DECISION
    assert max(walls) > INLINE_DECISION * 2, f"the load did not slow the bot past its wall: {walls}"
