"""A ladder's input and output beyond its logs (issue 17): the replays of its games (each
written just before its line, the same bytes after a kill -9 and a resume; the validation
games' kept too, named in ladder-log.jsonl), the live report while it plays (`--refresh`,
the mechanism of every `arena run`), and its games played on a Dask cluster with the bytes
of a local run (a bot folder refused there in one line)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_support import invoke_cli
from cluster_support import ON_SHARED, shared_cluster
from test_ladder_season import BROKEN, CRASHY, GOOD, SLOW
from test_ladder_season import CONFIG as SEASON

from arena.cli import run as run_cli
from arena.replay import read_replay, timeless
from arena.report.html import build_report
from arena.tournament.formats.ladder import season as ladder_runner
from arena.tournament.formats.ladder.season import run_ladder
from arena.tournament.load import load_tournament
from arena.tournament.run import results
from arena.tournament.run.progress import Tally

pytestmark = ON_SHARED

CONFIG = SEASON.replace("replays: false\n", "")
"""The season tests' config, with replays (the default)."""
LOGS = ("games.jsonl", "ladder-batches.jsonl", "ladder-history.jsonl", "ladder-log.jsonl",
        "ladder.json", "standings.csv", "ratings.json", "crosstable.csv")


def _season(root: Path, batch: int = 2, extra: str = "", **bots: str) -> Path:
    (root / "entries").mkdir(parents=True, exist_ok=True)
    for name, text in bots.items():
        (root / "entries" / f"{name}.py").write_text(text, "utf-8")
    (root / "ladder.yaml").write_text(CONFIG.replace("BATCH", str(batch)) + extra, "utf-8")
    return root / "ladder.yaml"


def _run(config: Path, out: Path | str, *flags: str, code: int = 0) -> Any:
    result = invoke_cli("run", config, "--out", out, "-q", *flags)
    assert result.exit_code == code, result.output
    return result


def _in(folder: Path, monkeypatch: pytest.MonkeyPatch, *args: str | Path) -> Any:
    """`arena run ARGS` from `folder`, so both runs name their results folder `out`."""
    folder.mkdir(exist_ok=True)
    monkeypatch.chdir(folder)
    return invoke_cli("run", *args)


def _lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text("utf-8").splitlines()]


def _replays(out: Path) -> dict[str, Any]:
    """Every replay of the folder without its seconds (the one thing two runs may differ in)."""
    return {p.name: timeless(read_replay(p)) for p in sorted((out / "replays").glob("*.json.gz"))}


def _same(one: Path, two: Path) -> None:
    for name in LOGS:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
    assert _replays(one) == _replays(two)


# --- replays ---------------------------------------------------------------------------


def test_every_ladder_game_keeps_its_replay_written_before_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, out = _season(tmp_path, alice=GOOD), tmp_path / "out"
    appended: list[str] = []
    append = results.GameLog.append

    def checked(self: results.GameLog, lines: Any) -> None:
        if self.path.name != results.GAMES:  # ladder-history.jsonl's writer too
            append(self, lines)
            return
        for line in lines:  # the replay a line names is on disk before the line
            assert (out / json.loads(line)["replay"]).is_file()
            appended.append(line)
        append(self, lines)

    monkeypatch.setattr(results.GameLog, "append", checked)
    _run(config, out, "--games", "6")
    games = _lines(out)
    assert len(appended) == len(games) == 6
    assert [g["replay"] for g in games] == [f"replays/ld-{n:08d}.json.gz" for n in range(1, 7)]
    verified = invoke_cli("replay", out, "--verify")
    assert (verified.exit_code, verified.stdout) == (0, "6 games verified\n")
    told = invoke_cli("replay", out, "ld-00000001").stdout.splitlines()
    assert told[0].startswith("game ld-00000001 (season; ladder, table 1): dice, seed ")
    assert told[1] == f"seats: 0 {games[0]['entrants'][0]}, 1 {games[0]['entrants'][1]}"
    report = invoke_cli("report", out)
    assert report.stdout.startswith("report: ") and "6 games, 6 with a replay in the viewer" \
        in report.stdout


def test_a_validation_game_keeps_its_replay_named_in_the_versions_log(tmp_path: Path) -> None:
    config, out = _season(tmp_path, crashy=CRASHY), tmp_path / "out"
    _run(config, out, "--games", "2")
    events = [json.loads(line) for line in (out / "ladder-log.jsonl").read_text().splitlines()]
    crashy = next(e for e in events if e["player"] == "crashy@1")
    assert crashy["status"] == "rejected"
    assert [g["replay"] for g in crashy["validation"]] == [
        "replays/vd-crashy@1-1.json.gz", "replays/vd-crashy@1-2.json.gz"]
    assert all((out / g["replay"]).is_file() for e in events for g in e["validation"])
    told = invoke_cli("replay", out, "vd-crashy@1-1")
    assert told.exit_code == 0
    assert told.stdout.splitlines()[:2] == [
        f"game vd-crashy@1-1 (season; validation): dice, seed {_vd_seed(out)}",
        "seats: 0 crashy@1, 1 house-1"]
    assert "ZeroDivisionError" in told.stdout
    assert not any(g["id"].startswith("vd-") for g in _lines(out))  # rated games only


def _vd_seed(out: Path) -> int:
    return int(read_replay(out / "replays" / "vd-crashy@1-1.json.gz").header["seed"])


def test_replays_false_keeps_none_for_the_ladder_or_its_validation(tmp_path: Path) -> None:
    config, out = _season(tmp_path, extra="replays: false\n", alice=GOOD), tmp_path / "out"
    _run(config, out, "--games", "4")
    assert not (out / "replays").exists()
    assert [g["replay"] for g in _lines(out)] == [None] * 4
    log = (out / "ladder-log.jsonl").read_text()
    assert '"validation": [{"entrants"' in log and '"replay"' not in log


def test_kill_9_mid_batch_resumes_to_the_same_bytes_replays_included(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _season(tmp_path, batch=2, slow=SLOW)
    whole, killed = tmp_path / "whole", tmp_path / "killed"  # each run's folder is `out`
    _in(whole, monkeypatch, config, "--out", "out", "--games", "4", "-q")
    (killed / "out").mkdir(parents=True)  # replays name the frozen copy they played from
    process = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), "--out",
                                "out", "--games", "4", "-q", "--workers", "1"], cwd=killed,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)  # fmt: skip
    games, deadline = killed / "out" / "games.jsonl", time.monotonic() + 60
    while not (games.exists() and games.read_bytes().count(b"\n") >= 1):
        assert process.poll() is None and time.monotonic() < deadline, "the run did not start"
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    done = games.read_bytes().count(b"\n")
    assert 1 <= done < 4, "the kill must land in the middle of the 4-game batch"
    _in(killed, monkeypatch, config, "--out", "out", "--games", str(4 - done), "-q")
    _same(whole / "out", killed / "out")
    assert len(_replays(killed / "out")) == 4 + 2 * 4  # the games, and four versions' validation


# --- the live report -------------------------------------------------------------------


class Spy:
    """The CLI's live rebuild, then what a reader of the folder sees at that moment."""

    def __init__(self) -> None:
        self.rebuild = run_cli._live_report(60.0)
        self.seen: list[tuple[int, int, str, dict[str, Any]]] = []

    def __call__(self, folder: Path, tally: Tally) -> None:
        self.rebuild(folder, tally)
        ladder = json.loads((folder / "ladder.json").read_text())
        self.seen.append((tally.done, tally.planned, (folder / "report.html").read_text(),
                          ladder))


def _pages(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in (*LOGS, "report.html")}


def test_a_ladder_refreshes_its_ranking_and_report_while_it_plays(tmp_path: Path) -> None:
    cfg, spy = load_tournament(_season(tmp_path)), Spy()
    run_ladder(cfg, tmp_path / "live", 2)  # a season's first run
    run_ladder(cfg, tmp_path / "live", 3, during=spy, refresh=0.0)
    assert [(done, planned) for done, planned, _, _ in spy.seen] == [
        (3, 5), (4, 5), (5, 5)]  # every game at 0 s, of the season's games
    done, _, page, ladder = spy.seen[1]
    assert "<title>(in progress) season · arena report</title>" in page
    banner = re.search(r'<p class="live"[^>]*>(.*?)</p>', page)
    assert banner is not None and banner.group(1).startswith(
        "Ladder in progress: 4 of 5 games played (80%), as of ")
    assert ladder["games"] == done == sum(r["games"] for r in ladder["ranking"]) // 2
    build_report(tmp_path / "live", workers=1)
    run_ladder(cfg, tmp_path / "plain", 2)
    run_ladder(cfg, tmp_path / "plain", 3)
    build_report(tmp_path / "plain", workers=1)
    assert _pages(tmp_path / "live") == _pages(tmp_path / "plain")  # the same bytes
    assert "in progress" not in (tmp_path / "live" / "report.html").read_text()


def test_refresh_minutes_reach_the_ladder_and_0_turns_it_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[float] = []
    real = run_cli._live_report

    def spy(every: float) -> Any:
        asked.append(every)
        return real(every)

    monkeypatch.setattr(run_cli, "_live_report", spy)
    config = _season(tmp_path)
    _run(config, tmp_path / "a", "--games", "2", "--refresh", "0")
    assert asked == []
    _run(config, tmp_path / "b", "--games", "2")
    _run(config, tmp_path / "c", "--games", "2", "--refresh", "0.5")
    assert asked == [300.0, 30.0]  # five minutes by default


# --- on a Dask cluster -----------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster(request: pytest.FixtureRequest) -> str:
    """The shared local cluster of two worker processes; its address."""
    return str(shared_cluster(request).scheduler_address)


def test_a_ladder_on_a_cluster_writes_the_bytes_of_a_local_run(
    tmp_path: Path, cluster: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cluster_support import strict_here

    strict_here()  # on a cluster a submission plays at strict, as here on this machine
    config = _season(tmp_path, alice=GOOD, broken=BROKEN)
    here = _in(tmp_path / "here", monkeypatch, config, "--out", "out", "--games", "4",
               "--workers", "2")
    never = "a submission's dry run must be on a worker of the cluster, not here"
    monkeypatch.setattr(ladder_runner, "cannot_start", lambda *_: pytest.fail(never))
    there = _in(tmp_path / "there", monkeypatch, config, "--out", "out", "--games", "4",
                "--cluster", cluster)
    assert here.exit_code == 0, here.output
    assert (there.exit_code, there.stdout) == (0, here.stdout)
    assert "rejected broken@1: cannot start: " in here.stdout
    assert "arena: cluster: 2 workers, 2 threads at " in there.stderr
    _same(tmp_path / "here" / "out", tmp_path / "there" / "out")
    assert len(_replays(tmp_path / "there" / "out")) == 4 + 2 * 4  # broken@1 never started


def test_validate_on_a_cluster_dry_runs_the_organisers_entrants_only(
    tmp_path: Path, cluster: str
) -> None:
    config = _season(tmp_path, broken=BROKEN)
    here = invoke_cli("validate", config)
    there = invoke_cli("validate", config, "--cluster", cluster)
    assert (there.exit_code, there.stdout) == (0, here.stdout)
    assert here.stdout == ("ok: 4 entrants, a ladder of 2-seat tables, 2 tables a batch, "
                           "ranked after 4 games\n")


def test_a_bot_folder_is_refused_on_a_cluster_in_one_line_before_any_write(
    tmp_path: Path, cluster: str
) -> None:
    config = _season(tmp_path)
    (tmp_path / "entries" / "bob").mkdir()
    (tmp_path / "entries" / "bob" / "bot.py").write_text(GOOD, "utf-8")
    out = tmp_path / "out"
    result = invoke_cli("run", config, "--out", out, "--games", "2", "--cluster", cluster)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1] == (  # after the written seed's warning
        f"arena: error: bot folder '{tmp_path}/entries/bob' cannot play on a cluster (arena "
        "ships bot files, not folders): play it without --cluster")
    assert len(result.stderr.splitlines()) == 2
    assert not (out / "games.jsonl").exists() and not (out / "ladder-log.jsonl").exists()


def test_a_cluster_lost_mid_season_exits_75_saying_how_to_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.executor.cluster import ClusterLost

    def lost(*args: Any, **kwargs: Any) -> None:
        raise ClusterLost("the Dask scheduler at tcp://127.0.0.1:1 is gone")

    monkeypatch.setattr(ladder_runner, "run_ladder", lost)
    result = invoke_cli("run", _season(tmp_path), "--out", tmp_path / "out", "--games", "2")
    assert (result.exit_code, result.stdout) == (75, "")
    assert result.stderr == (
        "arena: the cluster was lost: the Dask scheduler at tcp://127.0.0.1:1 is gone; the "
        "games in games.jsonl are kept; run it again to go on (a batch the loss cut is "
        "finished first)\n")


def test_the_progress_counts_the_seasons_games_and_the_final_s(tmp_path: Path) -> None:
    config, out = _season(tmp_path), tmp_path / "out"
    said = [invoke_cli("run", config, "--out", out, *flags).stderr.splitlines()[-1]
            for flags in (["--games", "12"], ["--games", "4"], ["--final", "2"])]
    shape = (r"arena: progress: {0} of {0} games \(100%\), [\d.,]+ games/s, ETA 0:00:00, "
             r"(no faults|\d+ faults?), leaders? \S+ \(\d+ wins\)")
    for line, games in zip(said, (12, 16, 18), strict=True):
        assert re.fullmatch(shape.format(games), line), line
