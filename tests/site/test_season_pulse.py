"""The season says it is working while it works (issue 35): while a class's demo plays, a
real `arena site season` process writes its heartbeat and a status line of how far it is,
and the demo's games are indexed as they land, not only at its end; killed mid-demo
(SIGKILL) and started again, it goes on with the demo (resumed) and ends it whole, the
index one Game a line; the demo's results folder holds only arena results, and a version's
gauntlet is played beside it."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

CONFIG = """\
name: demo
rules: dice
options: {max_points: 2}
entrants:
  - honest
  - random
  - {bot: slow.py, alias: slow}
format: {type: gauntlet, seats: 2, games: 6, champions: [honest, random]}
grades: [pass: random, merit: honest]
replays: false
"""
SLOW = """\
import time

import arena


class Slow(arena.Bot):
    def act(self, observation: arena.Observation) -> arena.Action:
        time.sleep(0.03)
        return arena.random_action(observation.legal, self.rng)
"""
PLANNED = 2 * 6 * 2
"""The demo's games: its student against two champions, 6 deals at both seats. slow's sleeps
alone make it last over 6 s (433 decisions, half of them slow's), twice the heart's PULSE,
so a beat that has indexed games comes while it plays, on any machine."""


def _season(root: Path, once: bool) -> subprocess.Popen[bytes]:
    """`arena site season` for the class in `root` as its own process (one turn, or on)."""
    code = ("import sys; from arena.site.season import main; "
            f"main(sys.argv[1], sys.argv[2], once={once})")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_SITE", "DJANGO"))}
    return subprocess.Popen([sys.executable, "-c", code, str(root / "c.yaml"),
                             str(root / "site")], env=env, stderr=subprocess.PIPE, cwd=root)


def _query(root: Path, sql: str) -> list[tuple[object, ...]]:
    try:
        with sqlite3.connect(root / "site" / "db.sqlite3", timeout=5) as db:
            return list(db.execute(sql))
    except sqlite3.OperationalError:  # not migrated yet
        return []


def _lines(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines() if path.exists() else []


def test_the_demo_class_beats_indexes_as_it_plays_and_goes_on_after_a_kill(
        tmp_path: Path) -> None:
    (tmp_path / "slow.py").write_text(SLOW, "utf-8")
    (tmp_path / "c.yaml").write_text(CONFIG + f"output: {tmp_path / 'results' / 'demo'}\n",
                                     "utf-8")
    games = tmp_path / "results" / "demo" / "games.jsonl"
    season = _season(tmp_path, once=False)
    seen: list[tuple[object, ...]] = []
    try:
        while not seen:
            assert season.poll() is None, season.communicate()[1].decode()
            seen = _query(tmp_path, "SELECT s.status, s.heartbeat, (SELECT COUNT(*) FROM "
                                    "contest_game) FROM contest_season s WHERE s.status LIKE "
                                    "'playing:%' AND s.games_indexed > 0")
            assert len(_lines(games)) < PLANNED, "the demo ended unheard"
            time.sleep(0.05)
        landed = len(_lines(games))
    finally:
        season.send_signal(signal.SIGKILL)
        season.wait()
    status, heartbeat, indexed = seen[0]
    assert str(status).endswith(f" of {PLANNED} games of the demo class"), status
    assert heartbeat is not None and 0 < int(str(indexed)) <= landed < PLANNED
    kept = len(_lines(games))
    assert kept < PLANNED, "killed mid-demo"
    again = _season(tmp_path, once=True)
    _, err = again.communicate(timeout=600)
    assert again.returncode == 0, err.decode()
    lines = _lines(games)
    assert len(lines) == PLANNED and len({json.loads(x)["id"] for x in lines}) == PLANNED
    ids = [row[0] for row in _query(tmp_path, "SELECT game_id FROM contest_game ORDER BY "
                                              "number")]
    assert ids == [json.loads(line)["id"] for line in lines]
    assert not (games.parent / "versions").exists()
    assert (games.parent / "grades.json").exists()
