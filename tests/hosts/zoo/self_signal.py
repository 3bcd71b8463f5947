"""Zoo: a command bot that, on its first decision, sends itself a signal in one of the ways a
program can (issue 13, item 9), chosen by its first argument:

  segv    raise(SIGSEGV)             -> crash, killed by SIGSEGV
  term    kill(getpid(), SIGTERM)    -> crash, killed by SIGTERM
  abort   abort()                    -> crash, killed by SIGABRT
  x32     getpid through the x32 ABI     -> crash, killed by SIGSYS (seccomp: a foreign ABI)

If the signal is dropped (a bot that is PID 1 of its namespace), it answers as if nothing had
happened, and the game shows no fault.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys

MODE = sys.argv[1]


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def hurt_myself() -> None:
    if MODE == "segv":
        getattr(ctypes.CDLL(None), "raise")(signal.SIGSEGV)
    elif MODE == "term":
        os.kill(os.getpid(), signal.SIGTERM)
    elif MODE == "abort":
        os.abort()
    elif MODE == "x32":
        ctypes.CDLL(None).syscall(0x40000000 | 39)


for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        send({"type": "hello", "protocol": 2, "name": f"zoo-self-signal-{MODE}"})
    elif kind == "start":
        send({"type": "ready"})
    elif kind == "act":
        hurt_myself()
        legal = message["observation"]["legal"]
        answer = {"type": "challenge"} if legal["decision"] in ("respond", "accept") else \
            {"type": "reroll", "positions": []} if legal["decision"] == "reroll" else \
            {"type": "bid", "claim": legal["min_claim"]}
        send({"type": "action", "turn": message["turn"], "action": answer})
    elif kind == "end":
        send({"type": "done"})
    elif kind == "shutdown":
        break
