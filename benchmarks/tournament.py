"""Benchmark `arena run`: games per second with 1 and 2 workers, and the run's peak memory.

A `dice` round robin of 6 `random` entrants at 4-seat tables, replays on, capped to exactly
N games (balanced tables), played by a real `arena run` subprocess. While it runs, the
process tree (main process, fork server, workers) is sampled every 0.1 s:

- memory: the sum of PSS over the tree (proportional set size: shared pages are split
  between the processes sharing them, so the sum is what the run really occupies; RSS
  would count the fork server's pages once per worker). The peak is reported, with the
  peak RSS sum for comparison, and the peak while games are still being played, to tell
  the end of the run (the derived tables and the report, one game at a time) from play.
- rate: games appended to games.jsonl per second of playing (from the first game written
  to the last), and games per second of wall time including start-up and the tables.
- CPU: user plus system seconds of every process in the tree, per game. Wall-clock rates
  mean something only on an otherwise idle machine; CPU per game does not depend on what
  else runs, and its ratio bounds the speed-up 2 workers can reach on 2 cores.

Targets (from the issue): 2 workers >= 1.8x the rate of 1 worker; peak memory < 250 MB and
flat in the number of games (2,000 against 20,000).

    python benchmarks/tournament.py                      # 20,000 and 2,000 games, 1 and 2 workers
    python benchmarks/tournament.py --games 2000 --small 500 --json out.json

Pure measurement: it writes only into a temporary folder (kept with --keep).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ENTRANTS = 6
SEATS = 4
SAMPLE_SECONDS = 0.1
TARGET_SPEEDUP = 1.8
TARGET_MEGABYTES = 250
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True, slots=True)
class Measure:
    """One run: its size, workers, times, rates and peak memory."""

    games: int
    workers: int
    wall_seconds: float
    play_seconds: float
    games_per_second: float
    wall_games_per_second: float
    peak_pss_mb: float
    play_pss_mb: float
    """Peak while games were still being played, before the tables are derived."""
    peak_rss_mb: float
    processes: int
    cpu_seconds: float
    """CPU time of the whole process tree (sampled, so the last 0.1 s of each is missed)."""
    cpu_ms_per_game: float


def config_text(games: int) -> str:
    """The benchmark tournament: a round robin capped to exactly `games` games."""
    per_round = math.comb(ENTRANTS, SEATS) * SEATS
    aliases = "".join(f"\n  - {{bot: random, alias: random-{i}}}" for i in range(2, ENTRANTS + 1))
    return (
        f"name: bench\nrules: dice\nentrants:\n  - random{aliases}\n"
        f"format:\n  type: round-robin\n  seats: {SEATS}\n  games: {games // per_round + 1}\n"
        f"  cap: {games}\nseed: 1\nreplays: true\n"
    )


def _tree(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rpartition(")")[2].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    found, frontier = {root}, {root}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return sorted(found)


def _cpu_seconds(pid: int) -> float | None:
    """User plus system CPU seconds a process has used so far; None if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS


def _memory_kb(pid: int) -> tuple[int, int]:
    """(PSS, RSS) of one process in kB; zeros if it is gone."""
    pss = rss = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                pss = int(line.split()[1])
            elif line.startswith("Rss:"):
                rss = int(line.split()[1])
    except OSError:
        pass
    return pss, rss


class _LineCounter:
    """Counts lines appended to a growing file without rereading it."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.lines = path, 0, 0

    def count(self) -> int:
        if self.path.exists():
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                chunk = handle.read()
            self.offset += len(chunk)
            self.lines += chunk.count(b"\n")
        return self.lines


def measure(folder: Path, games: int, workers: int) -> Measure:
    """Run one tournament in a subprocess and sample it until it ends."""
    config = folder / f"bench-{games}.yaml"
    config.write_text(config_text(games))
    out = folder / f"out-{games}-{workers}"
    command = [
        sys.executable,
        "-m",
        "arena",
        "run",
        str(config),
        "--out",
        str(out),
        "--workers",
        str(workers),
        "--quiet",
        "--force",
    ]
    counter = _LineCounter(out / "games.jsonl")
    peak_pss = peak_rss = play_pss = processes = 0
    cpu: dict[int, float] = {}
    first: float | None = None
    last, last_done = 0.0, 0  # the last sample that found more games: playing ends there
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while process.poll() is None:
        tree = _tree(process.pid)
        processes = max(processes, len(tree))
        for pid in tree:
            used = _cpu_seconds(pid)
            if used is not None:
                cpu[pid] = used
        sizes = [_memory_kb(pid) for pid in tree]
        peak_pss = max(peak_pss, sum(s[0] for s in sizes))
        peak_rss = max(peak_rss, sum(s[1] for s in sizes))
        done = counter.count()
        if done < games:
            play_pss = max(play_pss, sum(s[0] for s in sizes))
        now = time.perf_counter()
        if done and first is None:
            first, first_done = now, done
        if done > last_done:
            last, last_done = now, done
        time.sleep(SAMPLE_SECONDS)
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(
            f"arena run failed: {process.stderr.read().decode() if process.stderr else ''}"
        )
    done = counter.count()
    if first is None or last_done == first_done:
        first, first_done, last, last_done = started, 0, started + wall, done
    play = max(last - first, 1e-9)
    return Measure(
        games=games,
        workers=workers,
        wall_seconds=round(wall, 2),
        play_seconds=round(play, 2),
        games_per_second=round((last_done - first_done) / play, 1),
        wall_games_per_second=round(done / wall, 1),
        peak_pss_mb=round(peak_pss / 1024, 1),
        play_pss_mb=round(play_pss / 1024, 1),
        peak_rss_mb=round(peak_rss / 1024, 1),
        processes=processes,
        cpu_seconds=round(sum(cpu.values()), 2),
        cpu_ms_per_game=round(1000 * sum(cpu.values()) / max(done, 1), 3),
    )


def report(measures: list[Measure]) -> str:
    """A Markdown table of the runs and the verdict on each target."""
    lines = [
        (
            "| games | workers | wall s | games/s (playing) | games/s (wall) | CPU ms/game | "
            "peak PSS MB | playing PSS MB | peak RSS MB | processes |"
        ),
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for m in measures:
        lines.append(
            f"| {m.games} | {m.workers} | {m.wall_seconds} | {m.games_per_second} | "
            f"{m.wall_games_per_second} | {m.cpu_ms_per_game} | {m.peak_pss_mb} | "
            f"{m.play_pss_mb} | {m.peak_rss_mb} | {m.processes} |"
        )
    by = {(m.games, m.workers): m for m in measures}
    big = max(m.games for m in measures)
    if (big, 1) in by and (big, 2) in by:
        speedup = by[big, 2].games_per_second / by[big, 1].games_per_second
        verdict = "ok" if speedup >= TARGET_SPEEDUP else "BELOW TARGET"
        lines.append(
            f"\nspeed-up with 2 workers at {big} games: {speedup:.2f}x "
            f"(target >= {TARGET_SPEEDUP}x: {verdict})"
        )
        overhead = by[big, 2].cpu_ms_per_game / by[big, 1].cpu_ms_per_game
        lines.append(
            f"CPU per game with 2 workers: {overhead:.2f}x that of 1 worker, so on 2 idle "
            f"cores the speed-up can reach {2 / overhead:.2f}x (wall figures need an otherwise "
            f"idle machine; load average at the end: {os.getloadavg()[0]:.1f})"
        )
    peak = max(m.peak_pss_mb for m in measures)
    verdict = "ok" if peak < TARGET_MEGABYTES else "ABOVE TARGET"
    lines.append(f"peak memory: {peak} MB PSS (target < {TARGET_MEGABYTES} MB: {verdict})")
    for workers in (1, 2):
        sizes = sorted(m.games for m in measures if m.workers == workers)
        if len(sizes) >= 2:
            small, large = by[sizes[0], workers], by[sizes[-1], workers]
            lines.append(
                f"memory with {workers} worker(s): {small.peak_pss_mb} MB at {small.games} "
                f"games, {large.peak_pss_mb} MB at {large.games} (while playing: "
                f"{small.play_pss_mb} and {large.play_pss_mb} MB)"
            )
    return "\n".join(lines)


def main() -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="the large run (default 20000)")
    parser.add_argument("--small", type=int, default=2_000, help="the small run (default 2000)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--keep", action="store_true", help="keep the results folders")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    measures = []
    try:
        for games in (args.small, args.games):
            for workers in args.workers:
                measures.append(measure(folder, games, workers))
                print(measures[-1], file=sys.stderr, flush=True)
    finally:
        if args.keep:
            print(f"results kept in {folder}", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)
    print(report(measures))
    if args.json:
        args.json.write_text(json.dumps([asdict(m) for m in measures], indent=2) + "\n")


if __name__ == "__main__":
    main()
