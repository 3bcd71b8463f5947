"""A long run refreshes its tables and report.html while it plays (marked in progress), every
pack the page links there before it; the end of the run writes what a run without refreshes
writes; a refresh that fails is a note; an interrupted run with a live page resumes."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_support import invoke_cli as _invoke
from cli_support import write_config as _write

from arena.cli import run as run_cli
from arena.report import header
from arena.report.html import build_report
from arena.report.viewer import pack_name
from arena.tournament.load import load_tournament
from arena.tournament.run import results
from arena.tournament.run.progress import Tally
from arena.tournament.run.runner import Interrupted, run_tournament

SMALL = """
    name: small
    rules: dice
    entrants:
      - random
      - honest
      - bot: random
        alias: other
    format:
      type: round-robin
      seats: 2
      games: 1
    seed: 5
"""
GAMES_DATA = re.compile(r'<script type="application/json" id="games-data">(.*?)</script>',
                        re.DOTALL)


@pytest.fixture
def one_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every report made in the test says it was played in the same minute: the header's
    "played" is games.jsonl's modification time, the one wall-clock fact report.html holds,
    and two runs made seconds apart can end either side of a minute."""
    monkeypatch.setattr(header, "played_at", lambda data: "2026-01-01 00:00 UTC")


def _final(folder: Path, count: int) -> None:
    build_report(folder, workers=count)


def _files(folder: Path) -> tuple[list[str], dict[str, bytes]]:
    """The names of every file a run and its report leave, and the bytes of those that hold
    no seconds (replays and packs keep each decision's) or paths (config.yaml); report.html
    holds a minute, which a test that compares two runs' pins (`one_minute`). A machine too
    loaded for the time limits is the machine's, not the results': its load.json, and the
    report's header that tells it, are left out where a run has one."""
    names = sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                   if p.is_file() and p.name != results.LOAD)
    pages = () if (folder / results.LOAD).exists() else results.PAGES
    same = ("games.jsonl", *results.DERIVED, *pages,
            *[results.GRADES] * (folder / results.GRADES).exists())
    return names, {name: (folder / name).read_bytes() for name in same}


def assert_same_files(one: Path, other: Path) -> None:
    """The same files, and the same bytes in those `_files` compares in both."""
    (names, data), (other_names, other_data) = _files(one), _files(other)
    assert names == other_names
    assert {k: v for k, v in data.items() if k in other_data} == {
        k: v for k, v in other_data.items() if k in data}


class Spy:
    """The CLI's live rebuild, then a look at the folder as a reader would see it."""

    def __init__(self) -> None:
        self.rebuild = run_cli._live_report(60.0)
        self.seen: list[tuple[int, str, str]] = []

    def __call__(self, folder: Path, tally: Tally) -> None:
        self.rebuild(folder, tally)
        page = (folder / "report.html").read_text()
        games = json.loads(GAMES_DATA.search(page).group(1))["games"]  # type: ignore[union-attr]
        for row in games:  # every pack the page links is there already
            assert row[-1] < 0 or (folder / results.REPLAYS / pack_name(row[-1])).is_file()
        assert len(games) == tally.done
        standings = (folder / "standings.csv").read_text()
        self.seen.append((tally.done, page, standings))


@pytest.mark.usefixtures("one_minute")
def test_a_run_refreshes_its_report_while_it_plays(tmp_path: Path) -> None:
    cfg = load_tournament(_write(tmp_path, SMALL))
    spy = Spy()
    run_tournament(cfg, tmp_path / "live", workers=1, during=spy, refresh=0.0, after=_final)
    assert [done for done, _, _ in spy.seen] == [1, 2, 3, 4, 5, 6]  # every game at 0 s
    done, page, standings = spy.seen[2]
    assert "<title>(in progress) small · arena report</title>" in page
    assert '<meta http-equiv="refresh" content="60">' in page
    banner = re.search(r'<p class="live"[^>]*>(.*?)</p>', page)
    assert banner is not None and banner.group(1).startswith(
        "Tournament in progress: 3 of 6 games played (50%), as of ")
    assert banner.group(1).endswith(
        "This page is remade every 1 minute and reloads itself; the final report replaces "
        "it when the run ends.")
    rows = standings.splitlines()[1:]
    assert sum(int(row.split(",")[2]) for row in rows) == 2 * done  # two seats a game
    final = (tmp_path / "live" / "report.html").read_text()
    assert "in progress" not in final and 'class="live"' not in final
    run_tournament(cfg, tmp_path / "plain", workers=1, after=_final)
    assert_same_files(tmp_path / "live", tmp_path / "plain")


def test_a_failed_refresh_is_a_note_and_the_run_goes_on(tmp_path: Path) -> None:
    cfg = load_tournament(_write(tmp_path, SMALL))
    notes: list[str] = []

    def broken(folder: Path, tally: Tally) -> None:
        raise OSError("disk full")

    report = run_tournament(cfg, tmp_path / "out", workers=1, info=notes.append,
                            during=broken, refresh=0.0)
    assert report.played == 6
    said = [n for n in notes if "refreshed" in n]
    note = ("note: the report was not refreshed mid-run (OSError: disk full); the final one "
            "is written at the end")
    assert said == [note] * 6


@pytest.mark.usefixtures("one_minute")
def test_a_run_stopped_at_a_refresh_resumes_to_the_same_files(tmp_path: Path) -> None:
    cfg = load_tournament(_write(tmp_path, SMALL))
    spy = Spy()

    def stops(folder: Path, tally: Tally) -> None:
        spy(folder, tally)
        if tally.done == 3:
            raise KeyboardInterrupt  # Ctrl-C while the page is rebuilt

    with pytest.raises(Interrupted):
        run_tournament(cfg, tmp_path / "out", workers=1, during=stops, refresh=0.0)
    assert "Tournament in progress: 3 of 6" in (tmp_path / "out" / "report.html").read_text()
    run_tournament(cfg, tmp_path / "out", workers=1, resume=True, after=_final)
    run_tournament(cfg, tmp_path / "plain", workers=1, after=_final)
    assert_same_files(tmp_path / "out", tmp_path / "plain")


def test_refresh_minutes_reach_the_run_and_0_turns_it_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[Any] = []
    real = run_cli._live_report

    def spy(every: float) -> Any:
        asked.append(every)
        return real(every)

    monkeypatch.setattr(run_cli, "_live_report", spy)
    config = _write(tmp_path, SMALL)
    assert _invoke("run", config, "--out", tmp_path / "a", "-q", "--refresh", "0").exit_code == 0
    assert asked == []
    assert _invoke("run", config, "--out", tmp_path / "b", "-q").exit_code == 0
    assert asked == [300.0]  # five minutes by default
    assert _invoke("run", config, "--out", tmp_path / "c", "-q", "--refresh", "0.5").exit_code == 0
    assert asked == [300.0, 30.0]


@pytest.mark.usefixtures("one_minute")
def test_a_reader_never_sees_half_a_page_and_kill_9_resumes(tmp_path: Path) -> None:
    """A real run refreshing every 0.12 s: every read of report.html is a whole page; killed
    with -9 mid-run, it resumes to the files of a run never killed, its grades too."""
    graded = SMALL.replace("games: 1", "games: 100") + "    grades: [pass: honest]\n"
    config = _write(tmp_path, graded)  # 600 games
    out = tmp_path / "killed"
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", str(config), "--out", str(out), "--workers",
         "1", "--quiet", "--refresh", "0.002"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    page, pages, deadline = out / "report.html", [], time.monotonic() + 60
    while len(pages) < 3 and time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        with contextlib.suppress(FileNotFoundError):
            text = page.read_text()
            assert text.endswith("</html>\n")  # whole, never half written
            assert "Tournament in progress: " in text, "the run ended before 3 refreshes"
            if not pages or pages[-1] != text:
                pages.append(text)
        time.sleep(0.01)
    process.kill()
    process.wait()
    assert len(pages) == 3
    done = (out / results.GAMES).read_bytes().count(b"\n")
    assert done < 600, "the run must be cut in the middle"
    resumed = _invoke("run", config, "--out", out, "--workers", "1", "--resume", "-q")
    assert resumed.exit_code == 0, resumed.stderr
    clean = _invoke("run", config, "--out", tmp_path / "clean", "--workers", "1", "-q")
    assert clean.exit_code == 0
    assert_same_files(out, tmp_path / "clean")
    assert (out / results.GRADES).exists()
    assert "in progress" not in page.read_text()
