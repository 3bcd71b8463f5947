"""Benchmark: what a start costs (issue 34, "Cheaper starts" and the start-up row), each
against a bare Python start (`python -c pass`, this interpreter) measured in the same run.

Wall time, the contenders taking turns round by round so all see the same load (median of
`--rounds`):
  file bot   a Python file bot in its own process at the strongest isolation here (strict:
             bubblewrap), from nothing to ready: process, launcher, hello, start, `ready`;
  file none  the same at isolation `none` (no sandbox: what the sandbox adds is the gap);
  built-in   the built-in `statistician` in its own process, likewise (its odds tables
             built by its `prepare`, under the start-up timeout);
  --version  `arena --version`;
  bots       `arena bots`;
  stop       the file bot's stop after a start (`shutdown`: it exits on its own, then the
             referee makes sure none of its processes is left and removes its cgroup).
Then CPU time, which the load moves less: a bare start's, and the file bot's, the built-in
`statistician`'s and `random`'s (the referee's and every process in the bot's cgroup). With
`--instructions`, the same without the sandbox in instructions, by valgrind's callgrind (one
run each: the count hardly moves with the load): the launcher serving the file bot and the
built-in from canned protocol lines (hello, start, shutdown), and the two commands. With
`--steps`, the wall of each step of the file bot's start as the referee sees it (STEPS), and
of a new process joining a fresh cgroup alone (the trampoline's part of `to launcher`: its
first write waits for the kernel).

arena's and its bots' modules are compiled to bytecode first, as an installed wheel has them
(a checkout run with PYTHONDONTWRITEBYTECODE would compile them at every start instead).

Goals (issue 34): a file bot's start <= 2x bare Python, `arena --version` <= 1.5x,
`arena bots` <= 3x. Measures only; asserts nothing (tests pin behaviour, never time).
Run: python benchmarks/starts.py [--rounds 15] [--instructions] [--steps]
"""

from __future__ import annotations

import argparse
import compileall
import importlib
import json
import os
import random
import re
import resource
import select
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

from arena.bot import BotContext, Limits
from arena.hosts import cgroups
from arena.hosts.freezer import settle
from arena.hosts.pipe import PipeHost, ProcessHost, ProcessLimits, _context_json
from arena.hosts.processes import LAUNCHER, BotProcess
from arena.hosts.python_path import site_path
from arena.hosts.walls import level as find_level
from arena.rules import RULESETS

STEPS = {
    "prepare": "its cgroup (its join readied), the sandbox's command line, the bot's folder",
    "spawn": "the process started (Popen: vfork, exec of the cgroup trampoline)",
    "to launcher": "its cgroup joined, the sandbox made, Python started, the launcher's byte",
    "to hello": "limits, start gate, Landlock, the bot's file imported, its hello read",
    "to ready": "the referee's look at it, the gate shut, `start` sent, `ready` read",
}
GOALS = {"file bot": 2.0, "--version": 1.5, "bots": 3.0}
"""The most each may cost, in bare Python starts (issue 34's table)."""
FILE_BOT = '''"""A file bot as docs/writing-a-bot.md starts one: arena's classes, one its own."""
import arena


class Plain(arena.Bot):
    name = "plain"

    def act(self, obs: arena.Observation) -> arena.Action:
        return arena.random_action(obs.legal, self.rng)
'''


def arena_command(*args: str) -> list[str]:
    """The `arena` command as a user runs it: the script installed beside this interpreter."""
    script = Path(sys.executable).with_name("arena")
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "arena", *args]


def run_seconds(argv: list[str]) -> float:
    """Wall seconds of one run of a command, its output thrown away."""
    began = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - began


def _context() -> BotContext:
    rules = RULESETS["dice"]
    return BotContext(0, 3, "dice", rules.check_options({}), Limits(5.0), random.Random(1),
                      description=rules.description)


def start_seconds(bot: str, isolation: str) -> float:
    """Seconds from nothing to a bot ready to play in its own process."""
    host = ProcessHost(bot, ProcessLimits(isolation=isolation))
    began = time.perf_counter()
    try:
        host.start(_context())
        return time.perf_counter() - began
    finally:
        host.shutdown()


def stop_seconds(bot: str, isolation: str) -> float:
    """Seconds a started bot's clean stop takes: `shutdown`, its exit, and the referee's
    check that none of its processes is left."""
    host = ProcessHost(bot, ProcessLimits(isolation=isolation))
    try:
        host.start(_context())
    finally:
        began = time.perf_counter()
        host.shutdown()
    return time.perf_counter() - began


def start_steps(bot: str, isolation: str) -> dict[str, float]:
    """Seconds of each of STEPS in one start (timestamps taken around the referee's calls;
    the launcher's byte seen by a thread waiting on it)."""
    marks: dict[str, float] = {}
    made, spawned, expect = settle, BotProcess.__init__, PipeHost._expect

    def prepared(*args: Any) -> Any:  # settle(): the last act before the spawn
        marks["prepare"] = time.perf_counter()
        return made(*args)

    def started(process: BotProcess, *args: Any) -> None:
        spawned(process, *args)
        marks["spawn"] = time.perf_counter()
        if process._mark:
            threading.Thread(target=launched, args=(process._mark[0],)).start()

    def launched(fd: int) -> None:
        select.select([fd], [], [], 30)
        marks["to launcher"] = time.perf_counter()

    def expected(host: PipeHost, kind: str, *args: Any) -> Any:
        try:
            return expect(host, kind, *args)
        finally:
            marks[f"to {kind}"] = time.perf_counter()

    host = ProcessHost(bot, ProcessLimits(isolation=isolation))
    with mock.patch("arena.hosts.processes.settle", prepared), \
            mock.patch.object(BotProcess, "__init__", started), \
            mock.patch.object(PipeHost, "_expect", expected):
        began = time.perf_counter()
        try:
            host.start(_context())
        finally:
            host.shutdown()
    times = [began, *(marks[step] for step in STEPS)]
    return {step: after - before for step, before, after in zip(STEPS, times[:-1], times[1:],
                                                                strict=True)}


def join_seconds() -> float:
    """Seconds a new process takes to join a fresh bot cgroup (each controller's), as the
    trampoline does: none where the machine delegates no cgroups."""
    group = cgroups.group_for(cgroups.GroupLimits(None, None))
    if group is None:
        return 0.0
    took, wrote = os.pipe()
    try:
        child = os.fork()
        if child == 0:
            began = time.perf_counter()
            for folder in group.folders:
                Path(folder, "cgroup.procs").write_text(str(os.getpid()))
            os.write(wrote, str(time.perf_counter() - began).encode())
            os._exit(0)
        os.close(wrote)
        seconds = float(os.read(took, 64))
        os.waitpid(child, 0)
        return seconds
    finally:
        os.close(took)
        group.remove()


def steps(bot: str, isolation: str, rounds: int) -> dict[str, float]:
    """The median of each step of a start, and of a cgroup join alone, in ms."""
    runs: dict[str, list[float]] = {step: [] for step in [*STEPS, "cgroup join"]}
    loads = []
    for _ in range(rounds):
        loads.append(os.getloadavg()[0])
        for step, seconds in start_steps(bot, isolation).items():
            runs[step].append(seconds)
        runs["cgroup join"].append(join_seconds())
    figures = {step: statistics.median(times) * 1e3 for step, times in runs.items()}
    print(f"steps of the file bot's start, median of {rounds}, isolation {isolation}, load "
          f"{statistics.median(loads):.1f}:")
    for step, figure in figures.items():
        said = STEPS.get(step, "a new process joining a fresh cgroup alone")
        print(f"{step:>12}: {figure:8.1f} ms  {said}")
    return {f"step {step}": figure for step, figure in figures.items()}


def children_cpu() -> float:
    """CPU seconds of this process's reaped children so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run_cpu(argv: list[str]) -> float:
    """CPU seconds of one run of a command."""
    before = children_cpu()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return children_cpu() - before


def start_cpu(bot: str, isolation: str) -> float:
    """CPU seconds of a start to ready: the referee's, and every process of the bot's (its
    cgroup's, which the sandbox's processes' own accounting would miss: bubblewrap, PID 1
    of its namespace, is killed before it reaps the bot)."""
    host = ProcessHost(bot, ProcessLimits(isolation=isolation))
    began = time.process_time()
    try:
        host.start(_context())
        group = host.process.group if host.process is not None else None
        if group is None:
            raise SystemExit("the CPU of a start is read from the bot's cgroup: none here")
        return time.process_time() - began + group.cpu()
    finally:
        host.shutdown()


def protocol_lines(bot: str) -> bytes:
    """What the referee sends a bot process for one start: hello, start, shutdown."""
    context = _context()
    state = context.rng.getstate()
    seed = context.rng.getrandbits(53)
    messages = [{"type": "hello", "protocol": 2, "bot": bot},
                {"type": "start", "game": 1, "context": _context_json(context, seed),
                 "rng_state": [state[0], list(state[1]), state[2]]},
                {"type": "shutdown"}]
    return "".join(json.dumps(m) + "\n" for m in messages).encode()


def instructions(argv: list[str], given: bytes = b"") -> int:
    """Instructions one run executes, by callgrind (all its processes' threads); a bot
    served from `given` lines must have said it is ready (else an error path was counted)."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           *argv], input=given, capture_output=True, check=True)
    if given and b'{"type":"ready"}' not in done.stdout:
        raise SystemExit(f"the bot did not start: {done.stdout[:300]!r}")
    return int(re.findall(rb"Collected : (\d+)", done.stderr)[-1])


def launcher(bot: str, root: str) -> list[str]:
    """The launcher as a sandboxed bot process runs it (without `site`: the path it would
    give is in the config; arena's packages in `root`, as at the sandbox's /arena), without
    limits or the sandbox's walls."""
    config = {"bot": bot, "limits": {}, "path": [root], "site": list(site_path())}
    return [sys.executable, "-I", "-S", "-B", "-u", str(LAUNCHER), json.dumps(config)]


def package_root(folder: str) -> str:
    """A folder showing arena's packages under their names, as the sandbox's /arena does
    (an editable install maps `arena_bots` from a folder of another name)."""
    for package in ("arena", "arena_bots"):
        found = Path(importlib.import_module(package).__file__ or "").parent
        os.symlink(found, os.path.join(folder, package))
    return folder


def report(name: str, figure: float, bare: float, unit: str) -> str:
    """One line: the figure, its ratio to bare Python and the goal, if it has one."""
    goal = GOALS.get(name)
    said = f"goal <= {goal:.1f}x: {'met' if figure / bare <= goal else 'NOT met'}" if goal else ""
    return f"{name:>10}: {figure:12.1f} {unit}  {figure / bare:5.2f}x bare  {said}"


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--level", default=None, help="the sandbox level (default: strongest)")
    parser.add_argument("--instructions", action="store_true",
                        help="also count instructions with valgrind's callgrind")
    parser.add_argument("--steps", action="store_true",
                        help="also time each step of the file bot's start")
    args = parser.parse_args(argv)
    isolation = find_level(args.level).name
    for package in ("arena", "arena_bots"):
        compileall.compile_dir(Path(importlib.import_module(package).__file__ or "").parent,
                               quiet=1)
    with tempfile.TemporaryDirectory() as folder:
        bot = os.path.join(folder, "plain_bot.py")
        Path(bot).write_text(FILE_BOT, encoding="utf-8")
        contenders: dict[str, Callable[[], float]] = {
            "bare": lambda: run_seconds([sys.executable, "-c", "pass"]),
            "file bot": lambda: start_seconds(bot, isolation),
            "file none": lambda: start_seconds(bot, "none"),
            "built-in": lambda: start_seconds("statistician", isolation),
            "--version": lambda: run_seconds(arena_command("--version")),
            "bots": lambda: run_seconds(arena_command("bots")),
            "stop": lambda: stop_seconds(bot, isolation),
        }
        runs: dict[str, list[float]] = {name: [] for name in contenders}
        loads = []
        for _ in range(args.rounds):
            loads.append(os.getloadavg()[0])
            for name, measure in contenders.items():
                runs[name].append(measure())
        cpu: dict[str, list[float]] = {"bare": [], "file bot": [], "built-in": [], "random": []}
        for _ in range(args.rounds):  # less moved by the load than the wall
            cpu["bare"].append(run_cpu([sys.executable, "-c", "pass"]))
            cpu["file bot"].append(start_cpu(bot, isolation))
            cpu["built-in"].append(start_cpu("statistician", isolation))
            cpu["random"].append(start_cpu("random", isolation))
        figures = {name: statistics.median(times) * 1e3 for name, times in runs.items()}
        print(f"wall, median of {args.rounds} rounds, isolation {isolation}, load "
              f"{min(loads):.1f}-{max(loads):.1f} (median {statistics.median(loads):.1f}):")
        for name, figure in figures.items():
            print(report(name, figure, figures["bare"], "ms"))
        used = {name: statistics.median(times) * 1e3 for name, times in cpu.items()}
        print(f"CPU, median of {args.rounds} (the referee's and the bot's cgroup's), load "
              f"{os.getloadavg()[0]:.1f}:")
        for name, figure in used.items():
            print(report(name, figure, used["bare"], "ms CPU"))
        figures.update({f"{name} CPU": figure for name, figure in used.items()})
        if args.steps:
            figures.update(steps(bot, isolation, args.rounds))
        if args.instructions:
            root = package_root(tempfile.mkdtemp(dir=folder))
            counted = {
                "bare": instructions([sys.executable, "-c", "pass"]),
                "file bot": instructions(launcher(bot, root), protocol_lines(bot)),
                "built-in": instructions(launcher("statistician", root),
                                         protocol_lines("statistician")),
                "--version": instructions(arena_command("--version")),
                "bots": instructions(arena_command("bots")),
            }
            print("instructions (callgrind; the bots without sandbox or limits):")
            for name, count in counted.items():
                print(report(name, count / 1e6, counted["bare"] / 1e6, "M"))
            figures.update({f"{name} instructions": count for name, count in counted.items()})
    return figures


if __name__ == "__main__":
    main()
