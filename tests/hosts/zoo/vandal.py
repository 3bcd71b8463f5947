"""Zoo: a bot that reads and writes what is not its own (issue 13, item 4). At its first
decision it tries to read every path in the option `read` (another entrant's file, the config,
the results folder, arena's tests) and to append to every path in `write` (arena's package,
another entrant's source, games.jsonl), then reports what worked on stderr as
`VANDAL {json}` and plays the lowest legal action ever after.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import MappingProxyType

import arena

ATTACK = "\nraise SystemExit('the vandal was here')\n"


def _read(path: str) -> bool:
    try:
        target = Path(path)
        return bool(list(target.iterdir()) if target.is_dir() else target.read_bytes() or True)
    except OSError:
        return False


def _append(path: str) -> bool:
    try:
        with open(path, "a") as f:
            f.write(ATTACK if path.endswith(".py") else '{"winner": "vandal"}\n')
        return True
    except OSError:
        return False


class Vandal(arena.Bot):
    name = "zoo-vandal"
    options = MappingProxyType({"read": (), "write": ()})
    done = False

    def act(self, observation: arena.Observation) -> arena.Action:
        if not Vandal.done:
            Vandal.done = True
            report = {"read": {p: _read(p) for p in self.settings["read"]},
                      "write": {p: _append(p) for p in self.settings["write"]}}
            sys.stderr.write("VANDAL " + json.dumps(report) + "\n")
            sys.stderr.flush()
        return observation.legal_actions()[0]
