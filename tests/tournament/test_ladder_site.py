"""What a site's season asks of the ladder (issue 35): games the organiser voided leave the
ranking (games.jsonl keeps them), and content once rejected is tried again when its digest
is passed as a re-run, and only then."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from test_ladder_runs import BOT as GOOD

from arena.limits import Limits
from arena.tournament.formats.ladder.log import VOIDED, read_log
from arena.tournament.formats.ladder.season import run_ladder
from arena.tournament.load import load_tournament

CONFIG = """\
name: season
rules: dice
options: {max_points: 1}
entrants: [honest, random, bluffer]
submissions: entries/
format: {type: ladder, seats: 2, min_games: 2, batch: 2, band: 2}
seed: 5
replays: false
"""
SLOW = GOOD.replace("        return arena.random_action",
                    "        import time\n        time.sleep(0.25)\n"
                    "        return arena.random_action")
"""A bot that sleeps 0.25 s a decision: 2.5 times the hurried limit's wall (0.05 s x
wall_factor 2; a sleep is billed no CPU, so the wall stops it; run-queue waits are not
excused, so load cannot save it) and a quarter of the default limit's 1 s, within it at any
load; every sleep is waited for, 0.5 s made the test wait 4 s."""


def _config(root: Path, **bots: str) -> Path:
    (root / "entries").mkdir(exist_ok=True)
    for name, text in bots.items():
        (root / "entries" / f"{name}.py").write_text(text, "utf-8")
    (root / "ladder.yaml").write_text(CONFIG, "utf-8")
    return root / "ladder.yaml"


def _games(row: dict, ranking: list[dict]) -> int:
    return next(r["games"] for r in ranking if r["player"] == row["player"])


def test_a_voided_game_leaves_the_ranking_and_stays_in_games_jsonl(tmp_path: Path) -> None:
    cfg, out = load_tournament(_config(tmp_path)), tmp_path / "out"
    before = run_ladder(cfg, out, 8).ladder
    lines = (out / "games.jsonl").read_bytes()
    first = json.loads(lines.splitlines()[0])
    (out / VOIDED).write_text(json.dumps([first["id"]]), "utf-8")
    after = run_ladder(cfg, out, 0).ladder
    assert (out / "games.jsonl").read_bytes() == lines, "games.jsonl only grows"
    for player in first["entrants"]:
        old = next(r for r in before["ranking"] if r["player"] == player)
        assert _games(old, after["ranking"]) == old["games"] - 1
    others = [r for r in before["ranking"] if r["player"] not in first["entrants"]]
    assert all(_games(r, after["ranking"]) == r["games"] for r in others)
    assert after["games"] == before["games"] - 1


def test_rejected_content_is_tried_again_only_when_its_digest_is_a_retry(tmp_path: Path) -> None:
    cfg = load_tournament(_config(tmp_path, alice=SLOW))
    out = tmp_path / "out"
    hurried = replace(cfg, limits=Limits(decision=0.05))
    run_ladder(hurried, out, 4)
    rejected = [e for e in read_log(out) if e["entrant"] == "alice"]
    assert [(e["player"], e["status"]) for e in rejected] == [("alice@1", "rejected")]
    assert rejected[0]["reason"].startswith("timeout in its validation game")
    run_ladder(cfg, out, 0)
    assert [e for e in read_log(out) if e["entrant"] == "alice"] == rejected, \
        "without a retry, rejected content is not tried again"
    run_ladder(cfg, out, 4, retry=[rejected[0]["digest"]])
    tried = [(e["player"], e["status"]) for e in read_log(out) if e["entrant"] == "alice"]
    assert tried == [("alice@1", "rejected"), ("alice@2", "active")]
