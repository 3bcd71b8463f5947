"""The results folder: lock, append-only log, torn-tail repair, atomic writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arena.tournament.run import folder_lock, results
from arena.tournament.run.folder_lock import FolderLocked
from arena.tournament.run.results import GameLog, ResultsError


def _lines(*games: dict) -> bytes:
    return b"".join(json.dumps(g).encode() + b"\n" for g in games)


def _take(folder: Path) -> None:
    with folder_lock.locked(folder):
        pass


def test_a_second_lock_on_the_same_folder_is_refused_and_released_after(tmp_path: Path) -> None:
    busy = r"in use by another arena run \(process \d+\)"
    with folder_lock.locked(tmp_path / "out"), pytest.raises(FolderLocked, match=busy):
        _take(tmp_path / "out")
    with folder_lock.locked(tmp_path / "out") as folder:  # released: taken again at once
        assert folder == tmp_path / "out"


def test_the_lock_file_names_the_owner(tmp_path: Path) -> None:
    with folder_lock.locked(tmp_path):
        assert (tmp_path / results.LOCK).read_text() == f"{os.getpid()}\n"


def test_write_atomic_replaces_the_whole_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "ratings.json"
    target.write_text("old and much longer content\n")
    results.write_atomic(target, "new\n")
    assert target.read_text() == "new\n"
    results.write_atomic(target, b"\x00bytes", durable=False)
    assert target.read_bytes() == b"\x00bytes"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ratings.json"]


def test_a_replay_is_replaced_whole_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "rr-000001.json.gz"
    target.write_bytes(b"an older and much longer replay of the game")
    results.write_replaced(str(target), b"\x1f\x8bnew")
    assert target.read_bytes() == b"\x1f\x8bnew"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rr-000001.json.gz"]
    with pytest.raises(FileNotFoundError):
        results.write_replaced(str(tmp_path / "missing" / "g.json.gz"), b"x")


def test_write_atomic_keeps_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    target = tmp_path / "standings.md"
    target.write_text("old\n")
    with pytest.raises(TypeError):
        results.write_atomic(target, 12345)  # type: ignore[arg-type]
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["standings.md"]


def test_write_atomic_writes_parts_and_returns_the_size(tmp_path: Path) -> None:
    target = tmp_path / "stages.json"
    size = results.write_atomic(target, (part for part in ["{", b'"a":', '"\u00e9"', "}\n"]))
    assert target.read_text(encoding="utf-8") == '{"a":"\u00e9"}\n'
    assert size == 11  # bytes, not characters
    assert results.write_atomic(target, "x", durable=False) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stages.json"]


def test_a_game_file_reads_the_log_afresh_at_each_pass(tmp_path: Path) -> None:
    path = tmp_path / results.GAMES
    path.write_bytes(_lines({"id": "g1"}, {"id": "g2"}))
    games = results.GameFile(path)
    assert [g["id"] for g in games] == ["g1", "g2"]
    with open(path, "ab") as handle:
        handle.write(_lines({"id": "g3"}))
    assert [g["id"] for g in games] == ["g1", "g2", "g3"]
    assert iter(games) is not games
    assert list(results.GameFile(tmp_path / "none.jsonl")) == []


@pytest.mark.parametrize(
    ("tail", "kept"),
    [
        (b"", 2),  # nothing torn
        (b'{"id": "g3", "pla', 2),  # cut in the middle of a line
        (b'{"id": "g3"}', 2),  # whole object, but the newline never made it
        (b"\x00\x00\x00\x00\n", 2),  # zero-filled block after a crash: complete, unreadable
        (b"\n", 2),  # an empty last line
    ],
)
def test_repair_cuts_only_a_torn_tail(tmp_path: Path, tail: bytes, kept: int) -> None:
    path = tmp_path / results.GAMES
    good = _lines({"id": "g1"}, {"id": "g2"})
    path.write_bytes(good + tail)
    assert results.repair_games(path) == len(tail)
    assert path.read_bytes() == good
    assert [g["id"] for g in results.iter_games(path)] == ["g1", "g2"][:kept]


def test_repair_of_a_long_log_reads_only_its_end(tmp_path: Path) -> None:
    path = tmp_path / results.GAMES
    body = _lines(*({"id": f"g{i:05d}", "pad": "x" * 200} for i in range(2000)))
    path.write_bytes(body + b'{"id": "g02000", "pad": "xx')
    results.repair_games(path)
    assert path.read_bytes() == body


def test_repair_of_a_single_torn_line_empties_the_log(tmp_path: Path) -> None:
    path = tmp_path / results.GAMES
    path.write_bytes(b'{"id": "g1", "pla')
    assert results.repair_games(path) == 17
    assert path.read_bytes() == b""
    assert results.repair_games(tmp_path / "missing.jsonl") == 0


def test_a_bad_line_before_the_end_is_an_error_not_a_repair(tmp_path: Path) -> None:
    path = tmp_path / results.GAMES
    path.write_bytes(_lines({"id": "g1"}) + b"garbage\n" + _lines({"id": "g3"}))
    assert results.repair_games(path) == 0
    with pytest.raises(ResultsError, match=r"games.jsonl:2: not a game record"):
        list(results.iter_games(path))


def test_game_log_appends_whole_lines_and_syncs_on_close(tmp_path: Path) -> None:
    path = tmp_path / results.GAMES
    with GameLog(path, sync_every=3600) as log:
        log.append(['{"id":"g1"}'])
        assert path.read_bytes() == b'{"id":"g1"}\n'  # flushed at once, not at close
        log.append(['{"id":"g2"}', '{"id":"g3"}'])
    with GameLog(path) as log:  # appends, never truncates
        log.append(['{"id":"g4"}'])
    assert [g["id"] for g in results.iter_games(path)] == ["g1", "g2", "g3", "g4"]
    with pytest.raises(ResultsError, match="closed"):
        log.append(["{}"])
    log.close()  # twice is fine


def test_a_games_replay_is_whole_before_its_line_and_never_written_through_a_link(
    tmp_path: Path,
) -> None:
    """Whatever its name held (a torn replay a killed run left, a hard or symbolic link left
    by whoever sent the folder) is replaced, never written through; the line comes after."""
    replays = tmp_path / results.REPLAYS
    replays.mkdir()
    outside = tmp_path / "outside"
    outside.write_bytes(b"not arena's")
    os.link(outside, replays / "g1.json.gz")
    (replays / "g2.json.gz").symlink_to(outside)
    (replays / "g3.json.gz").write_bytes(b"a torn replay, much longer than the game's own")
    path = tmp_path / results.GAMES
    with GameLog(path, sync_every=3600) as log:
        for n in (1, 2, 3):
            name = f"{results.REPLAYS}/g{n}.json.gz"
            log.append_game(f'{{"id":"g{n}","replay":"{name}"}}', (name, b"\x1f\x8b%d" % n))
            assert (tmp_path / name).read_bytes() == b"\x1f\x8b%d" % n
            assert path.read_bytes().count(b"\n") == n
    assert outside.read_bytes() == b"not arena's"
    for n in (1, 2, 3):
        status = os.lstat(replays / f"g{n}.json.gz")
        assert status.st_nlink == 1 and not (replays / f"g{n}.json.gz").is_symlink()
    assert sorted(p.name for p in replays.iterdir()) == [f"g{n}.json.gz" for n in (1, 2, 3)]


def test_clear_removes_results_but_not_the_lock(tmp_path: Path) -> None:
    for name in (results.GAMES, results.CONFIG, *results.DERIVED, results.LOCK, "notes.txt"):
        (tmp_path / name).write_text("x")
    (tmp_path / results.REPLAYS).mkdir()
    (tmp_path / results.REPLAYS / "rr-1.json.gz").write_bytes(b"x")
    (tmp_path / ".games.jsonl.123.tmp").write_text("x")
    results.clear(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [results.LOCK, "notes.txt"]


def test_remove_temporaries_counts_what_it_removed(tmp_path: Path) -> None:
    (tmp_path / results.REPLAYS).mkdir()
    (tmp_path / results.REPLAYS / ".rr-1.json.gz.99.tmp").write_bytes(b"x")
    (tmp_path / results.REPLAYS / "rr-1.json.gz").write_bytes(b"x")
    (tmp_path / ".stages.json.99.tmp").write_text("x")
    assert results.remove_temporaries(tmp_path) == 2
    assert [p.name for p in (tmp_path / results.REPLAYS).iterdir()] == ["rr-1.json.gz"]


def test_foreign_lists_what_a_run_did_not_write(tmp_path: Path) -> None:
    assert results.foreign(tmp_path / "missing") == []
    for name in (results.GAMES, results.CONFIG, results.LOCK, *results.DERIVED):
        (tmp_path / name).write_text("x")
    (tmp_path / results.REPLAYS).mkdir()
    (tmp_path / ".ratings.json.12.tmp").write_text("x")
    assert results.foreign(tmp_path) == []
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "src").mkdir()
    assert results.foreign(tmp_path) == ["notes.txt", "src"]


def test_a_released_lock_leaves_no_file_even_one_a_killed_run_left(tmp_path: Path) -> None:
    _take(tmp_path)
    assert not (tmp_path / results.LOCK).exists()
    (tmp_path / results.LOCK).write_text("12345\n")  # what `kill -9` of a run leaves
    with folder_lock.locked(tmp_path):
        assert (tmp_path / results.LOCK).read_text() == f"{os.getpid()}\n"
    assert list(tmp_path.iterdir()) == []


def test_a_place_written_in_place_is_never_a_link_or_of_the_other_kind(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "replays").symlink_to(elsewhere)
    with pytest.raises(ResultsError, match=r"replays: a symbolic link; arena writes only "):
        results.own(tmp_path / "replays", folder=True, make=True)
    (tmp_path / "games.jsonl").mkdir()
    with pytest.raises(ResultsError, match=r"games\.jsonl: not a regular file"):
        GameLog(tmp_path / "games.jsonl")
    (tmp_path / "log").symlink_to(elsewhere / "log")
    with pytest.raises(ResultsError, match="log: a symbolic link"):
        results.repair_games(tmp_path / "log")
    assert results.own(tmp_path / "chances", folder=True, make=True).is_dir()
    assert list(elsewhere.iterdir()) == []
