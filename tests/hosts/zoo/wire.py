"""Zoo: a command bot that speaks the raw protocol and misbehaves on the wire in one way,
chosen by its first argument, on its first decision:

  ok          answers correctly (the control)
  junk        prints a line that is not JSON            -> protocol
  silent      reads on but never answers                 -> timeout
  enormous    writes one 8 MiB line                      -> protocol
  unfinished  writes half a reply without a newline      -> timeout
  close       closes its stdout and lives on             -> crash
  twice       answers, then answers the same turn again  -> protocol (at the next request)
  stale       answers with the previous turn's id        -> protocol
  unreadable  answers with an action that does not exist -> protocol
  badutf8     answers with bytes that are not UTF-8      -> protocol
  stderr      writes only to stderr, forever             -> timeout (and the referee survives)
  future      says hello in protocol 99                  -> protocol (when the game starts)
  mute        reads on but never answers `hello`         -> timeout (when the game starts)
  noturn      answers without a turn number              -> protocol
  array       answers with a JSON array                  -> protocol
  nested      answers with an action nested 30,000 deep  -> protocol (not a referee bug)
  surrogate   answers with an action type that is a lone surrogate -> protocol (printable)
  textturn    answers with the turn number as text ("1") -> protocol
  noaction    answers without its action field           -> protocol
  typo        answers with a misspelt message type       -> protocol
  positions   answers a reroll with positions as text    -> protocol
  illegal     answers with a readable action that is not legal now -> illegal
  spin        spins in a loop forever                    -> timeout (billed in CPU time)
  tracer      gives up with an `error` whose trace floods: 50 frames of terminal escapes
              and bidi overrides, 1,000 characters each     -> crash (its trace bounded)
  inspect     plays like ok, and first reports its surroundings on stderr as `INSPECT {json}`
  history1    plays like ok in protocol 1, and prints a digest of each decision's history
  history2    the same in protocol 2, rebuilding the history from the events it was sent
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import sys
import time
from collections.abc import Callable
from typing import Any

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
out = sys.stdout.buffer


def send(message: dict[str, Any]) -> None:
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def legal_answer(observation: dict[str, Any]) -> dict[str, Any]:
    """Challenge when that is legal, else make the lowest claim (or reroll nothing)."""
    legal = observation["legal"]
    decision, lowest = legal["decision"], legal["min_claim"]
    if decision in ("respond", "accept"):
        return {"type": "challenge"}
    if decision == "reroll":
        return {"type": "reroll", "positions": []}
    if decision == "turn":
        return {"type": "pass", "claim": lowest}
    return {"type": "bid", "claim": lowest}


def _action(turn: object, action: object) -> bytes:
    return json.dumps({"type": "action", "turn": turn, "action": action}).encode() + b"\n"


WRONG: dict[str, Callable[[int, dict[str, Any]], bytes]] = {
    "junk": lambda turn, answer: b"I am thinking about it\n",
    "surrogate": lambda turn, answer:
        b'{"type":"action","turn":%d,"action":{"type":"\\udc80"}}\n' % turn,
    "nested": lambda turn, answer:
        b'{"type":"action","turn":%d,"action":' % turn + b"[" * 30000 + b"]" * 30000 + b"}\n",
    "enormous": lambda turn, answer: b"[" + b"1," * (4 << 20) + b"1]\n",
    "unfinished": lambda turn, answer: b'{"type": "action", "tu',
    "twice": lambda turn, answer: _action(turn, answer) * 2,
    "stale": lambda turn, answer: _action(turn - 1, answer),
    "noturn": lambda turn, answer:
        json.dumps({"type": "action", "action": answer}).encode() + b"\n",
    "array": lambda turn, answer: b"[1,2,3]\n",
    "textturn": lambda turn, answer: _action(str(turn), answer),
    "noaction": lambda turn, answer:
        json.dumps({"type": "action", "turn": turn}).encode() + b"\n",
    "typo": lambda turn, answer:
        json.dumps({"type": "actoin", "turn": turn, "action": answer}).encode() + b"\n",
    "positions": lambda turn, answer: _action(turn, {"type": "reroll", "positions": ["3"]}),
    "illegal": lambda turn, answer: _action(turn, {"type": "reroll", "positions": [4]}),
    "unreadable": lambda turn, answer: _action(turn, {"type": "dance"}),
    "badutf8": lambda turn, answer:
        b'{"type": "action", "turn": ' + str(turn).encode() + b', "x": "\xff\xfe"}\n',
    "tracer": lambda turn, answer: json.dumps(
        {"type": "error", "turn": turn, "message": "gave up",
         "trace": ["\x1b[2J\u202eevil.py:1 in act\n" + "x" * 1000] * 50}).encode() + b"\n",
}
"""What each mode that answers wrongly writes instead of its answer."""


def misbehave(turn: int, answer: dict[str, Any]) -> None:
    """Do this bot's one wrong thing, saying so on stderr first."""
    sys.stderr.write(f"wire-{MODE} misbehaves on turn {turn}\n")
    sys.stderr.flush()
    if MODE in WRONG:
        out.write(WRONG[MODE](turn, answer))
    elif MODE == "close":
        os.close(1)
        sys.stdout = sys.stderr
    elif MODE == "spin":
        while True:
            pass
    elif MODE == "stderr":
        while True:
            sys.stderr.write("stderr only " * 100 + "\n")
    if MODE != "close":
        out.flush()
    if MODE in ("silent", "unfinished", "close"):
        for _ in sys.stdin:
            pass
        time.sleep(3600)


def surroundings() -> dict[str, Any]:
    """What a bot can see of where it runs: folder, environment, limits, pid, parent."""
    limits = {name: resource.getrlimit(getattr(resource, name))
              for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE",
                           "RLIMIT_NPROC", "RLIMIT_CORE")}
    return {"cwd": os.getcwd(), "files": os.listdir("."), "env": sorted(os.environ),
            "limits": limits, "pid": os.getpid(), "parent": os.getppid(),
            "session": os.getsid(0) == os.getpid() or os.getpid() == 1}


def history_digest(observation: dict[str, Any], events: list[dict[str, Any]]) -> str:
    """Protocol 1 sends the round's history; protocol 2 says where it starts in the events."""
    if MODE == "history1":
        history = observation["history"]
    else:
        assert "history" not in observation
        history = [e for e in events[observation["history_from"]:] if "to" not in e]
    text = json.dumps(history, sort_keys=True)
    return f"HISTORY {len(history)} {hashlib.sha256(text.encode()).hexdigest()[:16]}\n"


def greet() -> None:
    """Answer `hello` in this mode's protocol (or, mute, never)."""
    if MODE == "mute":
        sys.stderr.write("wire-mute heard hello and keeps quiet\n")
        sys.stderr.flush()
        return
    if MODE == "future":
        sys.stderr.write("wire-future misbehaves at hello\n")
    version = {"future": 99, "history1": 1}.get(MODE, 2)
    send({"type": "hello", "protocol": version, "name": f"wire-{MODE}"})


def act(message: dict[str, Any], events: list[dict[str, Any]], acted: bool) -> None:
    """Answer a decision: rightly, or on the first one this mode's wrong way."""
    answer = legal_answer(message["observation"])
    if MODE.startswith("history"):
        sys.stderr.write(history_digest(message["observation"], events))
    if acted or MODE in ("ok", "inspect", "history1", "history2"):
        send({"type": "action", "turn": message["turn"], "action": answer})
    else:
        misbehave(message["turn"], answer)


def main() -> None:
    if MODE == "inspect":
        sys.stderr.write("INSPECT " + json.dumps(surroundings()) + "\n")
        sys.stderr.flush()
    acted = False
    events: list[dict[str, Any]] = []
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            greet()
        elif kind == "start":
            events.clear()
            if MODE == "inspect":
                sys.stderr.write("LIMITS " + json.dumps(message["context"]["limits"]) + "\n")
            send({"type": "ready"})
        elif kind == "event":
            events.append(message["event"])
        elif kind == "act":
            act(message, events, acted)
            acted = True
        elif kind == "end":
            send({"type": "done"})
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
