"""Benchmark: a Dask cluster on this machine against the local pool, in the same run.

    python benchmarks/cluster.py                    # all three parts, 5 repetitions
    python benchmarks/cluster.py --repeat 8 --games 1200 --parts inline --json out.json
    python benchmarks/cluster.py --parts inline --ahead 2,4   # batches in flight per thread

1. Tournaments: a `dice` round robin of 6 `random` entrants at 4-seat tables, capped to
   exactly N games, played by `run_tournament` on the local pool of 2 workers and on a
   LocalCluster of 2 worker processes of 1 thread each, taking turns, repetition by
   repetition; once with the bots `inline`, once in `process` mode (each bot in its own
   process, in the sandbox this machine gives). Figures: games/s of the whole run (start-up,
   audit and tables included), from its start to the last game written ("play"), and from
   the first game written to the last ("steady"); CPU µs per game up to the last game, by
   process (main, local workers, the cluster's scheduler and nannies, the Dask workers, the
   arena processes under them); medians, and the median of the per-repetition ratios
   cluster/local. Every run of a repetition must write the same games.jsonl.
2. The cluster path's own cost: a job whose work is nearly free (it gives back its spec, a
   string the size of a games.jsonl line) mapped over many specs locally and on the
   cluster; the difference per spec is the per-game overhead (batches, scatter, the Dask
   worker's pipe to its arena worker, result transfer). Run with batches of 1 and of 500
   specs, it gives the cost of one batch (one task) against the cost of one spec in a batch.
3. Where the work is done: CPU of the main process (what takes in results and writes
   games.jsonl) and of the cluster's own process (scheduler and nannies), per game and per
   batch, the figures a larger cluster's limits are computed from.

The cluster runs in a process of its own (`--serve`: a LocalCluster that prints its address),
as a real `dask scheduler` does, so the scheduler does not share the main process's
interpreter. Pure measurement: it writes only into a temporary folder; asserts nothing (the
issue's target is the cluster at >= 0.9x the local pool's games/s).
"""

from __future__ import annotations

import argparse
import json
import math
import operator
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ENTRANTS = 6
SEATS = 4
WORKERS = 2
TICKS = os.sysconf("SC_CLK_TCK")
LINE = 240
"""Characters in a spec of the nearly free job: about a games.jsonl line of 4 seats."""


@dataclass(frozen=True, slots=True)
class Timing:
    """One run: wall seconds; games/s of the whole run, from its start to the last game
    written, and from the first game written to the last; CPU µs per game by role, up to
    the last game (the audit and tables after it run locally in both)."""

    games: int
    seconds: float
    rate: float
    play_rate: float
    steady_rate: float
    cpu: dict[str, float]


def config_text(games: int, mode: str) -> str:
    """The benchmark tournament: a round robin capped to exactly `games` games."""
    per_round = math.comb(ENTRANTS, SEATS) * SEATS
    aliases = "".join(f"\n  - {{bot: random, alias: random-{i}, mode: {mode}}}"
                      for i in range(2, ENTRANTS + 1))
    return (f"name: bench\nrules: dice\nentrants:\n  - {{bot: random, mode: {mode}}}{aliases}\n"
            f"format:\n  type: round-robin\n  seats: {SEATS}\n  games: {games // per_round + 1}\n"
            f"  cap: {games}\nseed: 1\nreplays: true\n")


def serve(workers: int) -> None:
    """The cluster's own process: a LocalCluster, its address printed, until stdin closes."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        print(cluster.scheduler_address, flush=True)
        sys.stdin.read()


@contextmanager
def cluster_process(workers: int) -> Iterator[tuple[str, int]]:
    """A LocalCluster in a process of its own: its scheduler's address and its pid."""
    helper = subprocess.Popen([sys.executable, __file__, "--serve", str(workers)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert helper.stdout is not None
        address = helper.stdout.readline().strip()
        if not address:
            raise SystemExit("the LocalCluster did not start")
        _wait_for_workers(address, workers)
        yield address, helper.pid
    finally:
        assert helper.stdin is not None
        helper.stdin.close()
        try:
            helper.wait(30)
        except subprocess.TimeoutExpired:
            helper.kill()
            helper.wait()


def _wait_for_workers(address: str, workers: int) -> None:
    from distributed import Client

    with Client(address, timeout=30) as client:
        client.wait_for_workers(workers, timeout=60)


def _processes() -> dict[int, tuple[int, float, float]]:
    """Every process: its parent, its own CPU seconds, and its reaped children's."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        found[int(stat.parent.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS,
                                        (int(fields[13]) + int(fields[14])) / TICKS)
    return found


def roles(cluster_pid: int | None) -> dict[str, float]:
    """CPU seconds so far by role: this process, its local workers, the cluster's process
    (scheduler and nannies), the Dask workers, and the arena processes under them."""
    table = _processes()
    depth: dict[int, tuple[str, int]] = {os.getpid(): ("main", 0)}
    if cluster_pid is not None:
        depth[cluster_pid] = ("cluster", 0)
    frontier = dict(depth)
    while frontier:
        frontier = {pid: (frontier[parent][0], frontier[parent][1] + 1)
                    for pid, (parent, _, _) in table.items()
                    if parent in frontier and pid not in depth}
        depth.update(frontier)
    names = {("main", 0): "main", ("cluster", 0): "scheduler", ("cluster", 1): "dask workers"}
    cpu = dict.fromkeys(("main", "local workers", "scheduler", "dask workers",
                         "arena under dask"), 0.0)
    for pid, (tree, level) in depth.items():
        if pid not in table:
            continue
        own, reaped = table[pid][1], table[pid][2]
        if level == 0:  # a root's reaped children are its workers of runs before
            cpu[names[(tree, 0)]] += own
            cpu["local workers" if tree == "main" else "dask workers"] += reaped
            continue
        role = names.get((tree, level), "local workers" if tree == "main" else "arena under dask")
        cpu[role] += own + reaped
    return cpu


class _Lines:
    """Counts the lines of a growing games.jsonl every 20 ms: when the first and the last
    came, and the CPU by role when the last came."""

    def __init__(self, path: Path, games: int, cluster_pid: int | None) -> None:
        self.path, self.games, self.cluster_pid = path, games, cluster_pid
        self.offset = self.lines = 0
        self.first = self.last = 0.0
        self.cpu: dict[str, float] = {}
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def _sample(self) -> None:
        while self.lines < self.games:
            time.sleep(0.02)
            if not self.path.exists():
                continue
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                chunk = handle.read()
            self.offset += len(chunk)
            if chunk and not self.lines:
                self.first = time.perf_counter()
            self.lines += chunk.count(b"\n")
        self.last = time.perf_counter()
        self.cpu = roles(self.cluster_pid)

    def ended(self) -> None:
        self.thread.join()


def _timed(games: int, run: Callable[[], Any], cluster_pid: int | None,
           lines: _Lines | None = None) -> Timing:
    """Time `run()`, with the CPU by role up to the last result (the run's end without
    `lines`)."""
    before = roles(cluster_pid)
    began = time.perf_counter()
    run()
    ended = time.perf_counter()
    after = roles(cluster_pid)
    last = first = ended
    if lines is not None:
        lines.ended()
        last, first, after = lines.last, lines.first, lines.cpu
    cpu = {role: (after[role] - before[role]) * 1e6 / games for role in before}
    cpu["total"] = sum(cpu.values())
    steady = games / (last - first) if last > first else games / (last - began)
    return Timing(games, ended - began, games / (ended - began), games / (last - began),
                  steady, cpu)


def tournament(folder: Path, games: int, mode: str, address: str | None,
               cluster_pid: int | None) -> tuple[Timing, bytes]:
    """One `run_tournament` of the benchmark config; its timing and its games.jsonl."""
    from arena.executor.cluster import Cluster
    from arena.hosts.walls import level
    from arena.tournament.config.yaml_lines import key_lines
    from arena.tournament.load import load_tournament
    from arena.tournament.run.runner import run_tournament
    from arena.trial import check_entrants

    path = folder / f"bench-{mode}.yaml"
    path.write_text(config_text(games, mode))
    cfg = load_tournament(path)
    cfg = cfg.at_isolation(level(cfg.isolation).name)
    cards = tuple(e.card for e in check_entrants(cfg, key_lines(path)))
    out = folder / f"out-{mode}"
    shutil.rmtree(out, ignore_errors=True)  # a fresh folder: no lines of the run before
    lines = _Lines(out / "games.jsonl", games, cluster_pid)
    timing = _timed(games, lambda: run_tournament(
        cfg, out, workers=WORKERS, cards=cards,
        cluster=Cluster(address) if address else None), cluster_pid, lines)
    return timing, (out / "games.jsonl").read_bytes()


def free_map(specs: int, address: str | None, cluster_pid: int | None,
             batch: int | None = None) -> Timing:
    """The nearly free job (its work gives back its spec) over `specs` specs; with `batch`,
    every batch of the cluster holds exactly that many."""
    from arena.executor import cluster as dask_backend
    from arena.executor.local import Executor, Job

    job = Job(operator.add, str, "")  # work(state "", spec) -> spec: picklable by reference
    items = [f"{n:08d}".ljust(LINE, "x") for n in range(specs)]
    sizes = dask_backend.FIRST, dask_backend.SMALLEST, dask_backend.LARGEST
    if batch is not None:
        dask_backend.FIRST = dask_backend.SMALLEST = dask_backend.LARGEST = batch
    executor = Executor(job, WORKERS, cluster=dask_backend.Cluster(address) if address else None)
    try:
        list(executor.map(items[:WORKERS * 4]))  # start-up is not what is measured here

        def run() -> None:
            if list(executor.map(items)) != items:
                raise SystemExit("the nearly free job gave other results")

        return _timed(specs, run, cluster_pid)
    finally:
        executor.close()
        dask_backend.FIRST, dask_backend.SMALLEST, dask_backend.LARGEST = sizes


ROLES = ("main", "local workers", "scheduler", "dask workers", "arena under dask", "total")
SHORT = ("main", "local", "sched", "dask", "arena", "total")


def _medians(timings: list[Timing]) -> dict[str, Any]:
    """Median of every figure over the runs, CPU role by role."""
    found: dict[str, Any] = {key: statistics.median(getattr(t, key) for t in timings)
                             for key in ("seconds", "rate", "play_rate", "steady_rate")}
    found["cpu"] = {role: statistics.median(t.cpu[role] for t in timings) for role in ROLES}
    return found


def _ratio(local: list[Timing], remote: list[Timing], key: str) -> float:
    """The median over repetitions of cluster/local, each pair measured back to back."""
    return statistics.median(getattr(r, key) / getattr(h, key)
                             for h, r in zip(local, remote, strict=True))


def _print_runs(title: str, runs: dict[str, list[Timing]]) -> dict[str, Any]:
    """One part's medians by contender, and each cluster's ratios to the local pool."""
    figures = {name: _medians(timings) for name, timings in runs.items()}
    print(f"\n{title} (medians of {len(runs['local'])})")
    print(f"  {'games/s:':10} {'run':>6} {'play':>6} {'steady':>6}   CPU µs/game: "
          + " ".join(f"{name:>6}" for name in SHORT))
    for name, f in figures.items():
        print(f"  {name:10} {f['rate']:>6.0f} {f['play_rate']:>6.0f} {f['steady_rate']:>6.0f}"
              "                " + " ".join(f"{f['cpu'][role]:>6.0f}" for role in ROLES))
    ratios = {}
    for name in runs.keys() - {"local"}:
        ratios[name] = {key: _ratio(runs["local"], runs[name], key)
                        for key in ("rate", "play_rate", "steady_rate")}
        print(f"  {name}/local: {ratios[name]['play_rate']:.2f}x games/s to the last game, "
              f"{ratios[name]['steady_rate']:.2f}x first to last, {ratios[name]['rate']:.2f}x "
              "whole run (audit and tables included, local in both)")
    return {"figures": figures, "ratios": ratios,
            "runs": {name: [asdict(t) for t in timings] for name, timings in runs.items()}}


def tournaments(address: str, pid: int, mode: str, games: int, repeat: int,
                aheads: tuple[int, ...]) -> dict[str, Any]:
    """Part 1 for one mode: local and cluster taking turns (the order turning round each
    repetition), the same bytes checked; one cluster contender per AHEAD asked."""
    from arena.executor import cluster as dask_backend

    contenders: list[tuple[str, int | None]] = [("local", None)] + [
        ("cluster" if len(aheads) == 1 else f"ahead {ahead}", ahead) for ahead in aheads]
    runs: dict[str, list[Timing]] = {name: [] for name, _ in contenders}
    default = dask_backend.AHEAD
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
        for number in range(repeat):
            turn = number % len(contenders)
            played = set()
            for name, ahead in contenders[turn:] + contenders[:turn]:
                dask_backend.AHEAD = ahead or default
                try:
                    timing, log = tournament(Path(folder), games, mode,
                                             address if ahead else None, pid if ahead else None)
                finally:
                    dask_backend.AHEAD = default
                runs[name].append(timing)
                played.add(log)
            if len(played) != 1:
                raise SystemExit(f"{mode}: the cluster wrote another games.jsonl than local")
    return _print_runs(f"{games} games of 4-seat dice, {mode} random bots, {WORKERS} workers",
                       runs)


def overhead(address: str, pid: int, specs: int, repeat: int) -> dict[str, Any]:
    """Parts 2 and 3: the nearly free job locally, on the cluster, with batches of 1 and 500."""
    runs: dict[str, list[Timing]] = {"local": [], "cluster": [], "batch 1": [], "batch 500": []}
    for _ in range(repeat):
        runs["local"].append(free_map(specs, None, None))
        runs["cluster"].append(free_map(specs, address, pid))
        runs["batch 1"].append(free_map(specs // 10, address, pid, batch=1))
        runs["batch 500"].append(free_map(specs, address, pid, batch=500))
    figures = {name: _medians(timings) for name, timings in runs.items()}
    print(f"\nthe nearly free job (a {LINE}-character spec given back; medians of {repeat})")
    print(f"  {'':10} {'specs/s':>8} {'µs/spec':>8}   CPU µs/spec: "
          + " ".join(f"{name:>6}" for name in SHORT))
    for name, f in figures.items():
        print(f"  {name:10} {f['rate']:>8.0f} {1e6 / f['rate']:>8.1f}"
              "               " + " ".join(f"{f['cpu'][role]:>6.1f}" for role in ROLES))
    one, many = figures["batch 1"], figures["batch 500"]
    per_batch = {role: (one["cpu"][role] - many["cpu"][role]) / (1 - 1 / 500)
                 for role in ROLES}
    wall = (1e6 / one["rate"] - 1e6 / many["rate"]) / (1 - 1 / 500)
    extra = 1e6 / figures["cluster"]["rate"] - 1e6 / figures["local"]["rate"]
    cpu = figures["cluster"]["cpu"]["total"] - figures["local"]["cpu"]["total"]
    print(f"  the cluster path's own cost per spec: {extra:.1f} µs of wall time, {cpu:.1f} µs "
          "of CPU (sized batches against local)")
    print(f"  one batch (a task) more: {wall:.0f} µs of wall time, CPU µs: "
          + ", ".join(f"{name} {per_batch[role]:.0f}"
                      for name, role in zip(SHORT, ROLES, strict=True) if role != "local workers"))
    return {"figures": figures, "per_spec_wall_us": extra, "per_spec_cpu_us": cpu,
            "per_batch_wall_us": wall, "per_batch_cpu_us": per_batch}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000, help="games of an inline run")
    parser.add_argument("--process-games", type=int, default=1500,
                        help="games of a process-mode run")
    parser.add_argument("--specs", type=int, default=20000, help="specs of the nearly free job")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--parts", default="inline,process,overhead")
    parser.add_argument("--ahead", default=None,
                        help="batches in flight per worker thread to try, e.g. 2,4 "
                             "(default: arena's AHEAD)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--serve", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve is not None:
        serve(args.serve)
        return {}
    parts, found = args.parts.split(","), {}
    from arena.executor.cluster import AHEAD

    aheads = tuple(int(a) for a in args.ahead.split(",")) if args.ahead else (AHEAD,)
    with cluster_process(WORKERS) as (address, pid):
        print(f"cluster: {address}, {WORKERS} worker processes of 1 thread; "
              f"local pool: {WORKERS} workers")
        if "inline" in parts:
            found["inline"] = tournaments(address, pid, "inline", args.games, args.repeat,
                                          aheads)
        if "process" in parts:
            found["process"] = tournaments(address, pid, "process", args.process_games,
                                           args.repeat, aheads)
        if "overhead" in parts:
            found["overhead"] = overhead(address, pid, args.specs, args.repeat)
    if args.json is not None:
        args.json.write_text(json.dumps(found, indent=2))
    return found


if __name__ == "__main__":
    main()
