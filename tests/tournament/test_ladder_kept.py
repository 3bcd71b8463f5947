"""A season's run goes on from the totals the run before kept (ladder-state.json): its start
and end read no game of the runs before, and it writes every result byte a run that reads
the logs whole writes; a log that no longer matches its kept totals (a game edited, lines
cut, another folder's file, a voided list changed) is read whole and said in one line,
never ranked from the stale totals; games logged after the totals (a run a kill cut) are fed
from the log's end."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_ladder_runs import BOT, _season

from arena.tournament.formats.ladder.kept import STATE
from arena.tournament.formats.ladder.season import run_ladder
from arena.tournament.load import load_tournament
from arena.tournament.run import results
from arena.tournament.run.progress import Tally

RESULTS = ("games.jsonl", "ladder.json", "ladder-log.jsonl", "ladder-history.jsonl",
           "ladder-batches.jsonl", "standings.csv", "ratings.json", "crosstable.csv")


def _run(config: Path, out: Path, games: int, **extra: Any) -> list[str]:
    """One run of the season; the lines it said."""
    said: list[str] = []
    run_ladder(load_tournament(config), out, games, info=said.append, **extra)
    return said


def _results(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in RESULTS}


def _whole(config: Path, out: Path, games: int, **extra: Any) -> list[str]:
    """A run that finds no kept totals: it reads the logs whole, as before there were any."""
    (out / STATE).unlink(missing_ok=True)
    return _run(config, out, games, **extra)


def _unread(*_: Any) -> Iterator[Any]:
    raise AssertionError("a game of the runs before was read")
    yield


def test_a_run_s_start_and_end_read_no_game_of_the_runs_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, out = _season(tmp_path), tmp_path / "out"
    _run(config, out, 12)
    monkeypatch.setattr(results, "iter_games", _unread)
    monkeypatch.setattr(results, "iter_game_lines", _unread)
    seen: list[int] = []
    _run(config, out, 8, progress=lambda tally: seen.append(tally.done))
    assert seen[0] == 12 and seen[-1] == 20  # the progress counts the games before as ever
    assert len((out / "games.jsonl").read_bytes().splitlines()) == 20


def _grown(config: Path, out: Path, run: Callable[..., list[str]]) -> list[str]:
    """A season of three runs, a submission joining and a game voided between them, then its
    final: the lines each run said."""
    said = run(config, out, 8)
    (config.parent / "entries" / "alice.py").write_text(BOT.replace("VERSION", "one"), "utf-8")
    said += run(config, out, 10)
    first = json.loads((out / "games.jsonl").read_bytes().splitlines()[2])["id"]
    (out / "ladder-voided.json").write_text(json.dumps([first]) + "\n", encoding="utf-8")
    said += run(config, out, 12)
    return said + run(config, out, 0, final=2)


def test_runs_that_go_on_from_the_kept_totals_write_what_runs_reading_the_logs_whole_write(
    tmp_path: Path
) -> None:
    config = _season(tmp_path)
    kept, whole = tmp_path / "kept", tmp_path / "whole"
    said = _grown(config, kept, _run)
    (tmp_path / "entries" / "alice.py").unlink()
    _grown(config, whole, _whole)
    assert _results(kept) == _results(whole)
    assert (kept / STATE).read_bytes() == (whole / STATE).read_bytes()
    assert json.loads((kept / "ladder.json").read_text("utf-8"))["final"]["complete"]
    assert [line for line in said if STATE in line] == [  # the voided list changed
        f"note: {STATE} does not match the season's logs (the voided list changed): read whole"]


def _flip(out: Path) -> None:
    """One game's placements swapped, the log's length unchanged."""
    lines = (out / "games.jsonl").read_bytes().splitlines(keepends=True)
    for number, line in enumerate(lines):
        found = re.search(rb'"placements":\[(\d),(\d)\]', line)
        if found and found[1] != found[2]:
            swapped = b'"placements":[' + found[2] + b"," + found[1] + b"]"
            lines[number] = line.replace(found[0], swapped)
            break
    (out / "games.jsonl").write_bytes(b"".join(lines))


def _cut(out: Path) -> None:
    """The log's last three games cut off (a batch is finished again)."""
    lines = (out / "games.jsonl").read_bytes().splitlines(keepends=True)
    (out / "games.jsonl").write_bytes(b"".join(lines[:-3]))


def _forged(out: Path) -> None:
    """The kept file's totals changed, its own digest not."""
    kept = json.loads((out / STATE).read_text("utf-8"))
    kept["state"]["counted"] += 1
    (out / STATE).write_text(json.dumps(kept), encoding="utf-8")


def _torn(out: Path) -> None:
    (out / STATE).write_bytes((out / STATE).read_bytes()[:100])


@pytest.mark.parametrize(("change", "why"), [
    (_flip, "games.jsonl's first"), (_cut, "games.jsonl is shorter than its mark"),
    (_forged, "its digest differs"), (_torn, "not JSON")])
def test_a_log_that_no_longer_matches_its_kept_totals_is_read_whole(
    tmp_path: Path, change: Callable[[Path], None], why: str
) -> None:
    config = _season(tmp_path)
    kept, whole = tmp_path / "kept", tmp_path / "whole"
    _run(config, kept, 10)
    _run(config, whole, 10)
    change(kept)
    change(whole)
    said = _run(config, kept, 8)
    _whole(config, whole, 8)
    assert _results(kept) == _results(whole)
    notes = [line for line in said if STATE in line]
    assert len(notes) == 1 and why in notes[0] and notes[0].endswith(": read whole")


def test_games_logged_after_the_kept_totals_are_fed_from_the_log_s_end(tmp_path: Path) -> None:
    config = _season(tmp_path)
    kept, whole = tmp_path / "kept", tmp_path / "whole"
    for out in (kept, whole):
        _run(config, out, 8)
    shutil.copyfile(kept / STATE, tmp_path / "older")
    _run(config, kept, 10)
    _run(config, whole, 10)
    shutil.copyfile(tmp_path / "older", kept / STATE)  # as a kill before the end leaves it
    said = _run(config, kept, 6)
    _whole(config, whole, 6)
    assert not [line for line in said if STATE in line]
    assert _results(kept) == _results(whole)
    assert (kept / STATE).read_bytes() == (whole / STATE).read_bytes()


def test_the_progress_of_a_resumed_season_counts_every_game_logged(tmp_path: Path) -> None:
    config, out = _season(tmp_path), tmp_path / "out"
    _run(config, out, 10)
    ends: list[Tally] = []
    _run(config, out, 6, progress=ends.append)
    counted = Tally(0)
    for game in results.iter_games(out / "games.jsonl"):
        counted.add(game)
    last = ends[-1]
    assert (last.done, last.faults, last.leaders()) == (counted.done, counted.faults,
                                                         counted.leaders())
