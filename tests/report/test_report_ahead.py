"""A run ends when its games end (issue 34): the report's pass is kept up with the run as it
plays (arena/report/ahead.py), so the report at the end reads only the replays after its
last checkpoint, and writes the very page a build from the first game makes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.report import viewer
from arena.report.ahead import ReportAhead
from arena.report.as_played import ViewerNotes
from arena.report.html import build_report
from arena.tournament.load import load_tournament
from arena.tournament.run import results, safe_read
from arena.tournament.run.runner import run_tournament

CONFIG = """\
name: t
rules: dice
entrants: [random, {bot: random, alias: ana}, {bot: random, alias: bruno}]
format: {type: round-robin, seats: 2, games: 4}
seed: 2
workers: 1
"""


def test_the_report_at_the_end_reads_only_the_games_after_the_run_s_last_catch_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(viewer, "PACK", 2)  # 24 games: 12 packs
    (tmp_path / "t.yaml").write_text(CONFIG)
    cfg = load_tournament(tmp_path / "t.yaml")
    folder, read = tmp_path / "t", []
    real = safe_read.replay_bytes

    def counted(replay: str, root: Path) -> bytes:
        read.append(replay)
        return real(replay, root)

    def end(where: Path, count: int) -> object:
        monkeypatch.setattr(safe_read, "replay_bytes", counted)
        try:
            return build_report(where, workers=count)
        finally:
            monkeypatch.setattr(safe_read, "replay_bytes", real)

    run_tournament(cfg, folder, workers=1, after=end,
                   notes=ReportAhead(ViewerNotes(folder), every=4))
    listed = [g["replay"] for g in results.iter_games(folder / results.GAMES)]
    assert len(listed) == 24 and 0 < len(read) < 24 // 2  # a quarter of the log at most
    assert set(read) <= set(listed[-len(read):])  # the last games only
    afresh = tmp_path / "afresh"  # the same folder, no report's pass kept: built from game 1
    shutil.copytree(folder, afresh, ignore=shutil.ignore_patterns(
        ".lock", "pack-*", "report.html", "viewer.html", "viewer-rules.js", "chances"))
    build_report(afresh, workers=1)
    for name in ("report.html", "viewer.html"):
        assert (afresh / name).read_bytes() == (folder / name).read_bytes(), name
