"""No leaks: a cheating bot that searches its own process and the file system for the dice
under the cup finds them when it runs inline (which is why inline is for trusted bots only)
and finds nothing when it runs in its own process."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from isolation_support import HAS_NAMESPACE, LIMITS, zoo

from arena import play_game
from arena.bot import Limits
from arena.hosts.pipe import ProcessHost
from arena.plugins import bot_from_file
from arena.referee import GameRecord, Player
from arena.rules.actions import Chance


def first_cup(record: GameRecord) -> list[int]:
    """The dice seat 0 threw first: what seat 1 must not know at its first decision."""
    return list(next(e for e in record.log if isinstance(e, Chance)).outcome)


def test_inline_a_cheat_reads_the_dice_under_the_cup() -> None:
    peeker = bot_from_file(Path(zoo("peeker.py"))).factory
    peeker.reports.clear()  # type: ignore[attr-defined]
    record = play_game("dice", ["random", peeker, "random"], seed=5, limits=Limits(30.0))
    assert record.faults == ()
    first = peeker.reports[0]  # type: ignore[attr-defined]
    assert first_cup(record) in first["memory"]


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
