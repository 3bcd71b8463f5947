"""Benchmark: bots kept hot (issue 34) -- bot process starts per game, and the wall time,
of a real `arena run` whose field is larger than a worker's kept processes.

Cases (every entrant a bot in its own process, replays off):
  contest   the project's own 200-entrant contest (benchmarks/contest.py's config): a
            gauntlet of 200 `random` process bots against 4 champions, 2 workers;
  commands  70 command bots (`python3 bots/examples/example_bot.py`), round robin at 2
            seats, 2 workers;
  files     200 distinct Python file bots, round robin at 2 seats (capped at `--cap`
            games: balanced tables, the default cap 20,000), 2 workers.

Starts are counted by benchmarks/start_counter.py, loaded into the run's main process and
its fork server (so into every worker), one byte per process a kept host starts. With
`--against PATH` (another checkout, e.g. the main branch) the two codes take turns round
by round, so both see the same load; medians of `--rounds`, the 1-minute load average
beside each run, and each run's phases: before the first worker (loading and the dry
run), the playing (until the last game's line) and the end (derived files, report).
Goals (issue 34): <= 0.1 starts per game for `files` and `commands`; the contest >= 4x
faster end to end. Measures only; asserts nothing.

    python benchmarks/hot_bots.py contest --rounds 3 --against /work/main
    python benchmarks/hot_bots.py files --count    # the bundles' starts, counted, no games
    python benchmarks/hot_bots.py files --count --kept 32    # as many kept as before
    python benchmarks/hot_bots.py files --memory 40    # a kept bot's memory (KEPT_BYTES)
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RUN = """
import sys
import start_counter
from arena.executor import local
local.PRELOAD = (*local.PRELOAD, "start_counter")
from arena.cli.main import cli
cli.main(sys.argv[1:], prog_name="arena")
"""
FILE_BOT = '''
from arena_bots.random_bot import RandomBot


class Entrant{n}(RandomBot):
    """One of many distinct file bots."""

    name = "entrant-{n}"
'''


def config(case: str, folder: Path, cap: int) -> Path:
    """The case's tournament config, written into `folder`."""
    lines = ["name: hot", "rules: dice", "entrants:"]
    if case == "contest":
        for n in range(1, 201):
            lines += ["  - bot: random", f"    alias: p{n:03d}", "    mode: process"]
        fmt = ["format:", "  type: gauntlet", "  champions: [p001, p002, p003, p004]",
               "  games: 1"]
    elif case == "commands":
        bot = ROOT / "bots" / "examples" / "example_bot.py"
        for n in range(1, 71):
            lines += [f"  - command: [python3, '{bot}']", f"    alias: c{n:02d}"]
        fmt = ["format:", "  type: round-robin", "  seats: 2", "  games: 1"]
    else:
        for n in range(1, 201):
            path = folder / f"entrant{n:03d}.py"
            path.write_text(FILE_BOT.format(n=n))
            lines += [f"  - bot: '{path}'", f"    alias: f{n:03d}"]
        fmt = ["format:", "  type: round-robin", "  seats: 2", "  games: 1", f"  cap: {cap}"]
    lines += [*fmt, "seed: 1", "workers: 2", "replays: false"]
    path = folder / f"{case}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(code: Path, path: Path, folder: Path, total: int) -> Measured:
    """One `arena run` of `code`: games, starts, wall seconds, load average, exit status, and
    its phases: before the first worker (loading, the dry run), the playing (until the last
    of `total` lines), the end (the derived files, the report)."""
    starts = folder / "starts"
    starts.write_text("")
    out = folder / "out"
    env = {**os.environ, "ARENA_BENCH_STARTS": str(starts), "PYTHONSAFEPATH": "1",
           "PYTHONPATH": os.pathsep.join([str(HERE), str(code)])}  # `code`'s arena alone
    load = os.getloadavg()[0]
    began = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", RUN, "run", str(path), "--out", str(out),
                             "-q", "--force"], env=env, cwd=folder, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    workers = played = None
    while proc.poll() is None:
        now = time.monotonic() - began
        if workers is None and _children(proc.pid):
            workers = now
        if played is None and workers is not None and _lines(out) >= total:
            played = now
        time.sleep(0.2)
    err = proc.stderr.read() if proc.stderr else ""
    wall = time.monotonic() - began
    if proc.returncode:
        print(f"  exit {proc.returncode}: {err.strip().splitlines()[-1:]}")
    workers = wall if workers is None else workers
    played = wall if played is None else played
    phases = (workers, played - workers, wall - played)
    return Measured(_lines(out), starts.stat().st_size, wall, (load + os.getloadavg()[0]) / 2,
                    proc.returncode, phases)


class Measured(NamedTuple):
    games: int
    starts: int
    wall: float
    load: float
    status: int
    phases: tuple[float, float, float]
    """Seconds before the first worker, playing, after the last game's line."""


def _children(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return bool(f.read().split())
    except OSError:
        return False


def _lines(out: Path) -> int:
    try:
        return (out / "games.jsonl").read_bytes().count(b"\n")
    except OSError:
        return 0


def counted(case: str, cap: int, kept: int | None = None, workers: int = 2) -> tuple[int, int]:
    """Games and bot process starts of a case counted without playing, as the runner plays
    it: each worker's KeptHosts of `kept` sandboxed processes (None: what this machine holds
    for `workers`, arena.kept.kept_that_fit), a process shown one image, the bundles (or, when
    the runner keeps the schedule's order, the games) dealt to the workers in turn, no dry
    run."""
    from arena import kept as keeping
    from arena.tournament.formats.gauntlet import gauntlet
    from arena.tournament.formats.schedule import round_robin
    from arena.tournament.run import hot

    field = 70 if case == "commands" else 200
    games = gauntlet([0, 1, 2, 3], 200, 2, 1, 1) if case == "contest" else \
        round_robin(field, 2, 1, 1, cap=None if case == "commands" else cap)
    kept = keeping.kept_that_fit(workers) if kept is None else kept
    started = 0

    class Sandboxed:
        mode, sandboxed = "process", True

        def host(self, seat: int = 0) -> Any:
            nonlocal started
            started += 1
            return self

        def shutdown(self) -> None:
            pass

    bot: Any = Sandboxed()
    hosts = [keeping.KeptHosts(kept) for _ in range(workers)]
    units = hot.bundles(games, kept, images=2) if hot.wanted(field, 2, kept, workers) else \
        [(game,) for game in games]
    for number, unit in enumerate(units):
        worker = hosts[number % workers]
        worker.prefer({entrant for game in unit for entrant in game.seats})
        for game in unit:
            worker.table([(entrant, bot) for entrant in game.seats], game.seed)
    return len(games), started


def memory(bots: int) -> str:
    """The memory one kept sandboxed file bot holds after a game: the proportional size (Pss)
    and the private part of its process tree, by /proc's smaps_rollup, over `bots` of them."""
    import arena
    from arena import entrants
    from arena.bot import Limits
    from arena.hosts.process_tree import descendants
    from arena.kept import KeptHosts

    def tree(pid: int) -> tuple[int, int]:
        pss = private = 0
        for member in [pid, *descendants(pid)]:
            with contextlib.suppress(OSError), open(f"/proc/{member}/smaps_rollup") as rollup:
                for field, kib, *_ in (line.split() for line in rollup if " kB" in line):
                    pss += int(kib) * 1024 if field == "Pss:" else 0
                    private += int(kib) * 1024 if field.startswith("Private_") else 0
        return pss, private

    kept = KeptHosts()
    with tempfile.TemporaryDirectory(prefix="arena-kept-") as tmp:
        field = []
        for n in range(bots):
            path = Path(tmp) / f"entrant{n:03d}.py"
            path.write_text(FILE_BOT.format(n=n))
            field.append(entrants.resolve(entrants.Reference(str(path))))
        try:
            hosts = []
            for n in range(0, bots - 1, 2):
                seated = [(n, field[n]), (n + 1, field[n + 1])]
                table = kept.table(seated, n)
                players = [e.player(h) for (_, e), h in zip(seated, table, strict=True)]
                arena.play_game("dice", players, seed=n, limits=Limits(5.0))
                hosts += table
            sizes = [tree(host.process.pid) for host in hosts]  # type: ignore[attr-defined]
        finally:
            kept.close()
    mib = 1024 * 1024 * len(sizes)
    return (f"{len(sizes)} kept sandboxed file bots: Pss {sum(s[0] for s in sizes) / mib:.1f} "
            f"MiB a bot, private {sum(s[1] for s in sizes) / mib:.1f} MiB a bot "
            f"(load {os.getloadavg()[0]:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=["contest", "commands", "files"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cap", type=int, default=20000, help="games of the `files` case")
    parser.add_argument("--against", type=Path, help="another checkout, measured in turn")
    parser.add_argument("--count", action="store_true",
                        help="count this checkout's starts without playing (see `counted`)")
    parser.add_argument("--kept", type=int, help="processes a worker keeps, with --count "
                        "(default: what this machine holds for 2 workers)")
    parser.add_argument("--memory", type=int, metavar="BOTS",
                        help="measure the memory of BOTS kept sandboxed file bots instead")
    args = parser.parse_args()
    if args.memory:
        print(memory(args.memory))
        return
    if args.count:
        from arena.kept import kept_that_fit

        kept = args.kept or kept_that_fit(2)
        games, started = counted(args.case, args.cap, kept)
        print(f"{args.case}: {games} games, {started} starts in the workers "
              f"({started / games:.3f} a game), counted, {kept} kept a worker")
        return
    codes = {"this": ROOT, **({"against": args.against.resolve()} if args.against else {})}
    seen: dict[str, list[Measured]] = {name: [] for name in codes}
    with tempfile.TemporaryDirectory(prefix="arena-hot-") as tmp:
        path = config(args.case, Path(tmp), args.cap)
        total = TOTALS[args.case](args.cap)
        for round_ in range(args.rounds):
            for name, code in (codes.items() if round_ % 2 == 0 else reversed(codes.items())):
                m = run(code, path, Path(tmp), total)
                seen[name].append(m)
                print(f"{name:8} round {round_ + 1}: {m.games} games, {m.starts} starts "
                      f"({m.starts / max(m.games, 1):.3f} a game), {m.wall:.1f} s "
                      f"(before the workers {m.phases[0]:.1f}, playing {m.phases[1]:.1f}, "
                      f"end {m.phases[2]:.1f}), load {m.load:.1f}", flush=True)
    walls = {name: statistics.median(m.wall for m in runs) for name, runs in seen.items()}
    for name, runs in seen.items():
        per_game = statistics.median(m.starts / max(m.games, 1) for m in runs)
        phases = [statistics.median(m.phases[i] for m in runs) for i in range(3)]
        print(f"{name} ({codes[name]}): {runs[0].games} games, median {per_game:.3f} starts a "
              f"game, median wall {walls[name]:.1f} s (phases {phases[0]:.1f} / "
              f"{phases[1]:.1f} / {phases[2]:.1f})")
    if "against" in walls:
        print(f"speed-up: {walls['against'] / walls['this']:.2f}x (wall, medians)")


TOTALS = {"contest": lambda cap: 196 * 4 * 2, "commands": lambda cap: 70 * 69,
          "files": lambda cap: min(cap, 200 * 199)}
"""Each case's games (a gauntlet's rotation sets of two, a round robin's two seatings)."""


if __name__ == "__main__":
    main()
