"""The start gate of a sandboxed bot: it may make pipes, sockets and memfds while it starts, and
none once it has been sent a game.

Each of those objects takes its inode number from a counter the whole machine shares (the
kernel's get_next_ino, in per-CPU batches of 1024; memfds from its internal shm mount's), and
the number is the object's (`fstat`): two bots pinned to one CPU passed 8 bits a decision
exactly through it, the sender making pipes until the low bits were its message (issue 38).
The number cannot be hidden, but a message needs a sender that knows something of a game, and
a bot knows nothing of one before its first `start`: what its runtime makes at start-up (node's
libuv, a pool or helper started at import) carries nothing. So the calls that make such an
object (GATED) pass until the referee sends the process its first game, and answer EPERM from
then on, in every process of the bot's tree, for every game that follows (a process kept for
many games keeps the gate shut).

How: the launcher loads a second seccomp filter (built here, sent as an fd like bubblewrap's)
whose action for GATED is SECCOMP_RET_USER_NOTIF, and hands the filter's listener to the
referee over a socket (SCM_RIGHTS). One supervisor thread per referee process answers each
call: continue while the gate is open, EPERM once it is shut. It reads no argument of the call,
so nothing the bot changes between the question and the answer matters.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import functools
import os
import select
import socket
import struct
import threading
from collections.abc import Iterable

from arena.hosts import seccomp

GATED = ("pipe", "pipe2", "socket", "socketpair", "accept", "accept4", "memfd_create",
         "memfd_secret", "mq_open")
"""The calls that make an object numbered by a machine-wide counter: pipes, sockets (an
accepted one too), memfds (hugetlbfs's and secretmem's as well) and POSIX message queues
(mqueue numbers its files by get_next_ino). eventfd, epoll, timerfd and signalfd share one
anonymous inode (one number for all); io_uring, userfaultfd, Linux AIO, pidfds, inotify and
fanotify are refused by the first filter already, and /proc is no procfs."""
ACT_NOTIFY = 0x7FC00000
NOTIF_RECV, NOTIF_SEND = 0xC0502100, 0xC0182101
"""SECCOMP_IOCTL_NOTIF_RECV and _SEND (struct seccomp_notif, 80 bytes; its response, 24)."""
FLAG_CONTINUE = 1
"""SECCOMP_USER_NOTIF_FLAG_CONTINUE: the kernel runs the call as if no filter had asked."""


@functools.cache
def filter_bpf() -> bytes:
    """The gate's filter (BPF bytes): every other call allowed, GATED sent to the supervisor."""
    return seccomp.compile_filter(_notify_rules)


def _notify_rules(lib: ctypes.CDLL, ctx: int) -> None:
    for name in GATED:
        seccomp.rule(lib, ctx, ACT_NOTIFY, name)


def seccomp_number() -> int:
    """The seccomp system call's number here, for the launcher, which loads the filter itself."""
    return number("seccomp")


def number(name: str) -> int:
    """A system call's number on this architecture (negative: unknown here)."""
    lib = seccomp.library()
    assert lib is not None
    return int(lib.seccomp_syscall_resolve_name(name.encode()))


@functools.cache
def gated_names() -> dict[int, str]:
    """GATED by number, to name a refused call to the bot's author."""
    return {number(name): name for name in GATED if number(name) >= 0}


class Gate:
    """The start gate of one bot process: the descriptors its launcher needs, and whether a
    game was sent to it yet (a gated call is refused from then on)."""

    def __init__(self, shuts: bool = True) -> None:
        self.open = True
        self.shuts = shuts
        """False for a bot allowed the network: it may reach its partner anywhere, so the gate
        would close nothing and stays open (its sockets are its work)."""
        self.spared: frozenset[int] = frozenset()
        """The helpers the bot had started when the gate shut (at import: a pool, a helper
        program): a sweep after each game spares them, since it could not start them again."""
        self.refused: dict[str, int] = {}
        """Calls refused since the gate shut, by name (what a fault's words tell the author)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.theirs = theirs.detach()
        self.filter = os.memfd_create("arena-gate")
        os.write(self.filter, filter_bpf())
        os.lseek(self.filter, 0, os.SEEK_SET)
        supervisor().watch(ours, self)

    def launch(self) -> dict[str, int]:
        """The launcher's part of its config: the filter, the socket and seccomp's number."""
        return {"filter": self.filter, "socket": self.theirs,
                "seccomp": seccomp_number()}

    def fds(self) -> list[int]:
        """The descriptors the sandbox passes to the launcher (closed here once it started)."""
        return [self.filter, self.theirs]

    def shut(self, helpers: Iterable[int]) -> None:
        """The referee is sending the bot its first game: refuse gated calls from now on, and
        spare the `helpers` it started with from the sweeps between games."""
        if self.open:
            self.spared = frozenset(helpers)
            self.open = not self.shuts

    def note(self) -> str:
        """Words for a fault of a bot whose calls the gate refused, or ''."""
        if not self.refused:
            return ""
        calls = ", ".join(f"{name} ({count}x)" for name, count in sorted(self.refused.items()))
        return (f" (arena refused {calls}: a pipe, socket or memfd may not be made after the "
                f"bot was sent its first game, EPERM; make them while it starts, at import — "
                f"docs/writing-a-bot.md)")


class Supervisor:
    """One thread answering the gated calls of every bot process this referee started."""

    def __init__(self) -> None:
        self.poller = select.epoll()
        self.sockets: dict[int, tuple[socket.socket, Gate]] = {}
        self.listeners: dict[int, Gate] = {}
        self.lock = threading.Lock()
        threading.Thread(target=self.run, name="arena-gate", daemon=True).start()

    def watch(self, ours: socket.socket, gate: Gate) -> None:
        """Wait for the listener the bot's launcher sends on `ours`."""
        with self.lock:
            self.sockets[ours.fileno()] = (ours, gate)
        self.poller.register(ours.fileno(), select.EPOLLIN)

    def run(self) -> None:
        """Forever: take the listeners sent, answer their calls, drop what has ended."""
        while True:
            for fd, events in self.poller.poll():
                if fd in self.sockets:
                    self._receive(fd)
                elif events & select.EPOLLIN:
                    self._answer(fd)
                elif events & (select.EPOLLHUP | select.EPOLLERR):
                    self._drop(fd)

    def _receive(self, fd: int) -> None:
        """Take the listener from the launcher (or forget a launcher that died first)."""
        with self.lock:
            ours, gate = self.sockets.pop(fd)
        self.poller.unregister(fd)
        with contextlib.suppress(OSError), ours:
            _, fds, _, _ = socket.recv_fds(ours, 1, 1, socket.MSG_CMSG_CLOEXEC)
            for listener in fds:
                self.listeners[listener] = gate
                self.poller.register(listener, select.EPOLLIN)

    def _answer(self, fd: int) -> None:
        """Answer one call: continue while the gate is open, EPERM once it is shut."""
        gate = self.listeners[fd]
        notice = bytearray(80)
        try:
            fcntl.ioctl(fd, NOTIF_RECV, notice)
        except OSError as exc:  # the caller died meanwhile; the bot's tree may be gone
            if exc.errno != errno.ENOENT:
                self._drop(fd)
            return
        call, _, _, nr = struct.unpack_from("<QIIi", notice)
        if gate.open:
            answer = struct.pack("<QqiI", call, 0, 0, FLAG_CONTINUE)
        else:
            name = gated_names().get(nr, str(nr))
            gate.refused[name] = gate.refused.get(name, 0) + 1
            answer = struct.pack("<QqiI", call, 0, -errno.EPERM, 0)
        with contextlib.suppress(OSError):  # ENOENT: the caller was killed meanwhile
            fcntl.ioctl(fd, NOTIF_SEND, bytearray(answer))

    def _drop(self, fd: int) -> None:
        """Every process of the bot is gone: forget its listener."""
        self.listeners.pop(fd, None)
        with contextlib.suppress(OSError):
            self.poller.unregister(fd)
        os.close(fd)


_SUPERVISOR: dict[int, Supervisor] = {}


def supervisor() -> Supervisor:
    """This process's supervisor (a forked worker starts its own: threads do not fork)."""
    pid = os.getpid()
    if pid not in _SUPERVISOR:
        _SUPERVISOR.clear()
        _SUPERVISOR[pid] = Supervisor()
    return _SUPERVISOR[pid]
