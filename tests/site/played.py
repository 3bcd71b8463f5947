"""A real short tournament of two participants' bots for the site's tests, and the index of
its games.jsonl as the season makes it (a Game a line, a Seat a seat, each participant's
seat tied to its bot's version), so the pages read what arena really wrote."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from arena.site.contest.models import Bot, Game, Seat, Version
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

ALICEBOT = '''\
"""A participant's plain bot: random legal decisions."""
import arena


class AliceBot(arena.Bot):
    name = "alicebot"
    rules = ("dice",)

    def act(self, observation: arena.Observation) -> arena.Action:
        return arena.random_action(observation.legal, self.rng)
'''
BOBBOT = '''\
"""A participant's bot that writes markup to stderr and crashes in its own code."""
import sys

import arena


class BobBot(arena.Bot):
    name = "bobbot"
    rules = ("dice",)

    def act(self, observation: arena.Observation) -> arena.Action:
        sys.stderr.write('BOB-STDERR <script>alert("stderr")</script>\\n')
        sys.stderr.flush()
        return self.plan(observation)

    def plan(self, observation: arena.Observation) -> arena.Action:
        return {"<script>alert('trace')</script>": observation}["BOB-TRACE"]
'''
STDERR_LINE = 'BOB-STDERR <script>alert("stderr")</script>'
TRACE_MARK = "bobbot.py:17 in BobBot.plan"
ROUND_ROBIN = """\
name: season
rules: dice
options: {{max_points: 2}}
entrants: [honest, {{bot: {alice}, alias: alicebot}}, {{bot: {bob}, alias: bobbot}}]
format: {{type: round-robin, seats: 2, games: 2}}
workers: 1
"""


def bots_in(folder: Path) -> tuple[Path, Path]:
    """alicebot.py and bobbot.py written into a folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "alicebot.py").write_text(ALICEBOT, encoding="utf-8")
    (folder / "bobbot.py").write_text(BOBBOT, encoding="utf-8")
    return folder / "alicebot.py", folder / "bobbot.py"


def play_round_robin(root: Path) -> Path:
    """honest, alicebot and bobbot, every pair twice: the results folder."""
    alice, bob = bots_in(root / "bots")
    config = root / "rr.yaml"
    config.write_text(ROUND_ROBIN.format(alice=alice, bob=bob), encoding="utf-8")
    run_tournament(load_tournament(config), root / "results", workers=1)
    return root / "results"


def copy_results(played: Path, into: Path) -> Path:
    """A test's own copy of a played results folder (it may add ladder.json to it)."""
    shutil.copytree(played, into)
    return into


def games(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]


def index(folder: Path, versions: dict[str, Version]) -> None:
    """The games of a results folder in the Game/Seat index; `versions` by entrant name."""
    for number, line in enumerate(games(folder)):
        faults = {f["seat"]: f for f in line["faults"]}
        game = Game.objects.create(number=number, game_id=line["id"], seed=str(line["seed"]),
                                   players=line["entrants"], placements=line["placements"],
                                   faulted=bool(faults))
        for seat, entrant in enumerate(line["entrants"]):
            fault = faults.get(seat, {})
            Seat.objects.create(game=game, seat=seat, entrant=entrant,
                                version=versions.get(entrant),
                                placement=line["placements"][seat],
                                fault=fault.get("kind", ""), fault_message=fault.get("message", ""))


def version(bot: Bot, number: int = 1, **fields: Any) -> Version:
    """A version of a bot (as an upload makes it), active unless told otherwise."""
    fields = {"status": Version.Status.ACTIVE, "filename": f"{bot.name}.py", **fields}
    return Version.objects.create(bot=bot, number=number, sha256=f"{number:064d}", kind="file",
                                  size=100, **fields)
