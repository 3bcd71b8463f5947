"""Benchmark the end of `arena run` (issue 34, "a run ends when its games end"): the share of
the wall after the last game is written, and the main process's memory while playing against
its peak at the end. The CPU time of the whole process tree after the last game, as a share
of the run's, is the same figure that a loaded machine does not distort.

The `benchmarks/tournament.py` round robin (6 `random` entrants at 4-seat `dice` tables,
replays on, seed 1, capped to exactly N games), played by a real `arena run` subprocess
(report included, as `arena run` builds it); games.jsonl is watched every 0.1 s, and the
main process's RSS sampled from /proc. With `--before TREE` (a `git archive` of an older
commit) each round also runs that tree's arena, alternating the order, for before/after in
the same rounds; figures are medians over the rounds, with the load average beside them.

Goals: <= 10% of the wall after the last game; the main process's peak at the end
<= 1.2x its peak while playing, flat up to 1M games.

    python benchmarks/run_end.py --games 100000 --workers 2 --rounds 1
    python benchmarks/run_end.py --games 20000 --rounds 3 --before /tmp/before
    python benchmarks/run_end.py --audit 100000 --before /tmp/before

`--end N` plays N games as `arena run` does in its main process, their lines a played
240-game log's again under the schedule's ids (no replays, no workers: the games cost
nothing, so the main process's own work is what is left), then the end as `arena run` does it
(audit, tables, report), in a fresh process of each tree; it prints the CPU seconds of the
playing and of the end, and the peak RSS while playing and at the end: a million games
where a loaded machine cannot play a million real ones.

    python benchmarks/run_end.py --end 1000000 --before /tmp/before

`--audit N` measures the end's own pass alone at a size a loaded machine cannot play: a
log of N games (a played 240-game log's lines again under new ids, no replays), audited as
the run that wrote them audits it, in a fresh process of each tree; it prints the peak RSS
before and after the audit, and its CPU seconds.

Pure measurement: it writes only into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tournament import SAMPLE_SECONDS, _cpu_seconds, _LineCounter, _memory_kb, _tree, config_text


def measure(folder: Path, games: int, workers: int, tree: Path | None) -> dict[str, float]:
    """One `arena run` (of the arena in `tree`, if given), sampled until it ends."""
    config = folder / "bench.yaml"
    config.write_text(config_text(games))
    out = folder / "out"
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "arena", "run", str(config), "--out", str(out),
               "--workers", str(workers), "--quiet", "--force"]
    env = os.environ if tree is None else {**os.environ, "PYTHONPATH": str(tree)}
    counter = _LineCounter(out / "games.jsonl")
    play_rss = end_rss = 0
    last = play_cpu = 0.0
    cpu: dict[int, float] = {}
    loads = [os.getloadavg()[0]]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=env, cwd=folder)
    while process.poll() is None:
        rss = _memory_kb(process.pid)[1]
        for pid in _tree(process.pid):
            cpu[pid] = max(cpu.get(pid, 0.0), _cpu_seconds(pid) or 0.0)
        if counter.count() < games:
            play_rss, last = max(play_rss, rss), time.perf_counter()
            play_cpu = sum(cpu.values())
        else:
            end_rss = max(end_rss, rss)
        time.sleep(SAMPLE_SECONDS)
    wall = time.perf_counter() - started
    loads.append(os.getloadavg()[0])
    if process.returncode != 0:
        raise SystemExit(f"arena run failed: {process.stderr.read().decode()}")  # type: ignore[union-attr]
    total_cpu = sum(cpu.values())
    return {"wall": wall, "after_last": wall - (last - started),
            "cpu": total_cpu, "after_cpu_share": (total_cpu - play_cpu) / total_cpu,
            "after_share": (wall - (last - started)) / wall,
            "play_rss_mb": play_rss / 1024, "end_rss_mb": max(end_rss, play_rss) / 1024,
            "load": statistics.mean(loads)}


AUDIT = """
import json, resource, sys, time
from pathlib import Path
from arena.tournament.run.audit import audit_log, written
folder = Path(sys.argv[1])
played, wrote = {}, {}
for line in open(folder / "games.jsonl"):
    game = json.loads(line)
    played[game["id"]] = tuple(game["placements"])
    wrote[game["id"]] = written(line.rstrip("\\n"), None)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.process_time()
assert audit_log(folder, played, 1, replays=True, written=wrote) is None
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps([base / 1024, peak / 1024, time.process_time() - started]))
"""


END = """
import json, resource, sys, time
from pathlib import Path
from arena.report.html import build_report
from arena.tournament.load import load_tournament
from arena.tournament.run import runner
from arena.tournament.run.audit import written
from arena.tournament.run.worker import Played
config, small, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
lines = [json.loads(x) for x in small.read_text().splitlines()]
def played(self, todo):
    for number, spec in enumerate(todo):
        line = json.dumps({**lines[number % len(lines)], "id": spec.id}, separators=(",", ":"))
        yield Played(spec.id, tuple(lines[number % len(lines)]["placements"]), line), \\
            written(line, None)
marks = []
def mark():
    marks.append((time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
finish = runner.Run._finish
def timed(self, resumed):
    mark()
    return finish(self, resumed)
runner.Run._played, runner.Run._finish = played, timed
cfg = load_tournament(config)
mark()
runner.run_tournament(cfg, out, workers=1, force=True,
                      after=lambda folder, count: build_report(folder, workers=count))
mark()
(start, base), (ended, playing), (done, peak) = marks
print(json.dumps([ended - start, done - ended, base / 1024, playing / 1024, peak / 1024]))
"""


def small_run(folder: Path) -> None:
    """A played 240-game log without replays in folder/small, whose lines the sizes reuse."""
    small = folder / "small.yaml"
    small.write_text(config_text(240).replace("replays: true", "replays: false"))
    subprocess.run([sys.executable, "-m", "arena", "run", str(small), "--out",
                    str(folder / "small"), "--workers", "1", "--quiet", "--force"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=folder)


def end(games: int, trees: dict[str, Path | None]) -> None:
    """`arena run`'s main process over N games that cost nothing, and its end, in each tree."""
    folder = Path(tempfile.mkdtemp(prefix="arena-run-end-"))
    try:
        small_run(folder)
        big = folder / "big.yaml"
        big.write_text(config_text(games).replace("replays: true", "replays: false"))
        print(f"the main process of a {games}-game `arena run` (load {os.getloadavg()[0]:.1f})\n")
        print("| arena | playing CPU s | end CPU s | end / playing CPU | RSS at start MB | "
              "peak playing MB | peak at the end MB | end / playing RSS | load |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for name, tree in trees.items():
            env = os.environ if tree is None else {**os.environ, "PYTHONPATH": str(tree)}
            out = subprocess.run([sys.executable, "-c", END, str(big),
                                  str(folder / "small" / "games.jsonl"), str(folder / "out")],
                                 env=env, check=True, capture_output=True, text=True,
                                 cwd=folder).stdout
            play, ended, base, playing, peak = json.loads(out.splitlines()[-1])
            print(f"| {name} | {play:.1f} | {ended:.1f} | {ended / play:.2f} | {base:.0f} | "
                  f"{playing:.0f} | {peak:.0f} | {peak / playing:.2f}x | "
                  f"{os.getloadavg()[0]:.1f} |", flush=True)
            shutil.rmtree(folder / "out", ignore_errors=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def audit(games: int, trees: dict[str, Path | None]) -> None:
    """The end's audit pass over an N-game log, in each tree: memory and CPU."""
    folder = Path(tempfile.mkdtemp(prefix="arena-run-end-"))
    try:
        small_run(folder)
        lines = [json.loads(x) for x in (folder / "small" / "games.jsonl").read_text().splitlines()]
        (folder / "big").mkdir()
        with open(folder / "big" / "games.jsonl", "w") as log:
            for number in range(games):
                line = {**lines[number % len(lines)], "id": f"rr-{number + 1:07d}"}
                log.write(json.dumps(line, separators=(",", ":")) + "\n")
        print(f"the audit of a {games}-game log (load {os.getloadavg()[0]:.1f})\n")
        print("| arena | RSS before MB | peak after MB | CPU s |\n| --- | ---: | ---: | ---: |")
        for name, tree in trees.items():
            env = os.environ if tree is None else {**os.environ, "PYTHONPATH": str(tree)}
            out = subprocess.run([sys.executable, "-c", AUDIT, str(folder / "big")], env=env,
                                 check=True, capture_output=True, text=True,
                                 cwd=folder).stdout  # not this folder's arena, the tree's
            base, peak, cpu = json.loads(out)
            print(f"| {name} | {base:.0f} | {peak:.0f} | {cpu:.1f} |")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    """Run the rounds and print a Markdown table of the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--audit", type=int, default=None, metavar="N")
    parser.add_argument("--end", type=int, default=None, metavar="N")
    args = parser.parse_args()
    trees: dict[str, Path | None] = {"this tree": None}
    if args.before is not None:
        trees["before"] = args.before
    if args.audit is not None:
        audit(args.audit, trees)
        return
    if args.end is not None:
        end(args.end, trees)
        return
    folder = Path(tempfile.mkdtemp(prefix="arena-run-end-"))
    rounds: list[dict[str, dict[str, float]]] = []
    try:
        for number in range(args.rounds):
            order = list(trees) if number % 2 == 0 else list(reversed(trees))
            one = {name: measure(folder, args.games, args.workers, trees[name]) for name in order}
            rounds.append(one)
            print(json.dumps({"round": number + 1, **one}), file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{args.games} games, {args.workers} worker(s), medians of {args.rounds} round(s)\n")
    print("| arena | wall s | after the last game s | share of the wall | CPU s | share of "
          "the CPU after the last game | main RSS playing MB | main RSS peak at the end MB "
          "| end / playing | load |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in trees:
        med = {k: statistics.median(r[name][k] for r in rounds) for k in rounds[0][name]}
        print(f"| {name} | {med['wall']:.1f} | {med['after_last']:.1f} | "
              f"{100 * med['after_share']:.1f}% | {med['cpu']:.1f} | "
              f"{100 * med['after_cpu_share']:.1f}% | {med['play_rss_mb']:.0f} | "
              f"{med['end_rss_mb']:.0f} | {med['end_rss_mb'] / med['play_rss_mb']:.2f}x | "
              f"{med['load']:.1f} |")
    if args.json:
        args.json.write_text(json.dumps(rounds, indent=2) + "\n")


if __name__ == "__main__":
    main()
