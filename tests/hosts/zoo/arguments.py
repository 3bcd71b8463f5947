"""Zoo (well-behaved): a command bot that first writes the arguments it was started with on
stderr as `ARGUMENTS {json}`, then plays the raw protocol correctly: it challenges when it
may, else makes the lowest claim (or rerolls nothing)."""

from __future__ import annotations

import json
import sys
from typing import Any


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(observation: dict[str, Any]) -> dict[str, Any]:
    legal = observation["legal"]
    if legal["decision"] in ("respond", "accept"):
        return {"type": "challenge"}
    if legal["decision"] == "reroll":
        return {"type": "reroll", "positions": []}
    kind = "pass" if legal["decision"] == "turn" else "bid"
    return {"type": kind, "claim": legal["min_claim"]}


def main() -> None:
    sys.stderr.write("ARGUMENTS " + json.dumps(sys.argv[1:]) + "\n")
    sys.stderr.flush()
    replies = {"hello": {"type": "hello", "protocol": 2, "name": "arguments"},
               "start": {"type": "ready"}, "end": {"type": "done"}}
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "act":
            send({"type": "action", "turn": message["turn"],
                  "action": answer(message["observation"])})
        elif kind in replies:
            send(replies[kind])
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
