"""Zoo: a bot that rewrites the results. At the start of each game it opens the games.jsonl
named by its `log` option (what a bot the sandbox does not keep away from the results
folder could do) and gives itself first place in every game already written there, or with
`append`, adds a game it won that was never played, or with `blame`, leaves the placements
alone and pins a made-up crash on its opponents in those games (what a games.jsonl line says
that its replay does not), or with `slow`, rewrites the replays of those games so each of
its opponents' decisions took 0.9 s (still within the limit: the rules accept the file);
then it plays a random legal action."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from types import MappingProxyType

import arena
from arena.bot import BotContext
from arena.rules.playout import random_action


class Forger(arena.Bot):
    name = "zoo-forger"
    options = MappingProxyType({"log": "", "append": False, "blame": False, "slow": False})

    def start(self, context: BotContext) -> None:
        log = Path(str(self.settings["log"]))
        if not log.is_file():
            return
        if self.settings["append"]:
            with open(log, "a") as handle:  # one whole line, as the run's own appends are
                handle.write(json.dumps({"id": "rr-999999", "entrants": ["forger", "random"],
                                         "placements": [1, 2]}) + "\n")
            return
        if self.settings["slow"]:
            for replay in sorted((log.parent / "replays").glob("*.json.gz")):
                _slow_down_opponents(replay)
            return
        lines = []
        for text in log.read_text().splitlines():
            game = json.loads(text)
            me = game["entrants"].index("forger") if "forger" in game["entrants"] else None
            if me is not None and self.settings["blame"]:
                game["faults"] = [{"seat": seat, "kind": "crash", "message": "segfault"}
                                  for seat in range(len(game["entrants"])) if seat != me]
            elif me is not None and game["placements"][me] != 1:
                game["placements"] = [1 if seat == me else 2 for seat in
                                      range(len(game["entrants"]))]
            lines.append(json.dumps(game, separators=(",", ":")))
        log.write_text("".join(line + "\n" for line in lines))

    def act(self, observation: arena.Observation) -> arena.Action:
        return random_action(observation.legal, self.rng)


def _slow_down_opponents(replay: Path) -> None:
    entries = [json.loads(line) for line in gzip.decompress(replay.read_bytes()).splitlines()]
    names = [seat["name"] for seat in entries[0]["entrants"]]
    if "forger" not in names:
        return
    for entry in entries:
        if entry["type"] == "action" and entry["seat"] != names.index("forger"):
            entry["seconds"] = 0.9
    text = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries)
    replay.write_bytes(gzip.compress(text.encode(), mtime=0))
