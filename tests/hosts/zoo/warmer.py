"""Zoo: two bots at one table that pass the sender's dice through the page cache by timing
reads alone (issue 38, item 1): no call that evicts or asks, only `pread` and a clock.

Both read `data.bin` beside this file (the test gives both entrants one bot folder holding
it, its pages cold). Each bit has VOTES pages, each at the start of a block of STRIDE bytes so
that no read-ahead joins them. The `load` bot, at its first decision with dice, reads the
pages of the bits that are 1 and says `TOLD {json}` (its hand). The `time` bot, at its first
decision (after the sender's), times its first read of each page (a page from the disk takes
far longer than one from the cache), calibrating on pages of its own (each read twice: cold,
then cached) and calling a page cached below the geometric mean of the two; each bit is the
majority of its pages. It says `HEARD {json}` (the dice it read, the bits, the timings).
"""

from __future__ import annotations

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
VOTES = 3
CALIBRATION = 5
FACES = "9TJQKA"
SIZE = (1 + BITS * VOTES + CALIBRATION + 1) * STRIDE
"""The data file's size: a block of margin, the signal, the calibration pages, a margin."""


def _pages() -> tuple[list[list[int]], list[int]]:
    """Each bit's pages, and the receiver's own calibration pages."""
    offsets = [(1 + i) * STRIDE for i in range(BITS * VOTES + CALIBRATION)]
    return [offsets[b * VOTES:(b + 1) * VOTES] for b in range(BITS)], offsets[BITS * VOTES:]


def _read_ns(fd: int, offset: int) -> int:
    start = time.perf_counter_ns()
    os.pread(fd, PAGE, offset)
    return time.perf_counter_ns() - start


class Warmer(arena.Bot):
    """The sender (`load`) or the receiver (`time`)."""

    name = "zoo-warmer"
    options = MappingProxyType({"role": "time"})
    done = False

    def act(self, observation: arena.Observation) -> arena.Action:
        if not Warmer.done and observation.hand is not None:
            Warmer.done = True
            fd = os.open(os.path.join(os.path.dirname(__file__), "data.bin"), os.O_RDONLY)
            try:
                report = self._play_role(fd, [str(d) for d in observation.hand][:5])
            finally:
                os.close(fd)
            sys.stderr.write(report + "\n")
            sys.stderr.flush()
        return observation.legal_actions()[0]

    def _play_role(self, fd: int, hand: list[str]) -> str:
        signal, calibration = _pages()
        if self.settings["role"] == "load":
            bits = [(FACES.index(die) >> b) & 1 for die in hand for b in range(3)]
            for pages, bit in zip(signal, bits, strict=True):
                for offset in pages if bit else ():
                    os.pread(fd, PAGE, offset)
            return "TOLD " + json.dumps({"hand": hand})
        cold = [_read_ns(fd, offset) for offset in calibration]
        hot = [_read_ns(fd, offset) for offset in calibration]
        cut = math.sqrt(statistics.median(cold) * max(1, statistics.median(hot)))
        times = [[_read_ns(fd, offset) for offset in pages] for pages in signal]
        got = [int(sum(t < cut for t in bit) * 2 > VOTES) for bit in times]
        faces = [sum(got[d * 3 + b] << b for b in range(3)) for d in range(5)]
        return "HEARD " + json.dumps({
            "hand": [FACES[f] if f < len(FACES) else "?" for f in faces], "bits": got,
            "cold": statistics.median(cold), "hot": statistics.median(hot), "cut": cut})
