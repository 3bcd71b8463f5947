"""The chances the viewer shows, as arena.report.chances computes them from a replay: one for
every claim and every response of every rule set and table size, the claimant's own chance
certain when it has just seen the hand, and the same answer whether the statistician would
weigh the claims or not (the tables' prior only). The counts against brute force are in
tests/report/test_viewer_in_browser.py, read from the page."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from arena import play_game
from arena.replay import encode_replay, replay_lines
from arena.report import viewer
from arena.report.chances import (
    chances_stamp,
    game_chances,
    turning_point,
    viewer_data,
    viewer_json,
)
from arena.report.html import build_report
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

SEATS = {"dice": (2, 6), "dice-cards": (2, 6), "cards": (3, 6)}
SMALL = """\
name: t
rules: dice
entrants: [random, {bot: random, alias: ana}, {bot: random, alias: bruno}]
format: {type: round-robin, seats: 2, games: 1}
seed: 2
workers: 1
"""


def _lines(rules: str, seats: int, seed: int) -> list[dict[str, Any]]:
    players = ["random", "statistician", "bluffer", "honest", "random", "statistician"][:seats]
    record = play_game(rules, players, seed=seed, options={})
    entrants = [{"name": f"p{i}", "bot": "x", "origin": "t", "version": "0", "mode": "inline"}
                for i in range(seats)]  # fmt: skip
    return replay_lines(record, {"id": f"{rules}-{seed}"}, entrants)


@pytest.mark.parametrize("rules", sorted(SEATS))
@pytest.mark.parametrize("end", [0, 1])
def test_every_claim_and_response_has_a_chance(rules: str, end: int) -> None:
    seats = SEATS[rules][end]
    lines = _lines(rules, seats, seed=3 + seats)
    chances = game_chances(lines)
    actions = [e for e in lines if e["type"] == "action"]
    events = [e["event"]["kind"] for e in lines if e["type"] == "event"]
    claims = events.count("claim") + events.count("pass")
    responses = sum(1 for a in actions if a["action"]["type"] in ("challenge", "look", "accept"))
    assert sum(c.claim for c in chances) == claims
    assert sum(not c.claim for c in chances) == responses
    assert all(0 <= c.chance <= 1 and actions[c.decision]["seat"] == c.seat for c in chances)
    assert all((c.bluff is None) != c.claim for c in chances)


def test_a_claim_just_after_seeing_the_dice_is_certain_either_way() -> None:
    lines = _lines("dice", 3, seed=9)
    chances = {c.decision: c for c in game_chances(lines)}
    decision, seen = -1, False
    for entry in lines[1:-1]:
        if entry["type"] == "action":
            decision += 1
            seen = seen and entry["action"]["type"] == "bid"
        elif entry["type"] == "event":
            event = entry["event"]
            if event.get("to") is not None and "hand" in event:
                seen = True
            if event["kind"] == "claim" and seen and not event["blind"]:
                claim = chances[decision]
                assert claim.chance == (0.0 if claim.bluff else 1.0)


def test_the_viewer_data_is_the_chances_in_pairs_and_the_turning_point() -> None:
    lines = _lines("cards", 4, seed=2)
    chances = game_chances(lines)
    data = json.loads(viewer_json(gzip.decompress(encode_replay(lines))))
    assert data == viewer_data(lines)
    decisions = [sum(data["d"][: i + 1 : 2]) - 1 for i in range(0, len(data["d"]), 2)]
    assert decisions == [c.decision for c in chances]
    codes = data["d"][1::2]
    assert [code // 3 for code in codes] == [round(c.chance * 1000) for c in chances]
    assert [code % 3 for code in codes] == [0 if not c.claim else 1 + bool(c.bluff)
                                            for c in chances]  # fmt: skip
    assert data["t"] == turning_point(chances, lines) and data["t"] is not None


def test_a_replay_that_cannot_be_followed_has_no_chances() -> None:
    assert viewer_json(b'{"type":"header"}\nnot json\n') == b"null"


def test_a_second_report_keeps_the_chances_of_unchanged_packs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(viewer, "PACK", 2)  # six games: three packs
    (tmp_path / "t.yaml").write_text(SMALL)
    folder = tmp_path / "t"
    run_tournament(load_tournament(tmp_path / "t.yaml"), folder, workers=1)
    build_report(folder, workers=1)
    chances = sorted((folder / "replays" / "chances").glob("pack-*.js"))
    assert chances and all(p.read_bytes().startswith(chances_stamp()) for p in chances)
    kept = {p: p.stat().st_ino for p in chances}
    stale = chances[0].read_bytes().replace(chances_stamp(), b"/* arena chances old */\n", 1)
    chances[0].write_bytes(stale)  # made by other code: made again
    build_report(folder, workers=1)
    assert chances[0].read_bytes().startswith(chances_stamp())
    assert chances[0].stat().st_ino != kept[chances[0]]
    assert all(p.stat().st_ino == kept[p] for p in chances[1:])  # untouched


class _Killed(BaseException):
    """What a kill -9 does to a report: it stops between two writes."""


def test_a_report_killed_between_a_pack_and_its_chances_leaves_none_stale(
    dice_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from arena.report import scan

    copy = tmp_path / "copy"
    shutil.copytree(dice_folder, copy, ignore=shutil.ignore_patterns(".lock"))
    packs = copy / "replays"
    fresh = (packs / viewer.chances_name(0)).read_bytes()
    (packs / viewer.pack_name(0)).unlink()  # a pack that changes, as a running one's last
    (packs / viewer.chances_name(0)).write_bytes(chances_stamp() + viewer.chances_script([]))
    real, writes = scan._write_pack, [0]

    def killed(path: Path, content: bytes) -> None:
        writes[0] += 1
        if writes[0] == 2:
            raise _Killed
        real(path, content)

    monkeypatch.setattr(scan, "_write_pack", killed)
    with pytest.raises(_Killed):
        build_report(copy, workers=1)
    monkeypatch.setattr(scan, "_write_pack", real)
    build_report(copy, workers=1)  # the report of the resumed run
    assert (packs / viewer.chances_name(0)).read_bytes() == fresh
