"""The season process killed mid-batch (SIGKILL) loses no game: the next turn finishes the
batch it cut, so games.jsonl has the bytes of a season that was not cut, and the index has
one Game a line."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

CONFIG = """\
name: cut
rules: dice
options: {max_points: 2}
entrants: [honest, {bot: slow.py, alias: slow}]
format: {type: ladder, seats: 2, min_games: 2, batch: 6, band: 2}
seed: 3
replays: false
"""
SLOW = """\
import time

import arena


class Slow(arena.Bot):
    def act(self, observation: arena.Observation) -> arena.Action:
        time.sleep(0.05)
        return arena.random_action(observation.legal, self.rng)
"""
BATCH = 6


def _season(root: Path) -> subprocess.Popen[bytes]:
    """One turn of `arena site season` for the contest in `root`, as its own process."""
    code = ("import sys; from arena.site.season import main; "
            f"main(sys.argv[1], sys.argv[2], once=True, batch_games={BATCH})")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_SITE", "DJANGO"))}
    return subprocess.Popen([sys.executable, "-c", code, str(root / "c.yaml"), str(root / "site")],
                            env=env, stderr=subprocess.PIPE, cwd=root)


def _contest(root: Path) -> Path:
    root.mkdir()
    (root / "slow.py").write_text(SLOW, "utf-8")
    (root / "c.yaml").write_text(CONFIG + f"output: {root / 'results'}\n", "utf-8")
    return root / "results" / "games.jsonl"


def _turn(root: Path) -> None:
    season = _season(root)
    _, err = season.communicate(timeout=600)
    assert season.returncode == 0, err.decode()


def _indexed(root: Path) -> list[str]:
    with sqlite3.connect(root / "site" / "db.sqlite3") as db:
        return [row[0] for row in db.execute("SELECT game_id FROM contest_game ORDER BY number")]


def _ids(log: Path) -> list[str]:
    return [line.split('"id":"')[1].split('"')[0] for line in log.read_text("utf-8").splitlines()]


def _turns(root: Path, count: int) -> None:
    for _ in range(count):
        _turn(root)


def test_a_season_killed_mid_batch_loses_no_game_and_goes_on(tmp_path: Path) -> None:
    whole, cut = _contest(tmp_path / "whole"), _contest(tmp_path / "cut")
    with ThreadPoolExecutor(1) as beside:  # the season not cut, played while the other is cut
        _cut_and_resumed(tmp_path, cut, beside.submit(_turns, tmp_path / "whole", 2))
    assert whole.read_bytes().startswith(cut.read_bytes()), "the bytes of a season not cut"
    assert _indexed(tmp_path / "cut") == _ids(cut)


def _cut_and_resumed(tmp_path: Path, cut: Path, whole: Future[None]) -> None:
    """A turn killed mid-batch, then the next turn (the season not cut played meanwhile)."""
    season = _season(tmp_path / "cut")
    while not (cut.exists() and cut.read_bytes().count(b"\n") >= 2):
        assert season.poll() is None, "the turn ended before the kill"
        time.sleep(0.01)
    season.send_signal(signal.SIGKILL)
    season.wait()
    kept = cut.read_bytes().count(b"\n")
    assert kept < BATCH, "killed mid-batch"
    _turn(tmp_path / "cut")
    assert len(cut.read_bytes().splitlines()) == kept + BATCH
    whole.result()
