"""Zoo: a bot that starts its helpers as programs usually do, at import: a helper program it
talks to over pipes, a multiprocessing pool, and threads. Mode `import` (expected: no fault)
uses them all at each decision and writes `STARTER ok` to stderr; mode `mid-game` starts a
subprocess at its first decision (expected: a crash fault, since a sandboxed bot may make no
pipe once it plays, that says so). Option `mode`.
"""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import threading
from types import MappingProxyType

import arena

ECHO = "import sys\nfor line in sys.stdin:\n    print(line.strip()[::-1], flush=True)"
HELPER = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
POOL = multiprocessing.get_context("fork").Pool(1)


def _use_helpers() -> None:
    assert HELPER.stdin is not None and HELPER.stdout is not None
    HELPER.stdin.write("dice\n")
    HELPER.stdin.flush()
    assert HELPER.stdout.readline().strip() == "ecid"
    assert POOL.apply(abs, (-7,)) == 7
    found: list[int] = []
    threads = [threading.Thread(target=found.append, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(found) == [0, 1, 2, 3]


class Starter(arena.Bot):
    name = "zoo-starter"
    options = MappingProxyType({"mode": "import"})

    def act(self, observation: arena.Observation) -> arena.Action:
        if self.settings["mode"] == "mid-game":
            subprocess.run([sys.executable, "-c", "pass"], check=True)
        _use_helpers()
        sys.stderr.write("STARTER ok\n")
        sys.stderr.flush()
        return observation.legal_actions()[0]
