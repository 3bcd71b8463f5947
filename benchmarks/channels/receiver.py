"""The receiving half of the channel benchmark (`benchmarks/channels.py`): a bot that, at each
of its decisions, reads what the sender left in one piece of kernel state and writes
`HEARD <monotonic time> <bits>` (or `-` when no message was there) to stderr for the runner,
then plays the lowest legal action. Self-contained (the sandbox shows a bot only its own
file), so the shared parts of `sender.py` are repeated here. Options as the sender's.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import socket
import struct
import sys
import threading
import time
from types import MappingProxyType
from typing import Any, ClassVar

import arena

WIDTH = {"cpu": 16, "memory": 1, "pagecache": 16, "flock": 16, "posixlock": 16,
         "inotify": 16, "fanotify": 16, "inode": 8, "pidfs": 8, "cookie": 8,
         "sysv": 16, "keyring": 16}
SLOT = 0.02
SPACING = 256 * 1024
LIBC = ctypes.CDLL(None, use_errno=True)
KEY = 0x41524E41


def shared_files(count: int) -> list[str]:
    """The first `count` readable files of /usr/bin (distinct), as both halves see them."""
    found, inodes = [], set()
    for path in (f"/usr/bin/{n}" for n in sorted(os.listdir("/usr/bin"))):
        info = os.stat(path)
        if os.path.isfile(path) and os.access(path, os.R_OK) and info.st_size > 0 \
                and (info.st_dev, info.st_ino) not in inodes:  # a hard link is one file
            found.append(path)
            inodes.add((info.st_dev, info.st_ino))
    return found[:count]


def big_files() -> list[str]:
    """Large shared files whose pages carry the page-cache channel, as both halves see them."""
    found = []
    for top in ("/usr/lib/jvm", "/usr/lib/gcc", "/usr/lib/llvm-14", "/usr/lib/llvm-15",
                "/usr/lib/x86_64-linux-gnu", "/usr/lib/chromium", "/usr/share"):
        for folder, _, names in sorted(os.walk(top)):
            for name in sorted(names):
                path = os.path.join(folder, name)
                if not os.path.islink(path) and os.path.isfile(path) \
                        and os.path.getsize(path) >= 16 * 1024 * 1024:
                    found.append(path)
    return found


def pages(start: int) -> list[tuple[str, int]]:
    """Every page slot of the big files from `start` on: (file, offset)."""
    slots = [(path, offset) for path in big_files()
             for offset in range(0, os.path.getsize(path) - 4096, SPACING)]
    return slots[start:]


class Receiver(arena.Bot):
    """Reads the chosen channel at each decision."""

    name = "channel-receiver"
    options = MappingProxyType({"channel": "flock", "start": 0})
    kept: ClassVar[dict[str, Any]] = {}

    def act(self, observation: arena.Observation) -> arena.Action:
        channel = str(self.settings["channel"])
        bits = globals()[f"hear_{channel}"](WIDTH[channel], self.kept, int(self.settings["start"]))
        said = "-" if bits is None else "".join(map(str, bits))
        sys.stderr.write(f"HEARD {time.monotonic():.6f} {said}\n")
        sys.stderr.flush()
        return observation.legal_actions()[0]


def _on_cpu_zero(kept: dict[str, Any]) -> None:
    if "pinned" not in kept:
        os.sched_setaffinity(0, {0})
        kept["pinned"] = True


def hear_cpu(width: int, kept: dict[str, Any], start: int) -> list[int]:
    """Time its own share of CPU 0 through `width` slots of the shared clock: a 1 is a slot
    where the sender's spinning took half of it."""
    _on_cpu_zero(kept)
    slot = int(time.monotonic() / SLOT) + 1
    while time.monotonic() < slot * SLOT:
        pass
    share = [0.0] * width
    for s in range(slot, slot + width):
        end, cpu = (s + 1) * SLOT, time.thread_time()
        while time.monotonic() < end:
            pass
        share[s % width] = (time.thread_time() - cpu) / SLOT
    low, high = min(share), max(share)
    cut = (low + high) / 2 if high - low > 0.2 else 0.75
    return [int(x < cut) for x in share]


def hear_memory(width: int, kept: dict[str, Any], start: int) -> list[int]:
    """Time allocating and touching 64 MiB: slower when the sender holds memory."""
    began = time.perf_counter()
    block = bytearray(64 * 1024 * 1024)
    for i in range(0, len(block), 4096):
        block[i] = 1
    took = time.perf_counter() - began
    times = kept.setdefault("times", [])
    times.append(took)
    middle = sorted(times)[len(times) // 2]
    return [int(took > middle)]


def _cold(path: str, offset: int) -> bool:
    """Read one byte of a page; whether it came from the disk (slow), not the page cache."""
    fd = os.open(path, os.O_RDONLY)
    try:
        began = time.perf_counter()
        os.pread(fd, 1, offset)
        first = time.perf_counter() - began
        began = time.perf_counter()
        os.pread(fd, 1, offset)
        again = time.perf_counter() - began
    finally:
        os.close(fd)
    return first > 4 * again + 20e-6


def hear_pagecache(width: int, kept: dict[str, Any], start: int) -> list[int] | None:
    """The newest message: the last group with a warm marker page before the first cold one
    (which reading warms, so the sender skips it as it skips every warm marker); in it, a warm
    page is a 1, a cold one a 0. No message if the first marker was cold."""
    if "pages" not in kept:
        kept["pages"], kept["group"] = pages(start), 0
    slots, newest = kept["pages"], None
    while not _cold(*slots[kept["group"] * (width + 1)]):
        newest, kept["group"] = kept["group"], kept["group"] + 1
    kept["group"] += 1
    if newest is None:
        return None
    base = newest * (width + 1)
    return [int(not _cold(*slots[base + 1 + i])) for i in range(width)]


def _descriptors(kept: dict[str, Any], count: int) -> list[int]:
    if "fds" not in kept:
        kept["fds"] = [os.open(p, os.O_RDONLY) for p in shared_files(count)]
    fds: list[int] = kept["fds"]
    return fds


def _flocked(fd: int) -> int:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 1
    except OSError:
        return 0
    fcntl.flock(fd, fcntl.LOCK_UN)
    return 0


def hear_flock(width: int, kept: dict[str, Any], start: int) -> list[int]:
    """A shared file it cannot flock exclusively is a 1."""
    return [_flocked(fd) for fd in _descriptors(kept, width)]


def _posix_locked(fd: int) -> int:
    query = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
    try:
        answer = fcntl.fcntl(fd, fcntl.F_GETLK, query)
    except OSError:
        return 0
    return int(struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK)


def hear_posixlock(width: int, kept: dict[str, Any], start: int) -> list[int]:
    """A shared file on which F_GETLK finds another's lock is a 1."""
    return [_posix_locked(fd) for fd in _descriptors(kept, width)]


def _drained(fd: int) -> int:
    got = 0
    while True:
        try:
            got |= bool(os.read(fd, 4096))
        except OSError:
            return got


def hear_inotify(width: int, kept: dict[str, Any], start: int) -> list[int]:
    """Watch each shared file (one inotify instance each); one that was opened is a 1."""
    if "watches" not in kept:
        kept["watches"] = []
        for path in shared_files(width):
            fd = LIBC.inotify_init1(os.O_NONBLOCK)
            if fd >= 0:
                LIBC.inotify_add_watch(fd, path.encode(), 0x20 | 0x1)  # IN_OPEN | IN_ACCESS
            kept["watches"].append(fd)
    return [_drained(fd) if fd >= 0 else 0 for fd in kept["watches"]]


def hear_fanotify(width: int, kept: dict[str, Any], start: int) -> list[int]:
    """Mark each shared file (one fanotify group each, unprivileged); one opened is a 1."""
    if "marks" not in kept:
        kept["marks"] = []
        LIBC.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64,
                                       ctypes.c_int, ctypes.c_char_p]
        for path in shared_files(width):
            fd = LIBC.fanotify_init(0x200 | 0x2, os.O_RDONLY)  # FAN_REPORT_FID | FAN_NONBLOCK
            if fd >= 0:
                LIBC.fanotify_mark(fd, 1, 0x20 | 0x1, -100, path.encode())  # FAN_OPEN | ACCESS
            kept["marks"].append(fd)
    return [_drained(fd) if fd >= 0 else 0 for fd in kept["marks"]]


def _low_bits(number: int, width: int) -> list[int]:
    value = (number - 1) & ((1 << width) - 1)
    return [(value >> i) & 1 for i in range(width)]


def _pipe_number() -> int:
    r, w = os.pipe()
    number = os.fstat(r).st_ino
    os.close(r)
    os.close(w)
    return number


def _socket_number() -> int:
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        return os.fstat(s.fileno()).st_ino


def _memfd_number() -> int:
    fd = os.memfd_create("channel")
    number = os.fstat(fd).st_ino
    os.close(fd)
    return number


def new_inode() -> int:
    """The inode number of a new pipe (or, where pipes are refused, of a new socket or memfd,
    whose counters work alike), or 0 where every one is refused."""
    for make in (_pipe_number, _socket_number, _memfd_number):
        try:
            return make()
        except OSError:
            continue
    return 0


def hear_inode(width: int, kept: dict[str, Any], start: int) -> list[int]:
    """The low bits of CPU 0's inode counter, one less than a new pipe's inode number."""
    _on_cpu_zero(kept)
    return _low_bits(new_inode(), width)


def hear_pidfs(width: int, kept: dict[str, Any], start: int) -> list[int]:
    """The low bits of the machine's task counter, from a new thread's pidfs inode number."""
    ready, done, number = threading.Event(), threading.Event(), [0]

    def live() -> None:
        ready.set()
        done.wait()

    thread = threading.Thread(target=live)
    thread.start()
    ready.wait()
    try:
        fd = os.pidfd_open(thread.native_id or 0, os.O_EXCL)  # PIDFD_THREAD
        number[0] = os.fstat(fd).st_ino
        os.close(fd)
    except OSError:
        pass
    done.set()
    thread.join()
    return _low_bits(number[0], width)


def hear_cookie(width: int, kept: dict[str, Any], start: int) -> list[int]:
    """The low bits of CPU 0's socket-cookie counter, from a new socket's cookie."""
    _on_cpu_zero(kept)
    try:  # a socket made mid-game is refused too (arena.hosts.gate)
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            number = int.from_bytes(s.getsockopt(socket.SOL_SOCKET, 57, 8), "little")
    except OSError:
        number = 0
    return _low_bits(number, width)


def hear_sysv(width: int, kept: dict[str, Any], start: int) -> list[int]:
    """The bits in the SysV shared memory segment of the known key, if it can find one."""
    shmid = LIBC.shmget(KEY, 0, 0)
    if shmid < 0:
        return [0] * width
    LIBC.shmat.restype = ctypes.c_void_p
    address = LIBC.shmat(shmid, None, 0o10000)  # SHM_RDONLY
    if address in (None, ctypes.c_void_p(-1).value):
        return [0] * width
    return list(ctypes.string_at(address, width))


def hear_keyring(width: int, kept: dict[str, Any], start: int) -> list[int]:
    """The bits of the key on the user's keyring, if request_key finds it."""
    key = LIBC.syscall(249, b"user", b"arena-channel", None, 0)  # request_key
    if key < 0:
        return [0] * width
    buffer = ctypes.create_string_buffer(width)
    LIBC.syscall(250, 11, key, buffer, width)  # KEYCTL_READ
    return list(buffer.raw)
