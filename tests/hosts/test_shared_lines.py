"""The flush before a thaw (docs/security.md, "CPU caches"): every line of the pages every
process maps (the kernel's: [vdso], [vvar], and whatever else it maps into each process,
such as 6.13's [vvar_vclock]) is out of the caches after `flush_shared_lines`, so what a
frozen bot touched there tells its table-mate nothing. Each line's reload is timed with
`rdtscp` in a few bytes of machine code, as the attack times it, in a shuffled order (the
prefetcher would fetch lines read in order): a hit takes tens of cycles, a miss hundreds,
whatever the load (a preemption between two reads only adds to one reading)."""

from __future__ import annotations

import ctypes
import io
import platform
import random
import statistics
import subprocess
import sys
from collections.abc import Callable

import pytest

from arena.hosts import shared_lines

_TIME_LOAD = bytes([
    0x0F, 0xAE, 0xF0,        # mfence
    0x0F, 0xAE, 0xE8,        # lfence
    0x0F, 0x01, 0xF9,        # rdtscp
    0x48, 0xC1, 0xE2, 0x20,  # shl rdx, 32
    0x48, 0x09, 0xD0,        # or rax, rdx
    0x49, 0x89, 0xC0,        # mov r8, rax
    0x0F, 0xAE, 0xE8,        # lfence
    0x0F, 0xB6, 0x07,        # movzx eax, byte [rdi]
    0x0F, 0xAE, 0xE8,        # lfence
    0x0F, 0x01, 0xF9,        # rdtscp
    0x48, 0xC1, 0xE2, 0x20,  # shl rdx, 32
    0x48, 0x09, 0xD0,        # or rax, rdx
    0x4C, 0x29, 0xC0,        # sub rax, r8
    0xC3,                    # ret
])
"""cycles(address): the time-stamp counter's ticks one byte's load there takes."""


def _cpu_flags() -> set[str]:
    with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
        for line in info:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def _timer() -> Callable[[int], int]:
    """The load timer, made executable as `shared_lines` makes its flush loop."""
    if platform.machine() != "x86_64" or "rdtscp" not in _cpu_flags():
        pytest.skip("needs x86-64 with rdtscp")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    page = libc.mmap(None, 4096, 3, 0x22, -1, 0)
    assert page not in (None, ctypes.c_void_p(-1).value)
    ctypes.memmove(page, _TIME_LOAD, len(_TIME_LOAD))
    assert libc.mprotect(page, 4096, 5) == 0
    timer: Callable[[int], int] = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)(page)
    return timer


def _kernel_pages() -> dict[str, list[int]]:
    """The readable pages of each mapping the kernel puts in every process (named in
    brackets; not the process's own [heap] and [stack]), by name, found here rather than
    by `shared_lines`; a page the kernel does not back is read by a child, not here (the
    vDSO's code too, which `shared_lines` takes as all backed)."""
    size = 4096
    found: dict[str, list[int]] = {}
    with open("/proc/self/maps", encoding="ascii") as maps:
        for line in maps:
            fields = line.split()
            name = fields[-1]
            if len(fields) < 6 or not name.startswith("[") or name in ("[heap]", "[stack]") \
                    or "r" not in fields[1]:
                continue
            low, high = (int(end, 16) for end in fields[0].split("-"))
            offsets = _read_by_children(name, range(0, high - low, size))
            found.setdefault(name, []).extend(low + offset for offset in offsets)
    return found


_PROBE = """
import ctypes, sys
for line in open("/proc/self/maps"):
    if line.rstrip().endswith(sys.argv[1]):
        ctypes.string_at(int(line.split("-")[0], 16) + int(sys.argv[2]), 1)
"""


def _read_by_children(name: str, offsets: range) -> list[int]:
    """The offsets of a mapping's pages a read does not fault on, each read by a child (a
    SIGBUS ends it), as user code reads them."""
    children = [(offset, subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", _PROBE, name, str(offset)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for offset in offsets]
    return [offset for offset, child in children if child.wait() == 0]


def test_the_pages_flushed_are_those_a_process_reads_without_a_fault() -> None:
    """The kernel's pages the flush covers, found without reading them in the referee
    (each written from to a pipe: an unbacked page is that call's error), are every page of
    the kernel's mappings a child reads without a SIGBUS, and no other."""
    flushed = {start for begin, end in shared_lines._shared_pages()
               for start in range(begin, end, 4096)}
    read = {start for name, starts in _kernel_pages().items() for start in starts
            if not name.startswith(shared_lines._OWN)}  # (a process's own named memory)
    assert read and flushed == read


VSYSCALL_EMULATED = ("ffffffffff600000-ffffffffff601000 r-xp 00000000 00:00 0"
                     "                  [vsyscall]\n")
"""The vsyscall page as /proc/self/maps lists it where the kernel emulates it
(vsyscall=emulate, CONFIG_LEGACY_VSYSCALL_EMULATE): readable by every process, one physical
page for all (with xonly, the default, it is `--xp`, which nothing reads)."""


def test_the_emulated_vsyscall_page_is_flushed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack (28b2358): where the kernel emulates the vsyscall page, every process may read
    it, so two bots could pass a hand through its lines (one touches, the frozen other times
    its reload). A child's read found it backed; the kernel's copy from user memory (the
    write to a pipe) refuses it as it lies above user space (EFAULT), which dropped it from
    the flush. It is flushed, found readable as it is listed."""
    shared_lines._shared_pages.cache_clear()
    real_open = open

    def maps(path: str, *args: object, **kwargs: object) -> object:
        if path == "/proc/self/maps":
            return io.StringIO(VSYSCALL_EMULATED)
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(shared_lines, "open", maps, raising=False)
    try:
        assert shared_lines._shared_pages() == ((0xFFFFFFFFFF600000, 0xFFFFFFFFFF601000),)
    finally:
        monkeypatch.undo()
        shared_lines._shared_pages.cache_clear()


def _reloads(timer: Callable[[int], int], lines: list[int], flush: bool) -> float:
    """The median ticks of reloading each line once every line was touched (and flushed)."""
    taken = []
    for _ in range(20):
        for address in lines:
            timer(address)  # touched, as a bot's clock_gettime or its probe would
        if flush:
            shared_lines.flush_shared_lines()
        taken += [timer(address) for address in random.sample(lines, len(lines))]
    return statistics.median(taken)


def test_every_line_every_process_maps_is_uncached_after_the_flush() -> None:
    timer = _timer()
    if shared_lines._flusher() is None:
        pytest.skip("no executable page for the flush here")
    pages = _kernel_pages()
    assert "[vdso]" in pages, pages
    for name, starts in pages.items():
        lines = [start + offset for start in starts for offset in range(0, 4096, 64)]
        seen = []
        for _ in range(5):  # every process on the machine runs the vDSO's code: a busy one
            # brings flushed lines back before they are timed (so a try can only understate
            # the flush, never overstate it); a flush that does not work fails every try
            hits, after = _reloads(timer, lines, flush=False), _reloads(timer, lines, flush=True)
            seen.append((hits, after))
            if after > 2 * hits:
                break
        else:
            raise AssertionError((name, seen))
