"""A referee to be paused from outside (run by tests/hosts/test_pauses.py): plays dice games
between two dozers (they sleep `nap` of each decision) in the given host, `inline` or
`process`, until a line arrives on stdin; then prints one JSON line: the faults, and what
the machine cost the decisions (arena.hosts.strain)."""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
from pathlib import Path

from arena.bot import Limits
from arena.hosts import strain
from arena.hosts.inline import InlineHost
from arena.hosts.pipe import ProcessHost, ProcessLimits
from arena.referee import Player, play_game

DOZER = Path(__file__).parent / "zoo" / "dozer.py"


def dozer_class() -> type:
    """The zoo's Dozer, loaded by its path."""
    spec = importlib.util.spec_from_file_location("dozer", DOZER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Dozer  # type: ignore[no-any-return]


def main(mode: str, decision: float, nap: float) -> None:
    """Play until told to stop, then say what happened."""
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
    if mode == "inline":
        hosts = [InlineHost(dozer_class()) for _ in range(2)]
    else:
        hosts = [ProcessHost(str(DOZER), ProcessLimits(start_timeout=20.0)) for _ in range(2)]
    players = [Player(f"dozer{seat}", host, options={"nap": nap})
               for seat, host in enumerate(hosts)]
    faults, decisions, seed = [], 0, 0
    print("PLAYING", flush=True)
    while not stop.is_set():
        record = play_game("dice", players, seed=seed, limits=Limits(decision))
        faults += [f"{f.kind}: {f.message}" for f in record.faults]
        decisions += record.decisions
        seed += 1
    for host in hosts:
        if isinstance(host, ProcessHost):
            host.shutdown()
    taken = strain.take()
    print(json.dumps({"faults": faults, "decisions": decisions,
                      "strain": None if taken is None else taken.to_json()}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3]))
