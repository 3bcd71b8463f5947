"""A run ends when its games end (issue 34): the viewer's chances are made in the workers as
each game ends and its packs written as the run plays (arena/report/as_played.py), so the
report at the end walks no game again, and writes the very bytes it would have made itself."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_support import invoke_cli

from arena.report import scan, viewer
from arena.report.as_played import ViewerNotes
from arena.report.chances import viewer_json
from arena.report.html import build_report
from arena.tournament.load import load_tournament
from arena.tournament.run import results
from arena.tournament.run.runner import run_tournament

SMALL = """\
name: t
rules: dice
entrants: [random, {bot: random, alias: ana}, {bot: random, alias: bruno}]
format: {type: round-robin, seats: 2, games: 1}
seed: 2
workers: 1
"""


class _Walked(AssertionError):
    """The report computed a game's chances at the end."""


def _never(text: bytes) -> bytes:
    raise _Walked("the report walked a game at the end")


def _packs(folder: Path) -> dict[str, bytes]:
    """The viewer's packs and chances packs, by path under replays/."""
    replays = folder / results.REPLAYS
    return {str(p.relative_to(replays)): p.read_bytes() for p in sorted(replays.rglob("pack-*"))}


def _made_afresh(folder: Path, into: Path) -> dict[str, bytes]:
    """The packs a report writes from the folder's replays alone, none made before."""
    shutil.copytree(folder, into, ignore=shutil.ignore_patterns(".lock", "pack-*"))
    build_report(into, workers=1)
    return _packs(into)


@pytest.fixture
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(viewer, "PACK", 2)  # six games: three packs
    (tmp_path / "t.yaml").write_text(SMALL)
    return tmp_path / "t.yaml"


def test_the_packs_made_as_the_run_plays_are_the_reports_and_the_end_walks_no_game(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "t"
    run_tournament(load_tournament(small), folder, workers=1, notes=ViewerNotes(folder))
    assert len(_packs(folder)) == 6  # three packs, three chances packs, before any report
    monkeypatch.setattr(scan, "viewer_json", _never)
    build_report(folder, workers=1)
    monkeypatch.setattr(scan, "viewer_json", viewer_json)
    assert _packs(folder) == _made_afresh(folder, tmp_path / "afresh")


def test_a_resumed_run_leaves_the_pack_begun_before_it_to_the_report(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "t"
    run_tournament(load_tournament(small), folder, workers=1)
    log = folder / results.GAMES
    log.write_text("".join(log.read_text().splitlines(keepends=True)[:3]))  # pack 1 half made
    for pack in (folder / results.REPLAYS).rglob("pack-*"):
        pack.unlink()
    run_tournament(load_tournament(small), folder, workers=1, resume=True,
                   notes=ViewerNotes(folder))
    walked: list[bytes] = []
    monkeypatch.setattr(scan, "viewer_json", lambda text: walked.append(text) or viewer_json(text))
    build_report(folder, workers=1)
    assert len(walked) == 4  # packs 0 and 1, begun before the run: made by the report
    assert _packs(folder) == _made_afresh(folder, tmp_path / "afresh")


def test_a_pack_the_log_no_longer_matches_is_made_again_by_the_report(
    small: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "t"
    run_tournament(load_tournament(small), folder, workers=1, notes=ViewerNotes(folder))
    kept = next(iter(results.iter_games(folder / results.GAMES)))
    (folder / kept["replay"]).write_bytes((folder / kept["replay"]).read_bytes()[:-1] + b"x")
    build_report(folder, workers=1)  # the replay changed under its pack: the pack is made again
    assert _packs(folder) == _made_afresh(folder, tmp_path / "afresh")


def test_arena_run_makes_the_chances_as_it_plays(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scan, "viewer_json", _never)
    result = invoke_cli("run", small, "--out", tmp_path / "t", "--quiet")
    assert result.exit_code == 0, result.output
    assert len(_packs(tmp_path / "t")) == 6


def test_chances_that_fail_in_the_worker_never_stop_the_run(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.report import as_played

    def broken(*given: object) -> bytes:
        raise ZeroDivisionError("a bug in the chances")

    monkeypatch.setattr(as_played, "record_json", broken)  # both ways to the chances
    monkeypatch.setattr(as_played, "viewer_json", broken)
    folder = tmp_path / "t"
    report = run_tournament(load_tournament(small), folder, workers=1, notes=ViewerNotes(folder))
    assert report.played == 6
    chances = (folder / results.REPLAYS / viewer.chances_name(0)).read_bytes()
    assert chances.count(b"]=null;") == 2  # the viewer shows none; the games stand
