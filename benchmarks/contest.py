"""Benchmark: the 200-entrant contest. Every entrant is a Python bot in its own process
(`random`, `mode: process`), in a gauntlet against a few champions, played by `arena run`
under a low soft limit of open files, as a contest organiser's default shell gives it. Run
`python benchmarks/contest.py [--entrants 200] [--champions 4] [--files 128:HARD]`.

It reports the run's exit status and its last stderr line, games played, bot faults (there
must be none: running out of descriptors is the referee's failure, never a bot's), the wall
time, and the peak of open descriptors of the referee and of each worker (sampled every
20 ms from /proc). HARD defaults to this shell's hard limit (arena raises its soft limit to
it); `--files 128:128` shows what a worker keeps when it cannot. Measures only; asserts
nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

UNDER_LIMIT = """
import resource, sys
if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), int(sys.argv[2])))
    from arena.cli.main import cli
    cli.main(sys.argv[3:], prog_name="arena")
"""


def config(folder: Path, entrants: int, champions: int, workers: int) -> Path:
    """A gauntlet of `entrants` process bots, the first `champions` of them champions."""
    lines = ["name: contest", "rules: dice", "entrants:"]
    for n in range(1, entrants + 1):
        lines += ["  - bot: random", f"    alias: p{n:03d}", "    mode: process"]
    names = ", ".join(f"p{n:03d}" for n in range(1, champions + 1))
    lines += ["format:", "  type: gauntlet", f"  champions: [{names}]", "  games: 1",
              "seed: 1", f"workers: {workers}", "replays: false"]
    path = folder / "contest.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def open_files(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def workers_of(pid: int) -> list[int]:
    """The referee's Python children: its workers (and the fork server)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(c) for c in f.read().split()]
    except OSError:
        return []
    found = list(children)
    for child in children:
        found += workers_of(child) if open_files(child) else []
    return [p for p in found if _is_referee(p)]


def _is_referee(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"launcher.py" not in f.read()
    except OSError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=200)
    parser.add_argument("--champions", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    parser.add_argument("--files", default=f"128:{hard}", help="SOFT:HARD open files")
    args = parser.parse_args()
    soft, hard = args.files.split(":")
    with tempfile.TemporaryDirectory(prefix="arena-contest-") as tmp:
        folder = Path(tmp)
        path = config(folder, args.entrants, args.champions, args.workers)
        out = folder / "out"
        started = time.monotonic()
        run = subprocess.Popen([sys.executable, "-c", UNDER_LIMIT, soft, hard, "run", str(path),
                                "--out", str(out), "-q"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        peaks: dict[str, int] = {"referee": 0, "worker": 0}
        while run.poll() is None:
            peaks["referee"] = max(peaks["referee"], open_files(run.pid))
            for worker in workers_of(run.pid):
                peaks["worker"] = max(peaks["worker"], open_files(worker))
            time.sleep(0.02)
        seconds = time.monotonic() - started
        err = run.stderr.read() if run.stderr else ""
        games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    faults = sum(len(g.get("faults", [])) for g in games)
    print(f"{args.entrants} process entrants, gauntlet of {args.champions} champions, "
          f"{args.workers} workers, open files {soft}:{hard}")
    print(f"exit {run.returncode}; {len(games)} games; {faults} bot faults; {seconds:.1f} s "
          f"({len(games) / seconds:.1f} games/s)")
    print(f"peak open descriptors: referee {peaks['referee']}, a worker {peaks['worker']}")
    if err.strip():
        print("last stderr line:", err.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
