"""No leaks: a cheating bot that searches its own process and the file system for the dice
under the cup finds them when it runs inline (which is why inline is for trusted bots only)
and finds nothing when it runs in its own process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from isolation_support import HAS_NAMESPACE, LIMITS, zoo

from arena import play_game
from arena.bot import Limits
from arena.hosts.pipe import ProcessHost
from arena.referee import GameRecord, Player
from arena.rules.actions import Chance


def first_cup(record: GameRecord) -> list[int]:
    """The dice seat 0 threw first: what seat 1 must not know at its first decision."""
    return list(next(e for e in record.log if isinstance(e, Chance)).outcome)


INLINE = """
import json, sys
from pathlib import Path
from arena import play_game
from arena.bot import Limits
from arena.plugins import bot_from_file
from arena.rules.actions import Chance
peeker = bot_from_file(Path(sys.argv[1])).factory
record = play_game("dice", ["random", peeker, "random"], seed=5, limits=Limits(30.0))
cup = list(next(e for e in record.log if isinstance(e, Chance)).outcome)
print(json.dumps({"faults": len(record.faults), "cup": cup, "reports": peeker.reports}))
"""


def test_inline_a_cheat_reads_the_dice_under_the_cup(tmp_path: Path) -> None:
    """In a referee of its own (a fresh process, as `arena` is): the cheat searches every
    object of the process, so in this test process, grown by the tests before it, it took
    seconds; its files folder is an empty one, as only its memory is asserted here."""
    done = subprocess.run([sys.executable, "-c", INLINE, zoo("peeker.py")], capture_output=True,
                          text=True, timeout=120, check=False, cwd=tmp_path,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    game = json.loads(done.stdout)
    assert game["faults"] == 0
    first = game["reports"][0]
    assert game["cup"] in first["memory"]


@pytest.mark.parametrize("namespace", [False, True] if HAS_NAMESPACE else [False])
def test_in_a_process_the_same_cheat_finds_nothing(namespace: bool, tmp_path: Path) -> None:
    replays = tmp_path / "replays"
    replays.mkdir()
    (replays / "earlier-game.json").write_text('{"hand": ["K", "K", "K", "A", "A"]}')
    limits = replace(LIMITS, pid_namespace=namespace, isolation="none")  # sandbox: test_sandbox
    host = ProcessHost(zoo("peeker.py"), limits)
    player = Player("peeker", host, options={"look_in": [str(replays)]})
    try:
        record = play_game("dice", ["random", player, "random"], seed=5, limits=Limits(30.0))
        text = host.stderr_tail()
    finally:
        host.shutdown()
    reports = [json.loads(t[5:]) for t in text.splitlines() if t.startswith("PEEK ")]
    assert reports, "the peeker did not run"
    assert reports[0]["files"] == [[13, 13, 13, 14, 14]]  # it can read files: not the cup
    assert all(r["memory"] == [] for r in reports)
    assert first_cup(record) not in reports[0]["files"]
    if namespace:  # the referee is not even visible
        assert reports[0]["parent"] == 0
        assert not any(reports[0]["opened"].get(k) for k in ("cmdline", "environ", "status",
                                                             "parent memory"))
