"""A report rebuilt from the last build's checkpoint (arena/report/built.py, increment.py) is
the very bytes a build from the first game makes, and a checkpoint is believed only while
what it was made from is untouched: a changed, cut or replaced games.jsonl or replay, or a
state that came with a copied folder, makes the build start over."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import arena.report.viewer
from arena.report.built import ROWS, STATE
from arena.report.folder import ReportError
from arena.report.html import build_report
from arena.report.live import Live
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

CONFIG = """\
name: steps
rules: dice
options: {max_points: 1}
entrants: [random, {bot: random, alias: ana}, {bot: random, alias: bruno}]
format: {type: round-robin, seats: 2, games: 4}
seed: 11
workers: 1
"""
STATE_FILES = {f"replays/chances/{STATE}"}
"""What differs between two folders' builds by nature: the state's keys (inodes, times)."""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("steps")
    (root / "t.yaml").write_text(CONFIG)
    run_tournament(load_tournament(root / "t.yaml"), root / "out", workers=1)
    return root / "out"


@pytest.fixture(autouse=True)
def small_packs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three games a pack, so a dozen games make several packs and a partial one."""
    monkeypatch.setattr(arena.report.viewer, "PACK", 3)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and str(p.relative_to(folder)) not in STATE_FILES}  # fmt: skip


def _copy(folder: Path, to: Path) -> Path:
    shutil.copytree(folder, to, ignore=shutil.ignore_patterns(".lock"))
    return to


def _full(folder: Path, to: Path) -> dict[str, bytes]:
    """What a build from the first game makes of the folder as it is now."""
    copy = _copy(folder, to)
    shutil.rmtree(copy / "replays" / "chances", ignore_errors=True)
    for pack in (copy / "replays").glob("pack-*.js"):
        pack.unlink()
    build_report(copy, workers=1)
    return _files(copy)


def _assert_full(folder: Path, to: Path) -> None:
    """Every file is what a build from the first game makes; a cut log's packs past its end
    are left (as a full build leaves them: the viewer is never sent there)."""
    made, full = _files(folder), _full(folder, to)
    left = {name for name in made.keys() - full.keys() if "/pack-" in name}
    assert {name: made[name] for name in made.keys() - left} == full


def _write_log(folder: Path, lines: list[str], like: Path) -> None:
    (folder / "games.jsonl").write_text("".join(lines))
    stat = like.stat()  # the header says when the log was last written: the same in both
    os.utime(folder / "games.jsonl", ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_a_report_built_in_steps_is_the_full_builds_bytes(played: Path, tmp_path: Path) -> None:
    lines = (played / "games.jsonl").read_text().splitlines(keepends=True)
    assert len(lines) == 24
    folder = _copy(played, tmp_path / "steps")
    (folder / "replays" / "rr-000022.json.gz").unlink()  # missing, in a pack not full
    for count in (1, 3, 4, 8, 8, 9, 17, 22, 22):  # a partial pack, a full one, none new
        _write_log(folder, lines[:count], played / "games.jsonl")
        summary = build_report(folder, workers=1,
                               live=Live(count, 24, "now") if count < 22 else None)  # fmt: skip
        assert summary.missing == (("rr-000022",) if count >= 22 else ())
        assert summary.replays == count - (count >= 22)
    _assert_full(folder, tmp_path / "full")
    assert (folder / "replays" / "chances" / ROWS).stat().st_size  # the rows were kept


def _edit_log(folder: Path) -> None:
    """An early game's score changed, the line's length kept."""
    path = folder / "games.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    game = json.loads(lines[0])
    game["scores"] = [9 - s for s in game["scores"]]
    lines[0] = json.dumps(game) + "\n"
    path.write_text("".join(lines))


def _cut_log(folder: Path) -> None:
    path = folder / "games.jsonl"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:5]))


def _replace_log(folder: Path) -> None:
    """Another file of the same games but the first two swapped, renamed over the log."""
    lines = (folder / "games.jsonl").read_text().splitlines(keepends=True)
    (folder / "other").write_text("".join([lines[1], lines[0], *lines[2:]]))
    (folder / "other").rename(folder / "games.jsonl")


def _rewrite_replay(folder: Path) -> None:
    """A packed replay overwritten in place with another game's bytes, its time set back."""
    target = folder / "replays" / "rr-000001.json.gz"
    stat = target.stat()
    target.write_bytes((folder / "replays" / "rr-000002.json.gz").read_bytes())
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _rename_replay(folder: Path) -> None:
    replays = folder / "replays"
    shutil.copy(replays / "rr-000005.json.gz", replays / "x")
    (replays / "x").rename(replays / "rr-000004.json.gz")


def _drop_replay(folder: Path) -> None:
    (folder / "replays" / "rr-000002.json.gz").unlink()


def _touch_pack(folder: Path) -> None:
    (folder / "replays" / "pack-00000.js").write_bytes(b"window.ARENA_REPLAY={};\n")


@pytest.mark.parametrize("change", [_edit_log, _cut_log, _replace_log, _rewrite_replay,
                                    _rename_replay, _drop_replay, _touch_pack])  # fmt: skip
def test_a_changed_cut_or_replaced_log_replay_or_pack_is_noticed(
    played: Path, tmp_path: Path, change: Callable[[Path], None]
) -> None:
    folder = _copy(played, tmp_path / "built")
    build_report(folder, workers=1)
    change(folder)
    build_report(folder, workers=1)
    _assert_full(folder, tmp_path / "full")


def _lie(state: Path) -> None:
    """A state that says every game was a blowout and lists games in another order."""
    data = json.loads(state.read_text())
    data["built"]["tally"] = [[*key[:-1], 1000] for key in data["built"]["tally"]]
    data["built"]["spreads"] = {name: [[0, 99]] for name in data["built"]["spreads"]}
    state.write_text(json.dumps(data))


def test_a_state_that_came_with_a_copied_folder_is_not_believed(
    played: Path, tmp_path: Path
) -> None:
    built = _copy(played, tmp_path / "built")
    build_report(built, workers=1)
    _lie(built / "replays" / "chances" / STATE)
    rows = built / "replays" / "chances" / ROWS
    rows.write_bytes(rows.read_bytes().replace(b"\t0,1\t", b"\t1,0\t"))
    sent = _copy(built, tmp_path / "sent")  # another inode and change time for every file
    build_report(sent, workers=1)
    assert _files(sent) == _full(played, tmp_path / "full")


@pytest.mark.parametrize("kind", ["link", "fifo", "garbage", "deep", "folder"])
def test_a_state_file_that_is_not_one_is_a_full_build_not_a_crash(
    played: Path, tmp_path: Path, kind: str
) -> None:
    folder = _copy(played, tmp_path / "built")
    build_report(folder, workers=1)
    state = folder / "replays" / "chances" / STATE
    state.unlink()
    if kind == "link":
        (tmp_path / "elsewhere.json").write_text("{}")
        state.symlink_to(tmp_path / "elsewhere.json")
    elif kind == "fifo":
        os.mkfifo(state)
    elif kind == "garbage":
        state.write_text('{"stamp": 1, "built": [')
    elif kind == "deep":
        state.write_text("[" * 100_000 + "]" * 100_000)
    else:
        state.mkdir()
    if kind == "folder":  # a state that cannot be replaced is a clear error, not a traceback
        with pytest.raises(ReportError, match="cannot write the viewer's packs"):
            build_report(folder, workers=1)
        return
    build_report(folder, workers=1)
    assert _files(folder) == _full(played, tmp_path / "full")
