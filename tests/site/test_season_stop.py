"""The season process stops when its turn's games are stopped (Ctrl-C, or the SIGTERM of
`arena serve` stopping): a failed turn would be tried again, and `arena serve` waited its
10 s grace before it killed the process (the browser journey's teardown, every run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.site.season.loop import Turn, loop
from arena.tournament.run.runner import Interrupted


def _stopped(folder: Path) -> Interrupted:
    return Interrupted(4, 6, folder)


def test_a_turn_stopped_by_ctrl_c_stops_the_season(tmp_path: Path) -> None:
    said: list[str] = []
    turns: list[int] = []

    def turn() -> Turn:
        turns.append(1)
        raise _stopped(tmp_path)

    loop(turn, once=False, say=said.append)
    assert turns == [1]
    assert said == [f"stopped: interrupted: 4 of 6 games are saved in {tmp_path}"]


def test_one_turn_stopped_by_ctrl_c_says_so_and_raises(tmp_path: Path) -> None:
    said: list[str] = []

    def turn() -> Turn:
        raise _stopped(tmp_path)

    with pytest.raises(Interrupted):
        loop(turn, once=True, say=said.append)
    assert said == [f"stopped: interrupted: 4 of 6 games are saved in {tmp_path}"]
