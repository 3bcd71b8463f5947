"""Benchmark the tournament layer: `arena run` on one worker against a bare loop of games.

The same games both ways: the `benchmarks/tournament.py` round robin (6 `random` entrants at
4-seat `dice` tables, inline, seed 1, capped to exactly N games). The baseline is a bare
loop of `arena.play_game` over the run's own games (its schedule's seats and seeds, the
bots resolved once, as the worker does); the contenders are real `arena run` subprocesses
with `--workers 1` (games played in the main process), with replays on and with
`replays: false`. Each round runs the three in turn, in a fresh process each, and the
rounds alternate their order; the figures are medians over the rounds, each a ratio
against the baseline of the same round:

- playing: games per second from the first game to the last (the baseline times its loop;
  a run's games.jsonl is watched every few milliseconds: one `stat` per look), the figure
  the goals use (the issue's "plays ~310 games/s" is this one);
- wall: games per second of the whole process, start-up (imports, config, plan) and end
  (ratings, tables) included; the baseline process imports arena and plans too;
- end: a run's CPU seconds after its last game's line (the catch-up, the audit, the tables
  and the report), per thousand games (none for the baseline).

Goals (issue 15): replays on >= 0.8x the bare loop, `replays: false` >= 0.95x; issue 34's
row asks replays on >= 0.6x.

`--floor` adds a contender that bounds what any faster replay encoder or chances walk could
give (a compiled kernel of arena/replay.py and arena/report/record_chances.py included): a
replays-on run whose replay text, viewer's chances and tally cost nothing, each game's own
handed back by a lookup, made beforehand by a first run of the same games in the same
process (outside the playing span; its whole-run figures count that run too, so read its
playing ones). What is left is everything else replays add: gzip, the files, the packs.

    python benchmarks/layer.py                     # 3,000 games, 5 rounds
    python benchmarks/layer.py --games 2000 --rounds 7 --json out.json
    python benchmarks/layer.py --games 2000 --floor
    git archive COMMIT | tar -x -C /tmp/before && python benchmarks/layer.py --before /tmp/before

Pure measurement: it writes only into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tournament import config_text  # the same tournament as benchmarks/tournament.py

POLL_SECONDS = 0.005
TICKS = os.sysconf("SC_CLK_TCK")
GOALS = {"replays": 0.8, "no-replays": 0.95}


def bare_loop(config: Path) -> dict[str, float]:
    """Play the run's games with `arena.play_game` (in this process); return the times."""
    import arena
    from arena.entrants import resolve
    from arena.plugins import default_registry
    from arena.tournament.formats.registry import plan_for
    from arena.tournament.load import load_tournament

    cfg = load_tournament(config)
    registry = default_registry()
    games = plan_for(cfg).batch({})
    bots = [(resolve(e.reference, registry), e.name) for e in cfg.entrants]
    options, limits = cfg.options.dict(), cfg.limits
    started, cpu = time.perf_counter(), time.process_time()
    for game in games:
        players = [bot.player(bot.host(), name) for bot, name in (bots[i] for i in game.seats)]
        arena.play_game(cfg.rules, players, game.seed, options, limits)
    return {"games": len(games), "seconds": time.perf_counter() - started,
            "cpu": time.process_time() - cpu}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def floor_run(argv: list[str]) -> None:
    """`arena run` with argv, after a first run of the same games into `<out>-made` whose
    replay texts, chances and tallies this one is handed back instead of making them."""
    from arena.cli import main as arena
    from arena.report import as_played
    from arena.tournament.run import worker

    text, chances, tally = worker.game_text, as_played.record_json, as_played.record_tally
    texts: dict[str, bytes] = {}
    made: dict[int, tuple[bytes | None, object]] = {}

    def making_text(record: Any, about: Any, seats: Any) -> bytes:
        texts[about["id"]] = found = text(record, about, seats)
        return found

    def making_chances(record: Any) -> bytes | None:
        found = chances(record)
        made[record.seed] = (found, tally(record))
        return found

    out = argv[argv.index("--out") + 1]
    _patched([*argv[:argv.index("--out") + 1], f"{out}-made", *argv[argv.index("--out") + 2:]],
             arena, (making_text, making_chances, tally))
    if len(made) != len(texts):
        raise SystemExit("two games of one seed: the floor cannot tell them apart")
    _patched(argv, arena, (lambda record, about, seats: texts[about["id"]],
                           lambda record: made[record.seed][0],
                           lambda record: made[record.seed][1]))


def _patched(argv: list[str], arena: Callable[[], None], found: tuple[Any, Any, Any]) -> None:
    """Run `arena` with argv, the worker's replay text and the notes' chances and tally
    being `found`'s three."""
    from arena.report import as_played
    from arena.tournament.run import worker

    worker.game_text, as_played.record_json, as_played.record_tally = found
    sys.argv = ["arena", *argv]
    try:
        arena()
    except SystemExit as stop:
        if stop.code:
            raise


def _baseline(folder: Path, games: int) -> dict[str, float]:
    config = _config(folder, games, replays=True)
    started, cpu = time.perf_counter(), _children_cpu()
    out = subprocess.run([sys.executable, __file__, "--bare", str(config)], check=True,
                         capture_output=True, text=True).stdout
    wall, cpu = time.perf_counter() - started, _children_cpu() - cpu
    times = json.loads(out)
    return {"play": times["games"] / times["seconds"], "play_cpu": times["games"] / times["cpu"],
            "wall": times["games"] / wall, "wall_cpu": times["games"] / cpu}


def _config(folder: Path, games: int, *, replays: bool) -> Path:
    path = folder / f"bench-{'replays' if replays else 'bare'}.yaml"
    text = config_text(games)
    path.write_text(text if replays else text.replace("replays: true", "replays: false"))
    return path


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _arena_run(folder: Path, games: int, *, replays: bool,
               tree: Path | None = None, floor: bool = False) -> dict[str, float]:
    """One `arena run` subprocess (of the arena in `tree`, if given; `floor_run`'s, if
    `floor`); its games.jsonl watched for the span of the playing."""
    config = _config(folder, games, replays=replays)
    out = folder / "out"
    log = out / "games.jsonl"
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, *([__file__, "--floor-run"] if floor else ["-m", "arena"]),
               "run", str(config), "--out", str(out), "--workers", "1", "--quiet", "--force"]
    env = os.environ if tree is None else {**os.environ, "PYTHONPATH": str(tree)}
    started, cpu = time.perf_counter(), _children_cpu()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=env, cwd=folder)
    first: tuple[float, float, int] | None = None  # time, CPU time, games written
    last = (0.0, 0.0)
    size = 0
    while process.poll() is None:
        now = time.perf_counter()
        try:
            grown = os.stat(log).st_size
            used = _cpu_seconds(process.pid)
        except (FileNotFoundError, ProcessLookupError):
            grown, used = 0, 0.0
        if grown > size:
            if first is None:
                first = (now, used, log.read_bytes()[:grown].count(b"\n"))
            size, last = grown, (now, used)
        time.sleep(POLL_SECONDS)
    wall, cpu = time.perf_counter() - started, _children_cpu() - cpu
    if process.returncode != 0:
        raise SystemExit(f"arena run failed: {process.stderr.read().decode()}")  # type: ignore[union-attr]
    done = log.read_bytes().count(b"\n")
    if done != games or first is None or last[0] <= first[0] or last[1] <= first[1]:
        raise SystemExit(f"arena run wrote {done} of {games} games, too fast to watch")
    played = done - first[2]
    return {"play": played / (last[0] - first[0]), "play_cpu": played / (last[1] - first[1]),
            "wall": done / wall, "wall_cpu": done / cpu,
            "end_cpu": (cpu - last[1]) / done * 1000}


def measure(games: int, rounds: int, before: Path | None = None,
            floor: bool = False) -> list[dict[str, dict[str, float]]]:
    """Run the rounds, alternating the order of baseline and contenders."""
    folder = Path(tempfile.mkdtemp(prefix="arena-layer-"))
    runs = {
        "bare": lambda: _baseline(folder, games),
        "replays": lambda: _arena_run(folder, games, replays=True),
        "no-replays": lambda: _arena_run(folder, games, replays=False),
    }
    if floor:
        runs["replays, floor"] = lambda: _arena_run(folder, games, replays=True, floor=True)
    if before is not None:
        runs["before: replays"] = lambda: _arena_run(folder, games, replays=True, tree=before)
        runs["before: no-replays"] = lambda: _arena_run(folder, games, replays=False,
                                                        tree=before)
    figures = []
    try:
        for number in range(rounds):
            order = list(runs) if number % 2 == 0 else list(reversed(runs))
            one = {name: runs[name]() for name in order}
            figures.append({name: one[name] for name in runs})
            print(json.dumps({"round": number + 1, **one}), file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return figures


def report(figures: list[dict[str, dict[str, float]]], games: int) -> str:
    """A Markdown table: medians of the rates and of the same-round ratios, and the verdict."""
    lines = [
        (f"{games} games of 4-seat dice, random bots inline, 1 worker; medians of "
         f"{len(figures)} rounds (load average at the end: {os.getloadavg()[0]:.1f})"),
        "",
        ("| run | playing: games/s | ratio | games/CPU-s | ratio | whole run: games/s | ratio "
         "| games/CPU-s | ratio | end: CPU-s per 1,000 games | goal (playing, CPU) |"),
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for name in figures[0]:
        cells = []
        for key in ("play", "play_cpu", "wall", "wall_cpu"):
            rate = statistics.median(f[name][key] for f in figures)
            ratio = statistics.median(f[name][key] / f["bare"][key] for f in figures)
            cells.append(f"{rate:.0f} | {ratio:.2f}x")
        ends = [f[name]["end_cpu"] for f in figures if "end_cpu" in f[name]]
        cells.append(f"{statistics.median(ends):.2f}" if ends else "")
        goal = GOALS.get(name.removeprefix("before: ").removesuffix(", floor"))
        ratio = statistics.median(f[name]["play_cpu"] / f["bare"]["play_cpu"] for f in figures)
        verdict = "" if goal is None else f">= {goal}x: {'ok' if ratio >= goal else 'BELOW'}"
        lines.append(f"| {name} | {' | '.join(cells)} | {verdict} |")
    return "\n".join(lines)


def main() -> None:
    """Run the benchmark (or, with --bare, one baseline loop) and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="games per run (default 3000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--json", type=Path, default=None, help="also write every round here")
    parser.add_argument("--before", type=Path, default=None,
                        help="also run the arena of this source tree (e.g. a `git archive` of "
                        "an older commit) in every round, for before/after in the same run")
    parser.add_argument("--floor", action="store_true",
                        help="also run replays on with their text, chances and tally free")
    parser.add_argument("--bare", type=Path, default=None, help=argparse.SUPPRESS)
    if sys.argv[1:2] == ["--floor-run"]:
        floor_run(sys.argv[2:])
        return
    args = parser.parse_args()
    if args.bare is not None:
        print(json.dumps(bare_loop(args.bare)))
        return
    figures = measure(args.games, args.rounds, args.before, args.floor)
    print(report(figures, args.games))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
