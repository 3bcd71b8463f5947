"""The cache lines every process shares, flushed before a frozen bot runs again.

Each seat of a table reads its files from an image of its own (`arena.hosts.view`), so no two
table-mates map one physical page of a file. One set of pages is mapped by every process of
the machine whatever arena does: the kernel's vDSO ([vdso], its code, and [vvar], its data;
since Linux 6.13 [vvar_vclock] too, the paravirtual clock's page, which a bot can read
whether or not its clock uses it): every mapping the kernel names in brackets, but a
process's own [heap], [stack] and named anonymous memory.
A bot that touches lines of it (or flushes them) while its table-mate is frozen leaves a
pattern in the CPU's caches the other times at its next decision (docs/security.md, "CPU
caches"). So before a bot is thawed, the referee flushes every line of those pages from every
cache of the machine (`clflush` invalidates a line in every core's caches): whatever a frozen
bot did to them, the next finds them all uncached.

`clflush` is one x86-64 instruction Python cannot name: a 13-byte loop (flush, step a line,
until the end; then return) is written into a page of this process's own, made executable,
and called through ctypes, once for each run of adjacent pages. Where the CPU has it,
`clflushopt` (the same invalidation, not ordered with the others, so the lines are flushed
in parallel: 4 pages in about 2 µs rather than 10) and an `sfence` after the loop, which
orders the flushes before any later store (the write that thaws the next bot). Elsewhere
(another architecture, or a kernel that refuses an executable page) nothing is flushed, and
docs/security.md says what remains.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import platform
from collections.abc import Callable

LINE = 64
_FLUSH_RANGE = bytes([
    0x0F, 0xAE, 0x3F,        # clflush [rdi]
    0x48, 0x83, 0xC7, LINE,  # add rdi, 64
    0x48, 0x39, 0xF7,        # cmp rdi, rsi
    0x72, 0xF4,              # jb (back to clflush)
    0xC3,                    # ret
])
"""flush(start, end): every line from start (line-aligned) up to end."""
_FLUSH_RANGE_OPT = bytes([
    0x66, 0x0F, 0xAE, 0x3F,  # clflushopt [rdi]
    0x48, 0x83, 0xC7, LINE,  # add rdi, 64
    0x48, 0x39, 0xF7,        # cmp rdi, rsi
    0x72, 0xF3,              # jb (back to clflushopt)
    0x0F, 0xAE, 0xF8,        # sfence
    0xC3,                    # ret
])
"""The same with clflushopt, fenced once at the end."""
_OWN = ("[heap]", "[stack]", "[anon:", "[stack:")
"""Bracketed mappings that are a process's own memory, not the kernel's shared pages."""
KERNEL_HALF = 1 << 63
"""Where the kernel's half of the address space begins (x86-64): above user space."""
_PROT_READ, _PROT_WRITE, _PROT_EXEC = 1, 2, 4
_MAP_PRIVATE_ANONYMOUS = 0x22


def flush_shared_lines() -> None:
    """Flush every cache line of the pages every process maps (no-op where it cannot)."""
    flush = _flusher()
    if flush is None:
        return
    for start, end in _shared_pages():
        flush(start, end)


@functools.cache
def _flusher() -> Callable[[int, int], None] | None:
    """The flush loop, made executable once a process; None off x86-64 or if refused."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    size = os.sysconf("SC_PAGE_SIZE")
    page = libc.mmap(None, size, _PROT_READ | _PROT_WRITE, _MAP_PRIVATE_ANONYMOUS, -1, 0)
    if page in (None, ctypes.c_void_p(-1).value):
        return None
    code = _FLUSH_RANGE_OPT if "clflushopt" in _cpu_flags() else _FLUSH_RANGE
    ctypes.memmove(page, code, len(code))
    if libc.mprotect(page, size, _PROT_READ | _PROT_EXEC) != 0:
        return None
    kind = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
    loop: Callable[[int, int], None] = kind(page)
    return loop


def _cpu_flags() -> set[str]:
    """The CPU's feature flags, as /proc/cpuinfo names them (none if it cannot be read)."""
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="ascii",
                                            errors="replace") as info:
        for line in info:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


@functools.cache
def _shared_pages() -> tuple[tuple[int, int], ...]:
    """(start, end) of each run of adjacent backed pages the kernel maps into every process
    ([vdso], [vvar], [vvar_vclock], ...): it leaves some data pages without a page (a read of
    one here is SIGBUS), so which are is asked of the kernel (`_readable`); the vDSO's code
    is all backed, and so is a mapping in the kernel's half of the address space, which the
    kernel's copy from user memory refuses (EFAULT) however it is backed: the vsyscall page,
    listed readable only where the kernel emulates it (then every process reads it)."""
    size = os.sysconf("SC_PAGE_SIZE")
    found: list[tuple[int, int]] = []
    with contextlib.suppress(OSError), open("/proc/self/maps", encoding="ascii") as maps:
        for line in maps:
            fields = line.split()
            name = fields[-1]
            if len(fields) < 6 or not name.startswith("[") or name.startswith(_OWN) or (
                    "r" not in fields[1]):
                continue
            low, high = (int(end, 16) for end in fields[0].split("-"))
            pages = range(0, high - low, size)
            whole = name == "[vdso]" or low >= KERNEL_HALF
            kept = pages if whole else _readable(low, pages)
            for start in (low + offset for offset in kept):
                if found and found[-1][1] == start:
                    found[-1] = (found[-1][0], start + size)
                else:
                    found.append((start, start + size))
    return tuple(found)


def _readable(low: int, offsets: range) -> list[int]:
    """The offsets of a mapping's pages (the mapping at `low`) a read does not fault on, never
    read by this process: each page's first byte is written to a pipe, which the kernel reads
    on its side, where a page it does not back is the call's EFAULT, not a SIGBUS here (a
    child process read each page before: a Python start a page, 0.1 s of CPU a referee)."""
    libc = ctypes.CDLL(None, use_errno=True)
    write = libc.write
    write.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
    write.restype = ctypes.c_ssize_t
    took, wrote = os.pipe()
    try:
        found = []
        for offset in offsets:
            if write(wrote, ctypes.c_void_p(low + offset), 1) == 1:
                os.read(took, 1)
                found.append(offset)
        return found
    finally:
        os.close(took)
        os.close(wrote)
