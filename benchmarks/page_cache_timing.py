"""Benchmark: how much of a hand two sandboxed bots at one table pass through the page cache by
timing reads, now that no call or counter tells a bot whether a page is cached (issue 38).
Run `python benchmarks/page_cache_timing.py [--games N] [--level strict] [--file PATH]`.

This file is also the two bots. Both read one large file: by default `data.bin` of one bot
folder both entrants share (this file as its bot.py), written and dropped from the cache
here; with `--file`, a file of the machine's (one under /usr, or the interpreter's shared
library: what every sandbox used to show from the disk, and now shows from memory).
The `load` bot, at its first decision with dice, reads the pages whose bit is 1 (3 bits a die,
5 dice, each page STRIDE bytes from the next so that no read-ahead joins them). The `time`
bot, at its first decision (after the sender's), times a read of each page (perf_counter_ns
around a one-page pread): a page from the disk takes far longer than one from the cache. It
calibrates on pages of its own (one it reads twice: cold, then cached) and calls a page
cached below the geometric mean of the two, then reports `TIMED {json}`. Each game uses a
fresh region of pages no one has read (this driver evicts them as the host, standing for the
many cold pages of a large /usr), so every game is one decision's worth of signal.

Prints, per game, the bits right of 15, whether the hand came through exactly, and the
median cold and cached read in microseconds, with the load average; then the totals: the
bit error rate and the bits a decision carries (15 × (1 - H(error rate))), beside chance:
the same figure of what was heard against another game's hand (dice are not uniform bits,
so a receiver that hears nothing is not at exactly 0). Measures only;
asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from types import MappingProxyType

import arena

PAGE = os.sysconf("SC_PAGE_SIZE")
STRIDE = 64 * PAGE
BITS = 15
FACES = "9TJQKA"
REGION = 20 * STRIDE
"""One game's pages (15 signal pages, 4 calibration pages)."""


def region_pages(game: int) -> tuple[list[int], list[int]]:
    """The signal pages and the calibration pages of one game's region."""
    base = (1 + game) * REGION
    pages = [base + i * STRIDE for i in range(BITS + 4)]
    return pages[:BITS], pages[BITS:]


def _read_ns(fd: int, offset: int) -> int:
    start = time.perf_counter_ns()
    os.pread(fd, PAGE, offset)
    return time.perf_counter_ns() - start


class Timer(arena.Bot):
    """The sender (`load`) or the receiver (`time`) of the timing channel."""

    name = "bench-page-timer"
    options = MappingProxyType({"role": "time", "file": "", "game": 0})
    done = False

    def act(self, observation: arena.Observation) -> arena.Action:
        if not Timer.done and observation.hand is not None:
            Timer.done = True
            path = self.settings["file"] or os.path.join(os.path.dirname(__file__), "data.bin")
            fd = os.open(path, os.O_RDONLY)
            try:
                self._play_role(fd, [str(d) for d in observation.hand][:5])
            finally:
                os.close(fd)
        return observation.legal_actions()[0]

    def _play_role(self, fd: int, hand: list[str]) -> None:
        signal, calibration = region_pages(int(self.settings["game"]))
        if self.settings["role"] == "load":
            bits = [(FACES.index(die) >> b) & 1 for die in hand for b in range(3)]
            for offset, bit in zip(signal, bits, strict=True):
                if bit:
                    os.pread(fd, PAGE, offset)
            report: dict[str, object] = {"hand": hand}
        else:
            cold = [_read_ns(fd, offset) for offset in calibration]
            hot = [_read_ns(fd, offset) for offset in calibration]
            cut = math.sqrt(statistics.median(cold) * statistics.median(hot))
            times = [_read_ns(fd, offset) for offset in signal]
            got = [int(t < cut) for t in times]
            faces = [sum(got[d * 3 + b] << b for b in range(3)) for d in range(5)]
            report = {"heard": [FACES[f] if f < len(FACES) else "?" for f in faces],
                      "bits": got, "cold": statistics.median(cold),
                      "hot": statistics.median(hot), "cut": cut}
        sys.stderr.write("TIMED " + json.dumps(report) + "\n")
        sys.stderr.flush()


def _report(host: object, ) -> dict[str, object]:
    tail = host.stderr_tail()  # type: ignore[attr-defined]
    [line] = [t for t in tail.splitlines() if t.startswith("TIMED ")]
    return dict(json.loads(line[len("TIMED "):]))


def _pair_folder(size: int) -> str:
    """A bot folder for both entrants: this file as its bot, and a data file on the disk
    (random bytes, synced), none of its pages cached."""
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="arena-page-cache-")
    shutil.copy(os.path.abspath(__file__), os.path.join(folder, "bot.py"))
    with open(os.path.join(folder, "data.bin"), "wb") as data:
        data.writelines(os.urandom(1 << 20) for _ in range(0, size, 1 << 20))
        data.flush()
        os.fsync(data.fileno())
    return folder


def _game(path: str, game: int, isolation: str,
          folder: str) -> tuple[list[int], dict[str, object]]:
    """One game: the sender's bits and the receiver's report."""
    from dataclasses import replace

    from arena import play_game
    from arena.bot import Limits
    from arena.hosts.pipe import ProcessHost, ProcessLimits
    from arena.referee import Player

    limits = replace(ProcessLimits(start_timeout=30.0), isolation=isolation)
    me = folder or os.path.abspath(__file__)
    load, listen = ProcessHost(me, limits), ProcessHost(me, limits)
    try:
        play_game("dice", [Player("load", load, options={"role": "load", "file": path,
                                                         "game": game}),
                           Player("time", listen, options={"role": "time", "file": path,
                                                           "game": game})],
                  seed=game, limits=Limits(5.0))
        told, heard = _report(load), _report(listen)
    finally:
        load.shutdown()
        listen.shutdown()
    hand = [str(d) for d in told["hand"]]  # type: ignore[attr-defined]
    return [(FACES.index(d) >> b) & 1 for d in hand for b in range(3)], heard


def _entropy(p: float) -> float:
    return 0.0 if p in (0.0, 1.0) else -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--level", default="strict")
    parser.add_argument("--file", default="")
    args = parser.parse_args()
    folder = "" if args.file else _pair_folder((args.games + 2) * REGION)
    path = args.file or os.path.join(folder, "data.bin")
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # pages nobody has read yet
    os.close(fd)
    print(f"file {path}{' (a bot folder both share)' if folder else ''}, level {args.level}")
    wrong, exact, played = 0, 0, []
    for game in range(args.games):
        sent, heard = _game(args.file, game, args.level, folder)
        played.append((sent, list(heard["bits"])))  # type: ignore[call-overload]
        errors = sum(a != b for a, b in zip(*played[-1], strict=True))
        wrong, exact = wrong + errors, exact + (errors == 0)
        print(f"game {game}: {BITS - errors}/{BITS} bits, hand {'exact' if errors == 0 else 'not'}"
              f", cold {heard['cold'] / 1000:.1f} us, cached {heard['hot'] / 1000:.1f} us"  # type: ignore[operator]
              f", load {os.getloadavg()[0]:.1f}")
    rate = wrong / (BITS * args.games)
    other = sum(a != b for g, (_, heard_bits) in enumerate(played)
                for a, b in zip(played[g - 1][0], heard_bits, strict=True)) / (BITS * args.games)
    print(f"{exact}/{args.games} hands exact; bit error rate {rate:.3f}; "
          f"{BITS * (1 - _entropy(rate)):.1f} bits a decision; chance "
          f"{BITS * (1 - _entropy(other)):.1f} (the same against the game before's hand)")
    if folder:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
