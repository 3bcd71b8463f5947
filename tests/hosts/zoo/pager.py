"""Zoo: two bots at one table that pass the sender's dice through the kernel's page cache
(issue 38, item 1). Both read one large file every sandbox shares (option `file`, under /usr).

Each channel is a way to evict a shared page paired with a way to tell whether one is resident
without timing anything, on a region of 15 pages of its own, each at the start of a block of
STRIDE bytes so that no read-ahead joins them: 3 bits a die, 5 dice. The `send` bot, at its
first decision with dice, evicts every region and reads back the pages whose bit is 1, says
what it did on stderr as `TOLD {json}` (its hand, and per channel "ok" or the error), and
tries the rest of the class (`CALLS {json}`: each call's errno, 0 when it worked). The `hear`
bot, at each decision, probes each region and reports `HEARD {json}` (per channel the dice it
read, or the error). Then each plays the lowest legal action.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import sys
from collections.abc import Callable
from types import MappingProxyType

import arena

PAGE = os.sysconf("SC_PAGE_SIZE")
STRIDE = 64 * PAGE
BITS = 15
FACES = "9TJQKA"
MADV_RANDOM, MADV_COLD, MADV_PAGEOUT = 1, 20, 21
SYS_MADVISE, SYS_CACHESTAT, SYS_PROCESS_MADVISE, SYS_PIDFD_OPEN = 28, 451, 440, 434
HIGH = 1 << 32
PROT_READ, MAP_SHARED = 1, 1

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
libc.syscall.restype = ctypes.c_long


class _Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


class _Range(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]


class _Cachestat(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in
                ("cache", "dirty", "writeback", "evicted", "recently_evicted")]


def _check(result: int) -> int:
    if result < 0 or result == ctypes.c_void_p(-1).value:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


def _offsets(region: int) -> list[int]:
    return [(region * 16 + i + 1) * STRIDE for i in range(BITS)]


class _Mapped:
    """One page of the file mapped at `address` (read-only, shared), read around not."""

    def __init__(self, fd: int, offset: int) -> None:
        self.address = _check(libc.mmap(None, PAGE, PROT_READ, MAP_SHARED, fd, offset))
        libc.madvise(self.address, PAGE, MADV_RANDOM)

    def touch(self) -> None:
        ctypes.string_at(self.address, 1)

    def close(self) -> None:
        libc.munmap(self.address, PAGE)


def _madvise(fd: int, offset: int, advice: int) -> None:
    """madvise through the raw system call: advice may carry bits above an int's, which the
    kernel drops (a filter that compared all 64 bits would let it through)."""
    page = _Mapped(fd, offset)
    try:
        page.touch()
        _check(libc.syscall(SYS_MADVISE, ctypes.c_void_p(page.address), ctypes.c_size_t(PAGE),
                            ctypes.c_long(advice)))
    finally:
        page.close()


def _process_madvise(fd: int, offset: int) -> None:
    pidfd = _check(libc.syscall(SYS_PIDFD_OPEN, os.getpid(), 0))
    page = _Mapped(fd, offset)
    try:
        page.touch()
        vec = _Iovec(page.address, PAGE)
        _check(libc.syscall(SYS_PROCESS_MADVISE, pidfd, ctypes.byref(vec), 1, MADV_PAGEOUT, 0))
    finally:
        page.close()
        os.close(pidfd)


def evict_fadvise(fd: int, offset: int) -> None:
    os.posix_fadvise(fd, offset, STRIDE, os.POSIX_FADV_DONTNEED)


def evict_pageout(fd: int, offset: int) -> None:
    _madvise(fd, offset, MADV_PAGEOUT)


def probe_nowait(fd: int, offset: int) -> bool:
    try:
        os.preadv(fd, [bytearray(PAGE)], offset, os.RWF_NOWAIT)
    except BlockingIOError:
        return False
    return True


def probe_mincore(fd: int, offset: int) -> bool:
    page = _Mapped(fd, offset)
    try:
        vec = ctypes.create_string_buffer(1)
        _check(libc.mincore(page.address, PAGE, vec))
        return bool(vec.raw[0] & 1)
    finally:
        page.close()


def probe_cachestat(fd: int, offset: int) -> bool:
    span, stat = _Range(offset, PAGE), _Cachestat()
    _check(libc.syscall(SYS_CACHESTAT, fd, ctypes.byref(span), ctypes.byref(stat), 0))
    return stat.cache > 0


Evict = Callable[[int, int], None]
Probe = Callable[[int, int], bool]
CHANNELS: dict[str, tuple[Evict, Probe]] = {
    "fadvise/nowait": (evict_fadvise, probe_nowait),
    "pageout/nowait": (evict_pageout, probe_nowait),
    "process_madvise/nowait": (_process_madvise, probe_nowait),
    "fadvise/mincore": (evict_fadvise, probe_mincore),
    "fadvise/cachestat": (evict_fadvise, probe_cachestat),
}
"""Each way to evict with the probe that works best, each way to probe after the eviction
that works best (the kernel already answers mincore and cachestat falsely or not at all for a
file the caller cannot write, but the filter does not count on it)."""


def send(fd: int, hand: list[str]) -> dict[str, str]:
    """Evict every channel's region, then read back the pages whose bit is 1 (in that order:
    a read may bring in its neighbours, never a page of another region)."""
    bits = [(FACES.index(die) >> b) & 1 for die in hand[:5] for b in range(3)]
    told = {}
    for region, (name, (evict, _)) in enumerate(CHANNELS.items()):
        try:
            for _ in range(2):  # a page just read may not be on the kernel's lists yet
                for offset in _offsets(region):
                    evict(fd, offset)
            told[name] = "ok"
        except OSError as exc:
            told[name] = f"error: {errno.errorcode.get(exc.errno or 0, exc.errno)}"
    for region, name in enumerate(CHANNELS):
        for offset, bit in zip(_offsets(region), bits, strict=False):
            if bit and told[name] == "ok":
                os.pread(fd, PAGE, offset)
    return told


def hear(fd: int) -> dict[str, object]:
    """Each channel's dice as its region's resident pages say, or the probe's error."""
    heard: dict[str, object] = {}
    for region, (name, (_, probe)) in enumerate(CHANNELS.items()):
        try:
            bits = [probe(fd, offset) for offset in _offsets(region)]
            faces = [sum(bits[d * 3 + b] << b for b in range(3)) for d in range(5)]
            heard[name] = [FACES[f] if f < len(FACES) else "?" for f in faces]
        except OSError as exc:
            heard[name] = f"error: {errno.errorcode.get(exc.errno or 0, exc.errno)}"
    return heard


def _errno_of(call: Callable[[], object]) -> int:
    try:
        call()
    except OSError as exc:
        return exc.errno or -1
    return 0


def calls(fd: int) -> dict[str, int]:
    """The rest of the class: each call's errno (0: it worked)."""
    scratch = os.open("/tmp", os.O_TMPFILE | os.O_RDWR, 0o600)
    os.write(scratch, b"x" * PAGE)
    far = _offsets(len(CHANNELS))[0]  # a region of its own, inside the file
    try:
        return {
            "fadvise_willneed": _errno_of(lambda: os.posix_fadvise(
                fd, far, PAGE, os.POSIX_FADV_WILLNEED)),
            "readahead": _errno_of(lambda: _check(libc.readahead(fd, ctypes.c_long(far), PAGE))),
            "madvise_cold": _errno_of(lambda: _madvise(fd, far, MADV_COLD)),
            "madvise_pageout_high_bits": _errno_of(lambda: _madvise(fd, far, HIGH | MADV_PAGEOUT)),
            "sync_file_range": _errno_of(lambda: _check(libc.sync_file_range(
                scratch, ctypes.c_long(0), ctypes.c_long(PAGE), 2))),
            "pwritev2_nowait": _errno_of(lambda: os.pwritev(
                scratch, [b"y" * PAGE], 0, os.RWF_NOWAIT)),
            "preadv2_plain": _errno_of(lambda: os.preadv(fd, [bytearray(PAGE)], far, 0)),
            "remap_file_pages": _errno_of(lambda: _check(libc.remap_file_pages(
                None, 0, 0, 0, 0))),
        }
    finally:
        os.close(scratch)


class Pager(arena.Bot):
    name = "zoo-pager"
    options = MappingProxyType({"role": "hear", "file": ""})
    told = False

    def act(self, observation: arena.Observation) -> arena.Action:
        role = self.settings["role"]
        fd = os.open(self.settings["file"], os.O_RDONLY)
        try:
            if role == "send" and observation.hand is not None and not Pager.told:
                Pager.told = True
                hand = [str(die) for die in observation.hand]
                report = {"hand": hand[:5], **send(fd, hand)}
                sys.stderr.write("TOLD " + json.dumps(report) + "\n")
                sys.stderr.write("CALLS " + json.dumps(calls(fd)) + "\n")
            elif role == "hear":
                sys.stderr.write("HEARD " + json.dumps(hear(fd)) + "\n")
        finally:
            os.close(fd)
        sys.stderr.flush()
        return observation.legal_actions()[0]
