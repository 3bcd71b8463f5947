"""A referee to be paused from outside (run by tests/hosts/test_pauses.py): plays dice games
between two dozers (they sleep `nap` of each decision) in the given host, `inline` or
`process`, until `stop` arrives on stdin; then prints one JSON line: the faults, and what
the machine cost the decisions (arena.hosts.strain). Each `strain` line on stdin is answered
with a JSON line of what the machine cost the decisions so far."""

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


class Told:
    """What the machine cost the decisions so far, told when asked (from stdin's thread)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.strain: strain.Strain | None = None

    def take(self) -> strain.Strain | None:
        """Everything noted so far, this call's and the earlier ones'."""
        with self.lock:
            taken = strain.take()
            if taken is not None:
                self.strain = taken if self.strain is None else self.strain + taken
            return self.strain


def listen(told: Told, stop: threading.Event) -> None:
    """Answer each `strain` line until `stop` (or the end of stdin)."""
    for line in sys.stdin:
        if line.strip() != "strain":
            break
        taken = told.take()
        print(json.dumps(None if taken is None else taken.to_json()), flush=True)
    stop.set()


def main(mode: str, decision: float, nap: float) -> None:
    """Play until told to stop, then say what happened."""
    stop, told = threading.Event(), Told()
    threading.Thread(target=listen, args=(told, stop), daemon=True).start()
    if mode == "inline":
        hosts = [InlineHost(dozer_class()) for _ in range(2)]
    else:
        hosts = [ProcessHost(str(DOZER), ProcessLimits(start_timeout=20.0)) for _ in range(2)]
        for host in hosts:  # started before PLAYING: the test's first pause finds decisions
            host.introduce()
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
    taken = told.take()
    print(json.dumps({"faults": faults, "decisions": decisions,
                      "strain": None if taken is None else taken.to_json()}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3]))
