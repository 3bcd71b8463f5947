"""Zoo: two bots at one table that pass the sender's dice through the kernel's page cache with
nothing but reads (issue 38, item 1, after the seccomp filter refused every call that evicts
a page or asks whether one is cached). Both read one large file every sandbox shares (option
`file`, under /usr), in pages nobody has read yet (the test evicts them first).

The `load` bot, at its first decision with dice, reads the pages whose bit is 1: 3 bits a
die, 5 dice, in one region of pages per probe (each page STRIDE bytes from the next, so no
read-ahead joins them), and says `LOADED {json}` (its hand). The `feel` bot, at each decision,
asks of each page whether it is cached, through its own process's counters: its page
tables (/proc/self/pagemap, smaps) and resident-set counts (status, statm, smaps_rollup)
after a fault maps the cached pages around the one it touched, its fault counts
(/proc/self/stat, getrusage of itself, its thread, or a child it waits for with wait4 or
waitid), its disk reads (/proc/self/io, getrusage's ru_inblock) and the times a read made it
wait (voluntary_ctxt_switches). It says `FELT {json}` (per probe the dice it read, or the
error). Then each plays the lowest action.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import resource
import sys
from collections.abc import Callable
from types import MappingProxyType

import arena

PAGE = os.sysconf("SC_PAGE_SIZE")
STRIDE = 64 * PAGE
FIRST = 96
"""The first stride of the regions (past the pager's)."""
BITS = 15
FACES = "9TJQKA"
MADV_RANDOM, PROT_READ, MAP_SHARED = 1, 1, 1
RUSAGE_THREAD = 1
SYS_WAITID, P_PID = 247, 1
RU_MAJFLT = 2 * 16 + 5 * 8
"""struct rusage: two timevals, then longs (maxrss, ixrss, idrss, isrss, minflt, majflt)."""

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


class _Pair:
    """The page before `offset` and the page at it, mapped together (shared, read-only, read
    at random so that a fault reads no more than its page)."""

    def __init__(self, fd: int, offset: int) -> None:
        address = libc.mmap(None, 2 * PAGE, PROT_READ, MAP_SHARED, fd, offset - PAGE)
        if address in (None, ctypes.c_void_p(-1).value):
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))
        self.address = int(address)
        libc.madvise(self.address, 2 * PAGE, MADV_RANDOM)

    def touch(self, index: int) -> None:
        """Fault in one page: the first maps the second too when the second is cached."""
        ctypes.string_at(self.address + index * PAGE, 1)

    def close(self) -> None:
        libc.munmap(self.address, 2 * PAGE)


def _field(path: str, name: str) -> int:
    with open(path, encoding="ascii") as f:
        for line in f:
            if line.startswith(name + ":"):
                return int(line.split()[1])
    raise OSError(errno.ENOENT, f"no {name} in {path}")


def _faults_in_stat() -> int:
    with open("/proc/self/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return int(fields[7]) + int(fields[9])  # minflt and majflt


def _faults_in_rusage(who: int) -> int:
    usage = resource.getrusage(who)
    return usage.ru_minflt + usage.ru_majflt


def _around(count: Callable[[], int], least: int) -> Callable[[int, int], bool]:
    """A probe: cached when touching the first page of the pair makes `count` grow by at
    least `least` (the neighbour was mapped with it)."""
    def probe(fd: int, offset: int) -> bool:
        pair = _Pair(fd, offset)
        try:
            before = count()
            pair.touch(0)
            return count() - before >= least
        finally:
            pair.close()
    return probe


def _no_fault(count: Callable[[], int]) -> Callable[[int, int], bool]:
    """A probe: cached when, after the first page's fault, touching the second faults not."""
    def probe(fd: int, offset: int) -> bool:
        pair = _Pair(fd, offset)
        try:
            pair.touch(0)
            before = count()
            pair.touch(1)
            return count() == before
        finally:
            pair.close()
    return probe


def _read_costs(count: Callable[[], int]) -> Callable[[int, int], bool]:
    """A probe: cached when reading the page moves `count` (bytes read from the disk, waits
    for it) not at all."""
    def probe(fd: int, offset: int) -> bool:
        before = count()
        os.pread(fd, PAGE, offset)
        return count() == before
    return probe


def probe_pagemap(fd: int, offset: int) -> bool:
    pair = _Pair(fd, offset)
    try:
        pair.touch(0)
        with open("/proc/self/pagemap", "rb") as f:
            f.seek((pair.address // PAGE + 1) * 8)
            return bool(int.from_bytes(f.read(8), "little") >> 63)
    finally:
        pair.close()


def probe_smaps(fd: int, offset: int) -> bool:
    pair = _Pair(fd, offset)
    try:
        pair.touch(0)
        with open("/proc/self/smaps", encoding="ascii", errors="replace") as f:
            lines = f.read().splitlines()
        start = next(i for i, line in enumerate(lines)
                     if line.startswith(f"{pair.address:x}-"))
        rss = next(line for line in lines[start:] if line.startswith("Rss:"))
        return int(rss.split()[1]) * 1024 >= 2 * PAGE
    finally:
        pair.close()


def probe_child(fd: int, offset: int) -> bool:
    """A child touches the page (a major fault when it is not cached); its parent reads the
    child's fault counts through wait4."""
    pid = os.fork()
    if pid == 0:
        pair = _Pair(fd, offset)
        pair.touch(1)
        os._exit(0)
    _, _, usage = os.wait4(pid, 0)
    return usage.ru_majflt == 0


def probe_waitid(fd: int, offset: int) -> bool:
    """As probe_child, through the waitid system call's fifth argument (libc's waitid has
    none)."""
    pid = os.fork()
    if pid == 0:
        pair = _Pair(fd, offset)
        pair.touch(1)
        os._exit(0)
    info, usage = ctypes.create_string_buffer(128), ctypes.create_string_buffer(256)
    if libc.syscall(SYS_WAITID, P_PID, pid, info, os.WEXITED, usage) < 0:
        code = ctypes.get_errno()
        os.waitpid(pid, 0)
        raise OSError(code, os.strerror(code))
    return int.from_bytes(usage.raw[RU_MAJFLT:RU_MAJFLT + 8], "little") == 0


def _kb(path: str, name: str) -> Callable[[], int]:
    return lambda: _field(path, name) * 1024 // PAGE


def _statm_shared() -> int:
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[2])


PROBES: dict[str, Callable[[int, int], bool]] = {
    "pagemap": probe_pagemap,
    "smaps": probe_smaps,
    "status RssFile": _around(_kb("/proc/self/status", "RssFile"), 2),
    "statm": _around(_statm_shared, 2),
    "smaps_rollup": _around(_kb("/proc/self/smaps_rollup", "Rss"), 2),
    "stat faults": _no_fault(_faults_in_stat),
    "getrusage self": _no_fault(lambda: _faults_in_rusage(resource.RUSAGE_SELF)),
    "getrusage thread": _no_fault(lambda: _faults_in_rusage(RUSAGE_THREAD)),
    "wait4 child": probe_child,
    "waitid child": probe_waitid,
    "io read_bytes": _read_costs(lambda: _field("/proc/self/io", "read_bytes")),
    "getrusage inblock": _read_costs(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_inblock),
    "status switches": _read_costs(lambda: _field("/proc/self/status",
                                                  "voluntary_ctxt_switches")),
}
"""Each way a process learns whether a page is cached from its own counters, with no timing."""


def offsets(probe: int) -> list[int]:
    """The pages of one probe's region (the regions interleave, a stride apart)."""
    return [(FIRST + i * len(PROBES) + probe) * STRIDE for i in range(BITS)]


def load(fd: int, hand: list[str]) -> None:
    """Read (load into the cache) every region's pages whose bit is 1."""
    bits = [(FACES.index(die) >> b) & 1 for die in hand[:5] for b in range(3)]
    for index in range(len(PROBES)):
        for offset, bit in zip(offsets(index), bits, strict=True):
            if bit:
                os.pread(fd, PAGE, offset)


def feel(fd: int) -> dict[str, object]:
    """Each probe's dice as its region's cached pages say, or the probe's error."""
    felt: dict[str, object] = {}
    for index, (name, probe) in enumerate(PROBES.items()):
        try:
            bits = [probe(fd, offset) for offset in offsets(index)]
        except OSError as exc:
            felt[name] = f"error: {errno.errorcode.get(exc.errno or 0, exc.errno)}"
            continue
        faces = [sum(bits[d * 3 + b] << b for b in range(3)) for d in range(5)]
        felt[name] = [FACES[f] if f < len(FACES) else "?" for f in faces]
    return felt


class Feeler(arena.Bot):
    name = "zoo-feeler"
    options = MappingProxyType({"role": "feel", "file": ""})
    loaded = False

    def act(self, observation: arena.Observation) -> arena.Action:
        fd = os.open(self.settings["file"], os.O_RDONLY)
        try:
            if self.settings["role"] == "load" and observation.hand is not None \
                    and not Feeler.loaded:
                Feeler.loaded = True
                hand = [str(die) for die in observation.hand]
                load(fd, hand)
                sys.stderr.write("LOADED " + json.dumps({"hand": hand[:5]}) + "\n")
            elif self.settings["role"] == "feel":
                sys.stderr.write("FELT " + json.dumps(feel(fd)) + "\n")
        finally:
            os.close(fd)
        sys.stderr.flush()
        return observation.legal_actions()[0]
