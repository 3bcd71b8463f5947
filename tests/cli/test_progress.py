"""Progress people can read: `arena run`'s bar and lines (games, rate, ETA, faults, leader),
and `arena report`'s, under a fake clock so every line is pinned exactly."""

from __future__ import annotations

import io
import itertools
import json
import math
from collections import Counter
from pathlib import Path

import pytest
from cli_support import invoke_cli as _invoke
from cli_support import write_config as _write

from arena.cli import progress
from arena.cli.progress import standing
from arena.tournament.run.progress import Tally

CRASHER = '''
import arena


class Crasher(arena.Bot):
    """Crashes at its first decision of every game."""

    name = "crasher"

    def act(self, observation):
        raise RuntimeError("no thanks")
'''

FAULTY = """
    name: faulty
    rules: dice
    entrants:
      - random
      - honest
      - bot: crasher.py
        mode: inline
    format:
      type: round-robin
      seats: 2
      games: 5
    seed: 7
"""


@pytest.fixture
def ticking(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clock that moves one second each time it is read, with no gap between lines."""
    ticks = itertools.count()
    monkeypatch.setattr(progress, "clock", lambda: float(next(ticks)))
    monkeypatch.setattr(progress, "LINE_GAP", 0.0)


def _expected_lines(folder: Path, every: int) -> list[str]:
    """The progress lines, worked out afresh from games.jsonl: at one tick a game, the rate
    is 1 game/s; faults and wins are counted line by line."""
    games = [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]
    faults, wins, lines = 0, Counter[str](), []
    for done, game in enumerate(games, 1):
        faults += len(game["faults"])
        for name, place in zip(game["entrants"], game["placements"], strict=True):
            wins[name] += place == 1
        if done % every and done != len(games):
            continue
        most = max(wins.values())
        leaders = sorted(n for n, w in wins.items() if w == most)
        title = "leader" if len(leaders) == 1 else "leaders"
        fault_text = {0: "no faults", 1: "1 fault"}.get(faults, f"{faults} faults")
        left = len(games) - done
        lines.append(
            f"arena: progress: {done} of {len(games)} games ({done / len(games):.0%}), "
            f"1 games/s, ETA 0:00:{left:02d}, {fault_text}, {title} {', '.join(leaders)} "
            f"({most} win{'s' * (most != 1)})"
        )
    return lines


def test_run_off_a_terminal_prints_a_line_every_tenth_of_the_games(
    tmp_path: Path, ticking: None
) -> None:
    (tmp_path / "crasher.py").write_text(CRASHER)
    config, out = _write(tmp_path, FAULTY), tmp_path / "out"
    result = _invoke("run", config, "--out", out, "--workers", "1")
    assert result.exit_code == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("arena: progress:")]
    assert lines == _expected_lines(out, every=3)  # 30 games: a line every 3
    assert len(lines) == 10 and ", 20 faults," in lines[-1]  # one in each of its 20 games
    assert result.stderr.splitlines()[-1] == (
        f"arena: results in {out}/ (open report.html to see them)")


def test_quiet_silences_the_progress_lines(tmp_path: Path) -> None:
    (tmp_path / "crasher.py").write_text(CRASHER)
    result = _invoke("run", _write(tmp_path, FAULTY), "--out", tmp_path / "out", "-q",
                     "--workers", "1")
    assert result.exit_code == 0
    assert "progress" not in result.stderr


def test_lines_come_every_minute_when_a_tenth_takes_longer(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str],
                                                            ) -> None:
    now = [0.0]
    monkeypatch.setattr(progress, "clock", lambda: now[0])
    lines = progress.Lines("progress", "game")
    lines.show(0, 1000)
    ticks = ((1, 30.0), (2, 59.0), (3, 61.0), (4, 100.0), (5, 121.5), (100, 126.0), (100, 127.0))
    for done, at in ticks:  # the tenth at 126 s waits for the 5 s gap after 121.5 s
        now[0] = at
        lines.show(done, 1000, "no faults")
    assert capsys.readouterr().err.splitlines() == [
        "arena: progress: 3 of 1,000 games (0.3%), 0.049 games/s, ETA 5:37:52, no faults",
        "arena: progress: 5 of 1,000 games (0.5%), 0.041 games/s, ETA 6:42:58, no faults",
        "arena: progress: 100 of 1,000 games (10%), 0.787 games/s, ETA 0:19:03, no faults",
    ]


def test_a_short_run_says_its_end_not_every_tenth(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    now = [0.0]
    monkeypatch.setattr(progress, "clock", lambda: now[0])
    lines = progress.Lines("progress", "game")
    lines.show(0, 100)
    for done in range(1, 101):  # 100 games in 7.5 s: tenths due at 10, 20, ... 100
        now[0] = done * 0.075
        lines.show(done, 100)
    assert capsys.readouterr().err.splitlines() == [
        "arena: progress: 67 of 100 games (67%), 13.3 games/s, ETA 0:00:02",  # 5 s in
        "arena: progress: 100 of 100 games (100%), 13.3 games/s, ETA 0:00:00",
    ]


def test_the_bar_shows_faults_and_the_leader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             ) -> None:
    monkeypatch.setattr(progress, "on_terminal", lambda: True)
    (tmp_path / "crasher.py").write_text(CRASHER)
    result = _invoke("run", _write(tmp_path, FAULTY), "--out", tmp_path / "out",
                     "--workers", "1")
    assert result.exit_code == 0, result.stderr
    final = _expected_lines(tmp_path / "out", every=30)[-1].rpartition("ETA 0:00:00, ")[2]
    assert "faulty: 100%|" in result.stderr and "30/30 [" in result.stderr
    assert result.stderr.count(final + "]") >= 1  # the bar's postfix at the end
    assert "arena: progress:" not in result.stderr


def test_the_standing_words_ties_and_many_leaders() -> None:
    tally = Tally(10)
    assert standing(tally) == "no faults"
    for winner in ("ana", "bruno", "carla", "dora", "ed"):
        tally.add({"entrants": [winner, "x"], "placements": [1, 2], "faults": []})
    assert standing(tally) == "no faults, leaders ana, bruno, carla and 2 more (1 win)"
    tally.add({"entrants": ["x", "ed"], "placements": [2, 1],
               "faults": [{"seat": 0, "kind": "crash", "message": "m"}]})
    assert standing(tally) == "1 fault, leader ed (2 wins)"
    assert (tally.done, tally.played, tally.faults) == (6, 6, 1)


def test_rates_and_times_read_plainly() -> None:
    assert [progress.rate_text(r) for r in (0.01234, 3.14159, 35.24, 1234.5)] == [
        "0.012", "3.14", "35.2", "1,234"]
    assert progress.eta(0, 0.0) == "0:00:00"
    assert progress.eta(10, 0.0) == "?"
    assert progress.eta(7200, 2.0) == "1:00:00"


def test_report_on_a_large_folder_prints_lines(tmp_path: Path, ticking: None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.cli import replay as replay_cli
    from arena.report import viewer

    config = _write(tmp_path, FAULTY.replace("games: 5", "games: 4"))
    (tmp_path / "crasher.py").write_text(CRASHER)
    out = tmp_path / "out"
    assert _invoke("run", config, "--out", out, "--workers", "1", "-q").exit_code == 0
    monkeypatch.setattr(replay_cli, "REPORT_QUIET_BELOW", 10)  # 24 replays count as large
    monkeypatch.setattr(viewer, "PACK", 4)  # six packs: a line after each
    result = _invoke("report", out)
    assert result.exit_code == 0, result.stderr
    packs = math.ceil(24 / 4)
    assert result.stderr.splitlines() == [
        f"arena: report: {4 * k} of 24 replays ({4 * k / 24:.0%}), "
        f"{progress.rate_text(4 * k / k)} replays/s, ETA 0:00:{(24 - 4 * k) // 4:02d}"
        for k in range(1, packs + 1)
    ]
    assert _invoke("report", out, "--quiet").stderr == ""


def test_report_on_a_small_folder_prints_no_progress(tmp_path: Path) -> None:
    (tmp_path / "crasher.py").write_text(CRASHER)
    out = tmp_path / "out"
    assert _invoke("run", _write(tmp_path, FAULTY), "--out", out, "-q",
                   "--workers", "1").exit_code == 0
    assert _invoke("report", out).stderr == ""


def test_the_bar_keeps_its_total_and_postfix(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    bar = progress.Bar("demo", "game")
    bar.show(0, 4)
    bar.show(4, 4, "1 fault, leader ana (3 wins)")
    bar.close()
    text = stream.getvalue()
    assert "demo: 100%|" in text and "4/4 [" in text and "1 fault, leader ana (3 wins)]" in text
