"""A run ends when its games end (issue 34): the report's pass is kept up with the run as it
plays (arena/report/ahead.py), each game tallied by the worker that played it, so the report
at the end reads no replay of a whole pack the run wrote, and writes the very page a build
from the first game makes."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.report import ahead as ahead_module
from arena.report import increment, viewer
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


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The replays read from now on, by their names in the log."""
    read: list[str] = []
    real = safe_read.replay_bytes

    def counted(replay: str, root: Path) -> bytes:
        read.append(replay)
        return real(replay, root)

    monkeypatch.setattr(safe_read, "replay_bytes", counted)
    return read


def _counted_end(monkeypatch: pytest.MonkeyPatch,
                 read: list[list[str]]) -> Callable[[Path, int], object]:
    """A run's `after`: its report built, the replays it read appended to `read`."""
    real = safe_read.replay_bytes

    def end(where: Path, count: int) -> object:
        read.append(_counting(monkeypatch))
        try:
            return build_report(where, workers=count)
        finally:
            monkeypatch.setattr(safe_read, "replay_bytes", real)

    return end


def _same_as_afresh(folder: Path, afresh: Path) -> None:
    """The report of `folder` is the one a build from the first game makes of a copy."""
    shutil.copytree(folder, afresh, ignore=shutil.ignore_patterns(
        ".lock", "pack-*", "report.html", "viewer.html", "viewer-rules.js", "chances"))
    build_report(afresh, workers=1)
    for name in ("report.html", "viewer.html"):
        assert (afresh / name).read_bytes() == (folder / name).read_bytes(), name


@pytest.mark.parametrize("pack", [2, 5])
def test_the_report_at_the_end_reads_no_replay_of_a_whole_pack_the_run_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pack: int
) -> None:
    monkeypatch.setattr(viewer, "PACK", pack)  # 24 games: 12 whole packs, or 4 and 4 games
    (tmp_path / "t.yaml").write_text(CONFIG)
    cfg = load_tournament(tmp_path / "t.yaml")
    folder, read = tmp_path / "t", []
    end = _counted_end(monkeypatch, read)
    caught = []
    real_read = increment.read_games

    def spied(*args: object, **kwargs: object) -> increment.Passed:
        caught.append(kwargs.get("ahead"))
        return real_read(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ahead_module, "read_games", spied)
    run_tournament(cfg, folder, workers=1, after=end,
                   notes=ReportAhead(ViewerNotes(folder), every=4))
    listed = [g["replay"] for g in results.iter_games(folder / results.GAMES)]
    assert len(listed) == 24 and caught  # caught up as it played, and at its end
    assert read[0] == listed[24 - 24 % pack:]  # only the last pack's, when it is not whole
    _same_as_afresh(folder, tmp_path / "afresh")


def test_a_replay_changed_after_the_run_wrote_it_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(viewer, "PACK", 2)
    (tmp_path / "t.yaml").write_text(CONFIG)
    folder = tmp_path / "t"
    notes = ViewerNotes(folder)
    run_tournament(load_tournament(tmp_path / "t.yaml"), folder, workers=1, notes=notes)
    listed = [g["replay"] for g in results.iter_games(folder / results.GAMES)]
    changed = folder / listed[5]  # pack 2's second game: the same bytes, written again
    data = changed.read_bytes()
    changed.unlink()
    changed.write_bytes(data)
    read = _counting(monkeypatch)
    ReportAhead.catch_up(folder, notes.ahead)
    assert set(listed[4:6]) <= set(read)  # its pack read from the folder again
    monkeypatch.undo()
    build_report(folder, workers=1)
    _same_as_afresh(folder, tmp_path / "afresh")


def test_a_resumed_run_reads_only_the_pack_begun_before_it_and_its_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(viewer, "PACK", 5)  # 24 games: packs of 5, the last of 4
    (tmp_path / "t.yaml").write_text(CONFIG)
    cfg = load_tournament(tmp_path / "t.yaml")
    folder = tmp_path / "t"
    run_tournament(cfg, folder, workers=1, after=lambda where, count: build_report(where),
                   notes=ReportAhead(ViewerNotes(folder)))
    log = folder / results.GAMES
    log.write_text("".join(log.read_text().splitlines(keepends=True)[:7]))  # pack 1 begun
    read: list[list[str]] = []
    run_tournament(cfg, folder, workers=1, resume=True, after=_counted_end(monkeypatch, read),
                   notes=ReportAhead(ViewerNotes(folder)))
    listed = [g["replay"] for g in results.iter_games(folder / results.GAMES)]
    assert len(listed) == 24 and read[0] == listed[20:]  # the last pack's 4 games only
    _same_as_afresh(folder, tmp_path / "afresh")
