"""The sending half of the channel benchmark (`benchmarks/channels.py`): a bot that, at each of
its decisions, pushes bits of its own hand (whitened by its decision count, so each bit is a
fair coin) into one piece of kernel state another sandboxed bot can reach, then plays the
lowest legal action. Self-contained: the sandbox shows a bot only its own file. Option
`channel` (one of CHANNELS), `start` (where on the shared files this run begins). Each
decision writes `SENT <monotonic time> <bits>` to stderr for the runner.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import socket
import sys
import threading
import time
import zlib
from types import MappingProxyType
from typing import Any, ClassVar

import arena

WIDTH = {"cpu": 16, "memory": 1, "pagecache": 16, "flock": 16, "posixlock": 16,
         "inotify": 16, "fanotify": 16, "inode": 8, "pidfs": 8, "cookie": 8,
         "sysv": 16, "keyring": 16}
"""Bits each channel tries to carry per decision."""
SLOT = 0.02
"""The CPU channel's slot (seconds of the shared monotonic clock per bit)."""
SPACING = 256 * 1024
"""Bytes between two pages of the page-cache channel (beyond the kernel's readahead)."""
LIBC = ctypes.CDLL(None, use_errno=True)
KEY = 0x41524E41
"""The SysV IPC key both halves use."""


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


class Sender(arena.Bot):
    """Pushes its hand's bits into the chosen channel at each decision."""

    name = "channel-sender"
    options = MappingProxyType({"channel": "flock", "start": 0})
    count = 0
    kept: ClassVar[dict[str, Any]] = {}

    def act(self, observation: arena.Observation) -> arena.Action:
        channel = str(self.settings["channel"])
        Sender.count += 1
        if observation.hand is not None:
            word = zlib.crc32(f"{','.join(observation.hand)}#{Sender.count}".encode())
            bits = [(word >> i) & 1 for i in range(WIDTH[channel])]
            globals()[f"send_{channel}"](bits, self.kept, int(self.settings["start"]))
            sys.stderr.write(f"SENT {time.monotonic():.6f} {''.join(map(str, bits))}\n")
            sys.stderr.flush()
        return observation.legal_actions()[0]


def _on_cpu_zero(kept: dict[str, Any]) -> None:
    if "pinned" not in kept:
        os.sched_setaffinity(0, {0})
        kept["pinned"] = True


def _spinner(kept: dict[str, Any]) -> None:
    """Forever: spin through the slots whose bit is 1, sleep through the others."""
    os.sched_setaffinity(0, {0})
    while True:
        now = time.monotonic()
        slot = int(now / SLOT)
        end = (slot + 1) * SLOT
        bits = kept["bits"]
        if bits[slot % len(bits)]:
            while time.monotonic() < end:
                pass
        else:
            time.sleep(max(0.0, end - time.monotonic()))


def send_cpu(bits: list[int], kept: dict[str, Any], start: int) -> None:
    """Busy CPU 0 in the slots of the shared clock whose bit is 1."""
    kept["bits"] = bits
    if "thread" not in kept:
        kept["thread"] = threading.Thread(target=_spinner, args=(kept,), daemon=True)
        kept["thread"].start()


def send_memory(bits: list[int], kept: dict[str, Any], start: int) -> None:
    """Hold 768 MiB of touched memory for a 1, none for a 0."""
    kept.pop("block", None)
    if bits[0]:
        kept["block"] = bytearray(768 * 1024 * 1024)
        for i in range(0, len(kept["block"]), 4096):
            kept["block"][i] = 1


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


def send_pagecache(bits: list[int], kept: dict[str, Any], start: int) -> None:
    """Warm the next group whose marker page is cold: its marker, then the pages whose bit is
    1 (a group is a marker page and one page per bit; no call that evicts or asks is used)."""
    if "pages" not in kept:
        kept["pages"], kept["group"] = pages(start), 0
    slots, width = kept["pages"], len(bits) + 1
    while not _cold(*slots[kept["group"] * width]):  # read by the receiver: used up
        kept["group"] += 1
    base = kept["group"] * width
    for i, bit in enumerate(bits):
        if bit:
            _cold(*slots[base + 1 + i])
    kept["group"] += 1


def _descriptors(kept: dict[str, Any], count: int) -> list[int]:
    if "fds" not in kept:
        kept["fds"] = [os.open(p, os.O_RDONLY) for p in shared_files(count)]
    fds: list[int] = kept["fds"]
    return fds


def send_flock(bits: list[int], kept: dict[str, Any], start: int) -> None:
    """Hold a shared flock on each shared file whose bit is 1."""
    for fd, bit in zip(_descriptors(kept, len(bits)), bits, strict=True):
        with contextlib.suppress(OSError):
            fcntl.flock(fd, (fcntl.LOCK_SH | fcntl.LOCK_NB) if bit else fcntl.LOCK_UN)


def send_posixlock(bits: list[int], kept: dict[str, Any], start: int) -> None:
    """Hold a POSIX read lock (fcntl F_SETLK) on each shared file whose bit is 1."""
    for fd, bit in zip(_descriptors(kept, len(bits)), bits, strict=True):
        with contextlib.suppress(OSError):
            fcntl.lockf(fd, (fcntl.LOCK_SH | fcntl.LOCK_NB) if bit else fcntl.LOCK_UN)


def send_inotify(bits: list[int], kept: dict[str, Any], start: int) -> None:
    """Open and read each shared file whose bit is 1 (the receiver watches them)."""
    for path, bit in zip(shared_files(len(bits)), bits, strict=True):
        if bit:
            with open(path, "rb") as f:
                f.read(1)


send_fanotify = send_inotify


def _counter_to(bits: list[int], read: Any) -> None:
    """Take fresh numbers from a kernel counter until its low bits are `bits`."""
    want = sum(b << i for i, b in enumerate(bits))
    mask = (1 << len(bits)) - 1
    for _ in range(64 * (mask + 1)):
        number = read()
        if number == 0 or number & mask == want:  # 0: the counter cannot be read here
            return


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


def send_inode(bits: list[int], kept: dict[str, Any], start: int) -> None:
    """Set the low bits of CPU 0's inode counter (pipes take numbers from get_next_ino)."""
    _on_cpu_zero(kept)
    _counter_to(bits, new_inode)


def thread_inode() -> int:
    """The pidfs inode number of a new thread: the machine's count of tasks made."""
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
    return number[0]


def send_pidfs(bits: list[int], kept: dict[str, Any], start: int) -> None:
    """Set the low bits of the machine's task counter (pidfs numbers every new task)."""
    _counter_to(bits, thread_inode)


def socket_cookie() -> int:
    """The cookie of a new socket: CPU 0's share of the machine's socket-cookie counter."""
    try:  # a socket made mid-game is refused too (arena.hosts.gate)
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            return int.from_bytes(s.getsockopt(socket.SOL_SOCKET, 57, 8), "little")  # SO_COOKIE
    except OSError:
        return 0


def send_cookie(bits: list[int], kept: dict[str, Any], start: int) -> None:
    """Set the low bits of CPU 0's socket-cookie counter."""
    _on_cpu_zero(kept)
    _counter_to(bits, socket_cookie)


def send_sysv(bits: list[int], kept: dict[str, Any], start: int) -> None:
    """Write the bits into a SysV shared memory segment of a known key."""
    shmid = LIBC.shmget(KEY, 4096, 0o1666)
    if shmid < 0:
        return
    LIBC.shmat.restype = ctypes.c_void_p
    address = LIBC.shmat(shmid, None, 0)
    if address not in (None, ctypes.c_void_p(-1).value):
        ctypes.memmove(address, bytes(bits), len(bits))


def send_keyring(bits: list[int], kept: dict[str, Any], start: int) -> None:
    """Put the bits in a key on the user's keyring (add_key)."""
    payload = bytes(bits)
    LIBC.syscall(248, b"user", b"arena-channel", payload, len(payload), -4)  # add_key, @u
