"""Zoo: two bots at one table that pass the sender's dice through the kernel's inode counter
(issue 38). Both pin themselves to CPU 0, whose batch of get_next_ino numbers pipes take in
turn. The `send` one, at each decision with dice, makes pipes until the low 8 bits of the
number the last one took are its first three dice (base 6: below 216); the `hear` one, at each
decision, makes one pipe and reads those bits from its number, less one; the `helper` one
sends as `send` does, through a helper process it forked at import (before any game), to which
it passes its dice over a pipe. Each reports on stderr, `COUNTER {json}`: when, what it sent
or heard, or the error its call met. At import each makes a pipe and a socket, as a runtime
starting up does (these must work). Option `role` (send, helper or hear).
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from types import MappingProxyType
from typing import Any

import arena

MASK = 0xFF
FACES = "9TJQKA"
AT_IMPORT = [os.pipe(), socket.socketpair()]


def _pipe_number() -> int:
    read, write = os.pipe()
    number = os.fstat(read).st_ino
    os.close(read)
    os.close(write)
    return number


def send(dice: tuple[str, ...]) -> dict[str, Any]:
    """Take numbers until the last one's low bits are the first three dice."""
    message = sum(FACES.index(d) * 6 ** i for i, d in enumerate(dice[:3]))
    for _ in range(64 * (MASK + 1)):
        if _pipe_number() & MASK == message:
            break
    return {"sent": message}


def hear() -> dict[str, Any]:
    """The low bits of the counter: one less than a new pipe's number."""
    return {"heard": (_pipe_number() - 1) & MASK}


def _helper(orders: int) -> None:
    """In the helper: for each hand sent, send it through the counter; report as the bot."""
    with os.fdopen(orders) as lines:
        for line in lines:
            try:
                report = send(tuple(line.split()))
            except OSError as exc:
                report = {"error": exc.errno}
            report["time"] = time.monotonic()
            sys.stderr.write(f"COUNTER {json.dumps(report)}\n")
            sys.stderr.flush()
    os._exit(0)


def _start_helper() -> int:
    """Fork the helper (pinned to CPU 0 with its parent); return the pipe to it."""
    read, write = os.pipe()
    if os.fork() == 0:
        os.close(write)
        os.sched_setaffinity(0, {0})
        _helper(read)
    os.close(read)
    return write


HELPER = _start_helper()


class Counter(arena.Bot):
    name = "zoo-counter"
    options = MappingProxyType({"role": "hear"})

    def act(self, observation: arena.Observation) -> arena.Action:
        os.sched_setaffinity(0, {0})
        role = str(self.settings["role"])
        if role == "helper" and observation.hand:
            os.write(HELPER, (" ".join(observation.hand) + "\n").encode())
            time.sleep(0.2)  # the helper's messages go before the hearer's next reading
        elif role == "hear" or observation.hand:
            try:
                report = send(tuple(observation.hand or ())) if role == "send" else hear()
            except OSError as exc:
                report = {"error": exc.errno}
            report["time"] = time.monotonic()
            sys.stderr.write(f"COUNTER {json.dumps(report)}\n")
            sys.stderr.flush()
        return observation.legal_actions()[0]
