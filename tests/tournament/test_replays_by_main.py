"""Replays travel with the results: a worker writes no file, the run's own process writes
each replay before the games.jsonl line that names it, so the results folder lives only on
the machine that runs `arena run`, and a Dask cluster writes what a local run writes."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from cli_support import write_config
from cluster_support import ON_SHARED, shared_cluster

from arena.executor.cluster import Cluster
from arena.executor.local import ordered_map
from arena.replay import read_replay, timeless
from arena.tournament.formats.registry import plan_for
from arena.tournament.load import load_tournament
from arena.tournament.run import results
from arena.tournament.run.runner import run_tournament, tournament_setup
from arena.tournament.run.worker import game_job

pytestmark = ON_SHARED  # with the other modules on the shared clusters: one start a suite

CONFIG = """
    name: t
    rules: dice
    entrants: [honest, bluffer, statistician, random]
    format: {type: round-robin, seats: 3, games: 1}
    seed: 1
"""


@pytest.fixture(scope="module")
def cluster(request: pytest.FixtureRequest) -> Cluster:
    """The shared local Dask cluster of two worker processes, for the module's runs."""
    return Cluster(shared_cluster(request).scheduler_address)


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _replays(folder: Path) -> dict[str, list[dict[str, object]]]:
    """The replays of a results folder by file name, without the seconds of each decision."""
    return {p.name: timeless(read_replay(p)) for p in sorted((folder / "replays").iterdir())}


def test_a_worker_writes_no_file_and_sends_each_replay_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = load_tournament(write_config(tmp_path, CONFIG))
    places = {name: tmp_path / name for name in ("cwd", "home", "tmp")}
    for place in places.values():
        place.mkdir()
    monkeypatch.chdir(places["cwd"])
    monkeypatch.setenv("HOME", str(places["home"]))
    monkeypatch.setattr(tempfile, "tempdir", str(places["tmp"]))
    games = plan_for(cfg).batch({})[:4]
    played = list(ordered_map(game_job(tournament_setup(cfg)), games, 1))
    assert {name: _files(place) for name, place in places.items()} == \
        {"cwd": [], "home": [], "tmp": []}
    lines = [json.loads(p.line) for p in played]
    assert [line["replay"] for line in lines] == [f"replays/{g.id}.json.gz" for g in games]
    for line, game in zip(lines, played, strict=True):
        assert game.replay is not None
        replay = read_replay(game.replay)
        assert replay.header["game"]["id"] == line["id"]
        assert replay.result["placements"] == line["placements"]


def test_without_replays_a_worker_sends_none(tmp_path: Path) -> None:
    cfg = load_tournament(write_config(tmp_path, CONFIG + "    replays: false\n"))
    played = list(ordered_map(game_job(tournament_setup(cfg)), plan_for(cfg).batch({})[:2], 1))
    assert [(p.replay, json.loads(p.line)["replay"]) for p in played] == [(None, None)] * 2


def test_a_cluster_run_writes_the_replays_and_log_of_a_local_run(
    tmp_path: Path, cluster: Cluster
) -> None:
    cfg = load_tournament(write_config(tmp_path, CONFIG))
    run_tournament(cfg, tmp_path / "local", workers=2)
    run_tournament(cfg, tmp_path / "cluster", cluster=cluster)
    local, remote = tmp_path / "local", tmp_path / "cluster"
    assert (remote / results.GAMES).read_bytes() == (local / results.GAMES).read_bytes()
    assert _replays(remote) == _replays(local)
    assert len(_replays(local)) == len(plan_for(cfg).batch({}))


def test_a_replay_left_without_its_line_is_played_again_on_resume(tmp_path: Path) -> None:
    """A run killed between writing a replay and its line: the game is played again."""
    cfg = load_tournament(write_config(tmp_path, CONFIG))
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    run_tournament(cfg, whole, workers=1)
    run_tournament(cfg, cut, workers=1)
    log = cut / results.GAMES
    kept = log.read_text().splitlines(keepends=True)[:5]
    log.write_text("".join(kept))
    for name in ("ratings.json", "standings.md"):
        (cut / name).unlink()
    report = run_tournament(cfg, cut, workers=2, resume=True)
    assert (report.resumed, report.played) == (5, len(plan_for(cfg).batch({})) - 5)
    for name in (results.GAMES, "ratings.json", "standings.md"):
        assert (cut / name).read_bytes() == (whole / name).read_bytes()
    assert _replays(cut) == _replays(whole)
