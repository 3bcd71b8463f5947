"""A hostile entrant for the lanes' attack test: at every decision it publishes its dice on
every channel two processes on one machine could share (a /tmp file, a /dev/shm file, a
named pipe, an abstract unix socket, a System V shared-memory segment, its process name in
/proc) and looks for another process's dice on each, and for another spy to signal. Its
process's fourth decision with dice ends its game as a crash that says what each channel
gave it: `LEARNED {channel: what}` when one gave another process's dice, else `PROBED
{...}` (`alone`: published, found no one; else the error), so a run shows the attack ran.
TAG (hex, written in by the test) names the rendezvous."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import secrets
import signal
import socket
import threading
import time
from pathlib import Path

from arena_bots.random_bot import RandomBot

TAG = "TAG"
ME = secrets.token_hex(4)
_LIBC = ctypes.CDLL(None, use_errno=True)
_LIBC.shmat.restype = ctypes.c_void_p
_LIBC.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
SHM_KEY = 0x5A000000 | int(TAG, 16) & 0xFFFFFF
"""The System V key both spies use (TAG is hex)."""
SLOTS = 8
SLOT = 128


def _error(exc: OSError) -> str:
    return errno.errorcode.get(exc.errno or 0, str(exc))


def _others(lines: list[str]) -> list[str]:
    return [line for line in lines if line and not line.startswith(ME + " ")]


def _files(folder: str, message: str) -> str:
    """Write my dice to FOLDER/arena-spy-TAG-ME; read every other spy's file there."""
    try:
        Path(folder, f"arena-spy-{TAG}-{ME}").write_text(message)
    except OSError as exc:
        return _error(exc)
    found = [p.read_text() for p in Path(folder).glob(f"arena-spy-{TAG}-*")]
    if _others(found):
        return "learned " + _others(found)[0]
    return "alone"


_fifo: list[int] = []
_seen: dict[str, str] = {}
"""What each channel gave so far (what it first learned, once it learned anything)."""


def _named_pipe(message: str) -> str:
    """Read what others wrote into a named pipe in /tmp since I last looked; write my dice."""
    path = f"/tmp/arena-spy-{TAG}.fifo"
    try:
        with contextlib.suppress(FileExistsError):
            os.mkfifo(path, 0o666)
        if not _fifo:
            _fifo.append(os.open(path, os.O_RDWR | os.O_NONBLOCK))
        data = b""
        with contextlib.suppress(BlockingIOError):
            data = os.read(_fifo[0], 65536)
        os.write(_fifo[0], (message + "\n").encode())
    except OSError as exc:
        return _error(exc)
    found = _others(data.decode(errors="replace").splitlines())
    return "learned " + found[0] if found else "alone"


_served: list[str] = []


SERVER = socket.socket(socket.AF_UNIX)
CLIENTS = [socket.socket(socket.AF_UNIX) for _ in range(16)]
"""Made at import: a sandboxed bot may make no socket once it has been sent a game."""


def _serve(server: socket.socket) -> None:
    while True:
        try:
            connection, _ = server.accept()
        except OSError:
            return
        with connection:
            connection.sendall(_served[-1].encode())


def _abstract_socket(message: str) -> str:
    """Serve my dice on an abstract unix socket; ask the other spy's (any name of TAG)."""
    name = f"\0arena-spy-{TAG}-{ME}"
    if not _served:
        server = SERVER
        try:
            server.bind(name)
            server.listen(4)
        except OSError as exc:
            return _error(exc)
        threading.Thread(target=_serve, args=(server,), daemon=True).start()
    _served.append(message)
    try:
        listed = Path("/proc/net/unix").read_text().split()
    except OSError:
        listed = []
    for entry in listed:
        if entry.startswith(f"@arena-spy-{TAG}-") and entry != name.replace("\0", "@"):
            with CLIENTS.pop() if CLIENTS else socket.socket(socket.AF_UNIX) as client:
                client.settimeout(0.5)
                with contextlib.suppress(OSError):
                    client.connect("\0" + entry[1:])
                    return "learned " + client.recv(200).decode()
    return "alone"


def _shared_memory(message: str) -> str:
    """Write my dice into a slot of a System V segment; read the other slots."""
    shmid = _LIBC.shmget(SHM_KEY, SLOTS * SLOT, 0o1666)  # IPC_CREAT | 0666
    if shmid < 0:
        return errno.errorcode.get(ctypes.get_errno(), "?")
    address = _LIBC.shmat(shmid, None, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        return errno.errorcode.get(ctypes.get_errno(), "?")
    segment = (ctypes.c_char * (SLOTS * SLOT)).from_address(address)
    slots = [bytes(segment[i * SLOT:(i + 1) * SLOT]).rstrip(b"\0").decode(errors="replace")
             for i in range(SLOTS)]
    mine = next((i for i, s in enumerate(slots) if s.startswith(ME + " ")), None)
    free = next((i for i, s in enumerate(slots) if not s), 0)
    at = (mine if mine is not None else free) * SLOT
    data = message.encode()[:SLOT - 1].ljust(SLOT, b"\0")
    ctypes.memmove(address + at, data, SLOT)
    found = _others(slots)
    _LIBC.shmdt(ctypes.c_void_p(address))
    if found:
        return "learned " + found[0]
    return "alone"


def _process_names(hand: str) -> str:
    """Name my process after my dice (prctl); read every other process's name in /proc,
    and signal another spy found there."""
    _LIBC.prctl(15, f"spy{hand}".encode()[:15], 0, 0, 0)  # PR_SET_NAME
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            for task in (entry / "task").iterdir():
                name = (task / "comm").read_text().strip()
                if name.startswith("spy") and int(task.name) != os.getpid():
                    with contextlib.suppress(OSError):
                        os.kill(int(entry.name), signal.SIGCONT)
                        return f"learned {name} (pid {entry.name}, signalled)"
    return "alone"


class Spy(RandomBot):
    """Random play; every decision, the attack (see the module's docstring)."""

    name = "lane-spy"
    decisions = 0

    def act(self, observation):
        hand = "".join(map(str, observation.hand or ()))
        if not hand:
            return super().act(observation)
        Spy.decisions += 1
        time.sleep(0.2)  # a slow thinker: the twin game in the other lane is in flight meanwhile
        message = f"{ME} {hand}"
        report = {
            "tmp": _files("/tmp", message),
            "shm": _files("/dev/shm", message),
            "fifo": _named_pipe(message),
            "socket": _abstract_socket(message),
            "sysv": _shared_memory(message),
            "proc": _process_names(hand),
        }
        for channel, said in report.items():
            if not _seen.get(channel, "").startswith("learned"):
                _seen[channel] = said
        if Spy.decisions == 4:
            learned = any(said.startswith("learned") for said in _seen.values())
            raise RuntimeError(("LEARNED " if learned else "PROBED ")
                               + json.dumps(_seen, separators=(",", ":")))
        return super().act(observation)
