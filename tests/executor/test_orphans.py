"""A main process killed with SIGKILL leaves no process of its own behind: neither its game
workers (forked by multiprocessing's fork server, so not its children) nor the checkers that
vet a cluster's results. Before, the checkers lived on for hours, and kept the fork server
alive with them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

MAIN = textwrap.dedent("""
    import multiprocessing, os, sys, time
    from concurrent.futures import ProcessPoolExecutor

    from arena.executor import local, trust

    if __name__ == "__main__":
        if sys.argv[1] == "checkers":
            pool = trust.Vetting(None, None, None, print)  # type: ignore[arg-type]
            pool.start("k", [], [], None)
            pids = set()
            while len(pids) < trust.CHECKERS and pool.pool is not None:
                pids |= {pool.pool.submit(os.getpid).result() for _ in range(8)}
        else:
            workers = local._Workers(local.Job(max), 2, print)
            pids = {w.process.pid for w in workers.workers}
        print(" ".join(map(str, pids)), flush=True)
        time.sleep(600)
""")


def _left_after_kill(tmp_path: Path, what: str) -> list[int]:
    script = tmp_path / "main.py"
    script.write_text(MAIN)
    main = subprocess.Popen([sys.executable, str(script), what], stdout=subprocess.PIPE,
                            text=True)
    assert main.stdout is not None
    pids = [int(pid) for pid in main.stdout.readline().split()]
    assert pids, "the main process started none"
    main.send_signal(signal.SIGKILL)
    main.wait()
    until = time.monotonic() + 20.0
    while (left := [p for p in pids if _running(p)]) and time.monotonic() < until:
        time.sleep(0.05)
    for pid in left:  # not to leave them to the next tests
        os.kill(pid, signal.SIGKILL)
    return left


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone before its open, or its read
        return False


@pytest.mark.parametrize("what", ["checkers", "workers"])
def test_a_main_process_killed_with_sigkill_leaves_none_of_its_processes(
        tmp_path: Path, what: str) -> None:
    assert _left_after_kill(tmp_path, what) == []
