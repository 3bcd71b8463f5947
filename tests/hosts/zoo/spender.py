"""Zoo: an innocent bot that uses memory as ordinary programs do, so that the seccomp filter's
refusals (issue 38: madvise's evicting advice, mincore, fadvise...) are shown to cost it
nothing. At its first decision it allocates and frees 200 MB (one block, and as many small
objects from a thread, whose malloc arena gives memory back with madvise), drops an anonymous
mapping with MADV_DONTNEED and MADV_FREE, runs numpy when it is installed, and starts helper
processes (a pool started at import, as a program starts one, and a program spawned) in a
sandbox whose /proc is no procfs; a sandboxed bot may make no pipe once it plays, so the pool's
pipes are made at import and the program is spawned without one. It reports
`SPENT {json}` (each check: "ok", "absent" or the error) on stderr and plays legally.
"""

from __future__ import annotations

import json
import mmap
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable

import arena

MB = 1 << 20
POOL = multiprocessing.get_context("fork").Pool(2)


def _block() -> None:
    hoard = bytearray(200 * MB)
    hoard[::4096] = b"x" * (len(hoard) // 4096)
    del hoard


def _small_in_a_thread() -> None:
    failed: list[BaseException] = []

    def churn() -> None:
        try:
            for _ in range(4):
                pieces = [bytes(1000) for _ in range(50_000)]  # 50 MB in small blocks
                del pieces
        except Exception as exc:  # noqa: BLE001 - reported by the caller, not lost in the thread
            failed.append(exc)

    worker = threading.Thread(target=churn)
    worker.start()
    worker.join()
    if failed:
        raise failed[0]


def _advised() -> None:
    for advice in (mmap.MADV_DONTNEED, mmap.MADV_FREE):
        region = mmap.mmap(-1, 16 * MB, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        region[::4096] = b"y" * (16 * MB // 4096)
        region.madvise(advice)
        region.close()


def _numpy() -> str:
    try:
        import numpy
    except ImportError:
        return "absent"
    a = numpy.random.default_rng(1).random((1000, 1000))
    assert float((a @ a.T).trace()) > 0
    del a
    return "ok"


def _helpers() -> None:
    """Processes as a program uses them (a pool, a program), with the CPUs counted."""
    assert (os.cpu_count() or 0) >= 1
    with POOL as pool:
        assert pool.map(abs, [-1, -2, -3]) == [1, 2, 3]
    child = os.posix_spawn(sys.executable, [sys.executable, "-c", "exit(6 * 7)"], os.environ)
    assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 42


def _check(run: Callable[[], object]) -> str:
    try:
        result = run()
    except Exception as exc:  # noqa: BLE001 - any failure is the report, not a crash
        return f"error: {type(exc).__name__}: {exc}"
    return result if isinstance(result, str) else "ok"


class Spender(arena.Bot):
    name = "zoo-spender"
    spent = False

    def act(self, observation: arena.Observation) -> arena.Action:
        if not Spender.spent:
            Spender.spent = True
            report = {"block": _check(_block), "small": _check(_small_in_a_thread),
                      "advised": _check(_advised), "numpy": _check(_numpy),
                      "helpers": _check(_helpers)}
            sys.stderr.write("SPENT " + json.dumps(report) + "\n")
            sys.stderr.flush()
        return observation.legal_actions()[0]
