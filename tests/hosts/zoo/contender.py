"""Zoo: two table-mates that pass bits through CPU contention (docs/security.md, "CPU
contention"). Option `role`: `send` starts, at its first decision, a spinner pinned to CPU 0
that for ever busies the slots of the shared monotonic clock whose bit is 1 (the bits are a
fixed pseudo-random pattern both halves know, so each slot is a fresh coin); `how` says where
it spins: `thread` (a thread of the bot) or `session` (a grandchild in a session and process
group of its own, as a bot that tries to escape a freeze of its process group would start).
`hear` times its own share of CPU 0 through `slots` slots at each of its decisions, calls a
slot a 1 where its share is below its median, and writes `AGREE <agreeing> <slots>` to stderr
(expected: at chance, since the sender never runs while the receiver decides)."""

from __future__ import annotations

import os
import sys
import threading
import time
import zlib
from types import MappingProxyType

import arena

SLOT = 0.02


def bit(slot: int) -> int:
    """The pattern's bit for a slot of the shared clock."""
    return zlib.crc32(slot.to_bytes(8, "little")) & 1


def spin() -> None:
    """For ever: busy CPU 0 through the slots whose bit is 1, sleep through the others."""
    os.sched_setaffinity(0, {0})
    while True:
        slot = int(time.monotonic() / SLOT)
        end = (slot + 1) * SLOT
        if bit(slot):
            while time.monotonic() < end:
                pass
        else:
            time.sleep(max(0.0, end - time.monotonic()))


def start_spinner(how: str) -> None:
    """Start the spinner as a thread, or as a grandchild in its own session."""
    if how == "thread":
        threading.Thread(target=spin, daemon=True).start()
        return
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            spin()
        os._exit(0)
    os.wait()


def hear(slots: int) -> tuple[int, int]:
    """Time its share of CPU 0 through `slots` slots; how many agree with the pattern."""
    os.sched_setaffinity(0, {0})
    first = int(time.monotonic() / SLOT) + 1
    while time.monotonic() < first * SLOT:
        pass
    share = []
    for slot in range(first, first + slots):
        end, cpu = (slot + 1) * SLOT, time.thread_time()
        while time.monotonic() < end:
            pass
        share.append(time.thread_time() - cpu)
    middle = sorted(share)[len(share) // 2]
    agree = sum(int(s < middle) == bit(first + i) for i, s in enumerate(share))
    return agree, slots


class Contender(arena.Bot):
    name = "zoo-contender"
    options = MappingProxyType({"role": "send", "how": "thread", "slots": 32})
    started = False

    def act(self, observation: arena.Observation) -> arena.Action:
        if self.settings["role"] == "send" and not Contender.started:
            Contender.started = True
            start_spinner(str(self.settings["how"]))
        elif self.settings["role"] == "hear":
            agree, slots = hear(int(self.settings["slots"]))
            sys.stderr.write(f"AGREE {agree} {slots}\n")
            sys.stderr.flush()
        return observation.legal_actions()[0]
