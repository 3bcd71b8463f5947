"""Benchmark: what one decision costs a bot in its own process (`process`, `command`) against
the raw round trip of a small JSON message between two processes over a pipe, measured in the
same run. Run `python benchmarks/isolation.py [--decisions N] [--levels L,...] [--games N]
[--all-at-once]`.

The raw round trip is the floor any out-of-process bot pays: the parent writes one JSON line,
the child parses it and writes one back, the parent reads and parses the answer. A host's
decision adds encoding the request, rebuilding the observation in the bot (process mode), the
bot's choice (a random legal action, a few microseconds), and the host's checks and CPU clock.
Each host is measured twice: the request alone (the events since its last decision sent
before the clock starts) and the request with those events, as in a game.

Each host is measured at every isolation level this machine gives (`--levels`; `strict` and
`standard` run the bot in the sandbox: bubblewrap, seccomp, and at strict Landlock, its own
cgroup and uid; `none` a process with rlimits), since the sandbox's walls are part of what a
decision costs. Hosts are driven as the referee drives seat 0 of random 3-player dice games.
Each is timed decision by decision in alternation with the raw round trip, so both see the
same load; with `--all-at-once` every contender takes turns in one loop instead (more
processes sharing the caches). On a virtual machine a wake-up across cores costs several
times one on the same core, and left alone the kernel places the floor and the host
differently from one run to the next, so the processes are bound: all on one core, then the
bots on another core than the referee.

Then a tournament: `arena run` of a 2-player dice round robin between `random` and
`honest`, both in `process` mode, on 2 workers, against the same tournament `inline`, in
games per second of playing (`--games 0` skips it). Measures only; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from arena_bots.random_bot import RandomBot

from arena.bot import BotContext, GameEnd, Limits
from arena.hosts.inline import Host, InlineHost
from arena.hosts.pipe import CommandHost, PipeHost, ProcessHost, ProcessLimits
from arena.hosts.walls import LEVELS, IsolationError, level
from arena.hosts.wire import PROTOCOL, SeatLog
from arena.rules import CHANCE, RULESETS, TERMINAL
from arena.rules.base import Event, Observation, Result
from arena.rules.playout import random_action

EXAMPLES = Path(__file__).resolve().parents[1] / "bots" / "examples"
ECHO = """
import json, sys
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    message = json.loads(line)
    out.write(json.dumps({"type": "action", "turn": message["turn"],
                          "action": {"type": "challenge"}}).encode() + b"\\n")
    out.flush()
"""


SMALL = "raw round trip, small message"
Step = tuple[tuple[Event, ...], Observation]
"""What a seat gets per decision: the events since its last decision, then the request."""
Row = tuple[str, float, list[float]]
"""A contender's name, the median raw round trip measured with it, and its own times."""


def scripts(decisions: int, seed: int = 1) -> list[tuple[Result, list[Step]]]:
    """Seat 0's side of random 3-player dice games, as the referee passes it to a host."""
    rules, rng = RULESETS["dice"], random.Random(seed)
    games: list[tuple[Result, list[Step]]] = []
    while sum(len(steps) for _, steps in games) < decisions:
        state, steps, seen = rules.new_game(3, rules.check_options({})), [], []
        while (seat := rules.to_act(state)) != TERMINAL:
            if seat == CHANCE:
                state = rules.apply(state, rules.chance(state, rng))
            else:
                observation = rules.observe(state, seat)
                if seat == 0:
                    steps.append((tuple(seen), observation))
                    seen.clear()
                state = rules.apply(state, random_action(observation.legal, rng))
            seen.extend(e for e in rules.events(state) if e.to in (None, 0))
        games.append((rules.result(state), steps))
    return games


class Contender:
    """Something that takes decisions: a host, or the raw echo."""

    def start(self) -> None:
        """Begin a game."""

    def decide(self, step: Step) -> object:
        """Pass the events, then ask for the decision."""
        raise NotImplementedError

    def end(self, result: Result) -> None:
        """Finish a game."""

    def close(self) -> None:
        """Stop for good."""


class Echo(Contender):
    """A child process that answers every JSON line with a small JSON line: the raw floor."""

    def __init__(self, padding: int) -> None:
        self.padding = "x" * padding
        self.child = subprocess.Popen([sys.executable, "-I", "-u", "-c", ECHO],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        assert self.child.stdin is not None and self.child.stdout is not None
        self.input, self.output = self.child.stdin.fileno(), self.child.stdout.fileno()
        self.buffer = b""
        self.turn = 0

    def decide(self, step: Step) -> object:
        """One round trip (the observation itself is not sent), reading whole chunks."""
        self.turn += 1
        os.write(self.input, json.dumps(
            {"type": "act", "turn": self.turn, "observation": self.padding}).encode() + b"\n")
        while b"\n" not in self.buffer:
            self.buffer += os.read(self.output, 65536)
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)

    def close(self) -> None:
        """Stop the child."""
        assert self.child.stdin is not None
        self.child.stdin.close()
        self.child.wait()


class Hosted(Contender):
    """A host (inline, process or command) driven as the referee drives it; `with_events`
    times the events since the last decision with it, else they are sent before the clock
    starts."""

    def __init__(self, host: Host, with_events: bool = True) -> None:
        self.host = host
        self.with_events = with_events

    def started(self) -> Hosted:
        """Start the bot's process now (so that it runs where the caller's affinity says)."""
        self.start()
        self.host.close()
        return self

    def start(self) -> None:
        """A fresh bot for the game, in seat 0 of three."""
        self.host.start(BotContext(0, 3, "dice", {}, Limits(10.0), random.Random(1)))

    def deliver(self, step: Step) -> None:
        """Before the clock starts: the events, when they are not timed."""
        if not self.with_events:
            for event in step[0]:
                self.host.notify(event)
            if isinstance(self.host, PipeHost):
                self.host.deliver()

    def decide(self, step: Step) -> object:
        """The events since the last decision (when timed), then the request."""
        events, observation = step
        if self.with_events:
            for event in events:
                self.host.notify(event)
        return self.host.act(observation, 10.0)

    def end(self, result: Result) -> None:
        """The end of the game, as a bot hears it."""
        self.host.end(GameEnd(result, 0))
        self.host.close()

    def close(self) -> None:
        """Stop the bot's process, if it has one."""
        if isinstance(self.host, PipeHost):
            self.host.shutdown()


def measure(contenders: dict[str, Contender],
            games: list[tuple[Result, list[Step]]]) -> dict[str, list[float]]:
    """Seconds per decision of each contender, taking turns decision by decision so that all
    run under the same load, and each bot sleeps between its decisions as when other seats
    play in between."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for number, (result, steps) in enumerate(games):
        for contender in contenders.values():
            contender.start()
        for step in steps:
            for name, contender in contenders.items():
                times[name].append(timed(contender, step))
        for contender in contenders.values():
            contender.end(result)
        if number < 2:  # the first games warm up caches
            times = {name: [] for name in contenders}
    return times


def timed(contender: Contender, step: Step) -> float:
    """Seconds one decision took (events sent beforehand where they are not timed)."""
    if isinstance(contender, Hosted):
        contender.deliver(step)
    begun = time.perf_counter()
    contender.decide(step)
    return time.perf_counter() - begun


def request_bytes(games: list[tuple[Result, list[Step]]]) -> int:
    """The mean bytes a decision sends in protocol 2: the events since the last one, then the
    request."""
    total = count = 0
    for _, steps in games:
        log = SeatLog()
        for events, observation in steps:
            for event in events:
                log.add(event)
            total += len(log.flush(log.act_line(1, 1.0, observation, PROTOCOL)))
            count += 1
    return total // count


PLACEMENTS = {"one core": "referee and bots on one core",
              "two cores": "the bots on another core than the referee"}


def available_levels() -> list[str]:
    """The isolation levels this machine gives (strict and standard need the sandbox's tools)."""
    found = []
    for name in LEVELS:
        try:
            level(name)
        except IsolationError:
            continue
        found.append(name)
    return found


def make_contenders(size: int, levels: list[str]) -> dict[str, Callable[[], Contender]]:
    """How to start each contender (its processes start under the caller's affinity)."""
    commands: dict[str, list[str] | None] = {
        "process: random bot": None,
        "command: example_bot.py": [sys.executable, str(EXAMPLES / "example_bot.py")]}
    if shutil.which("node"):
        commands["command: example_bot.js (node)"] = ["node", str(EXAMPLES / "example_bot.js")]
    makers: dict[str, Callable[[], Contender]] = {
        f"raw round trip, {size}-byte message": lambda: Echo(size),
        "inline (no boundary, for scale)": lambda: Hosted(InlineHost(RandomBot)),
    }
    for isolation in levels:
        limits = ProcessLimits(isolation=isolation)
        for name, command in commands.items():
            for with_events, what in ((False, "request"), (True, "with its events")):
                def make(command: list[str] | None = command, events: bool = with_events,
                         limits: ProcessLimits = limits) -> Hosted:
                    host = ProcessHost("random", limits) if command is None else \
                        CommandHost(command, limits)
                    return Hosted(host, events).started()
                makers[f"{name} [{isolation}], {what}"] = make
    return makers


def started_on(cores: set[int], makers: dict[str, Callable[[], Contender]]) -> dict[str, Contender]:
    """Start contenders with their processes bound to `cores` (children inherit it)."""
    mine = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cores)
    try:
        return {name: make() for name, make in makers.items()}
    finally:
        os.sched_setaffinity(0, mine)


def run(games: list[tuple[Result, list[Step]]], makers: dict[str, Callable[[], Contender]],
        bots_on: set[int], referee_on: set[int], together: bool) -> list[Row]:
    """Each contender's row: in alternation with a raw round trip, or all in one loop."""
    mine = os.sched_getaffinity(0)
    floor = SMALL
    batches = [makers] if together else [{name: make} for name, make in makers.items()]
    rows: list[Row] = []
    for batch in batches:
        contenders = started_on(bots_on, {floor: lambda: Echo(0), **batch})
        os.sched_setaffinity(0, referee_on)
        try:
            times = measure(contenders, games)
        finally:
            os.sched_setaffinity(0, mine)
            for contender in contenders.values():
                contender.close()
        base = statistics.median(times[floor])
        rows += [(name, base, values) for name, values in times.items()
                 if name != floor or not rows]
    return rows


TOURNAMENT = """name: isolation-bench
rules: dice
entrants:
  - {{bot: random, mode: {mode}}}
  - {{bot: honest, mode: {mode}}}
format: {{type: round-robin, seats: 2, games: {games}}}
workers: 2
replays: false
seed: 1
"""


def tournament(mode: str, games: int) -> float:
    """Games per second of a 2-worker `arena run` while it plays: games.jsonl is sampled
    every 20 ms, from the first game written to the last."""
    with tempfile.TemporaryDirectory() as folder:
        config, games_file = Path(folder) / "bench.yaml", Path(folder) / "out" / "games.jsonl"
        config.write_text(TOURNAMENT.format(mode=mode, games=games // 2))
        return playing_rate(config, games_file, games, f"arena run failed ({mode})")


def playing_rate(config: Path, games_file: Path, games: int, failed: str,
                 env: dict[str, str] | None = None, cwd: str | None = None) -> float:
    """Games per second of one `arena run` of `config` while it plays: games.jsonl sampled
    every 20 ms, from the first game written to the last (start-up and the end left out)."""
    run = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), "--out",
                            str(games_file.parent), "--quiet"], stdout=subprocess.DEVNULL,
                           env=env, cwd=cwd)
    seen: list[tuple[float, int]] = []
    while run.poll() is None:
        if games_file.exists():
            seen.append((time.perf_counter(), games_file.read_bytes().count(b"\n")))
        time.sleep(0.02)
    if run.returncode != 0:
        raise SystemExit(failed)
    playing = [(t, n) for t, n in seen if 0 < n < games]
    (begun, first), (ended, last) = playing[0], playing[-1]
    return (last - first) / (ended - begun)


def main() -> None:
    """Measure and print one table per placement, then the tournament."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=2000)
    parser.add_argument("--all-at-once", action="store_true",
                        help="every contender in one loop, instead of each with its own floor")
    parser.add_argument("--games", type=int, default=6000,
                        help="games of the tournament (0: no tournament)")
    parser.add_argument("--levels", default=",".join(available_levels()),
                        help="isolation levels to run the bots at, comma-separated "
                             "(default: every level this machine gives)")
    args = parser.parse_args()
    games = scripts(args.decisions + 50)
    makers = make_contenders(request_bytes(games), args.levels.split(","))
    cores = sorted(os.sched_getaffinity(0))
    placements = {"one core": ({cores[0]}, {cores[0]}), "two cores": ({cores[-1]}, {cores[0]})}
    for placement, (bots_on, referee_on) in placements.items():
        if placement == "two cores" and len(cores) < 2:
            continue
        rows = run(games, makers, bots_on, referee_on, args.all_at_once)
        table(rows, placement, "all at once" if args.all_at_once else "each with its own floor")
    if args.games <= 0:
        return
    rates = {mode: tournament(mode, args.games) for mode in ("inline", "process")}
    print(f"\n2-player dice tournament, {args.games} games, 2 workers: "
          f"process {rates['process']:.0f} games/s, inline {rates['inline']:.0f} games/s "
          f"({rates['process'] / rates['inline']:.2f}x)")


def table(rows: list[Row], placement: str, how: str) -> None:
    """Print one table: every contender against the raw round trip measured with it."""
    print(f"\n{placement} ({PLACEMENTS[placement]}), {how}; {len(rows[0][2])} decisions each;"
          " microseconds per decision")
    print(f"{'':<58} {'floor':>7} {'median':>8} {'p90':>8} {'ratio':>7}")
    for name, base, values in rows:
        ordered = sorted(values)
        median = statistics.median(ordered)
        p90 = ordered[int(len(ordered) * 0.9)]
        print(f"{name:<58} {base * 1e6:7.1f} {median * 1e6:8.1f} {p90 * 1e6:8.1f} "
              f"{median / base:6.2f}x")


if __name__ == "__main__":
    main()
