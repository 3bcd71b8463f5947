"""Tournaments on a real Dask cluster (worker processes on loopback) write the same bytes as
on one machine: every format on 2 Dask workers (an elimination on 1 too), inline, sandboxed and
command bots in the field, a bot that kills its own process, and no bot process left on a
worker afterwards."""

from __future__ import annotations

import _thread
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cluster_support import (
    ON_SHARED,
    bot_processes,
    client_of,
    differing,
    shared_cluster,
    strict_here,
    wait_for,
    worker_pids,
)
from distributed import Client
from killer_bot import KILLER

from arena.compare.groups import Entrant, Setup
from arena.compare.run import run_compare
from arena.executor.cluster import Cluster
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import Interrupted, run_tournament

pytestmark = ON_SHARED

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "bots" / "examples" / "example_bot.py"
MINE = """
from arena_bots.random_bot import RandomBot


class Mine(RandomBot):
    name = "mine"
"""
FORMATS = {
    "round-robin": "{type: round-robin, seats: 2, games: 10}",
    "gauntlet": "{type: gauntlet, seats: 2, games: 20, champions: [honest]}",
    "elimination": "{type: elimination, seats: 2, games: 5, seeding: 6}",
}
INLINE = ("honest", "random", "statistician", "bluffer")
ISOLATED = ("bot: {folder}/mine.py",
            f'command: ["{sys.executable}", "{EXAMPLE}"]\n    alias: example')
"""A bot file in the sandbox and a command bot (its program in the sandbox too)."""
ON = {"round-robin": (2,), "gauntlet": (2,), "elimination": (1, 2)}
"""The clusters each format is played on, by worker count. Two workers finish batches out of
order and share short maps; one plays every batch itself. One worker is played here by the
elimination (stages one after another), and by a round-robin in tests/executor/test_cluster.py
(its only worker killed): a gauntlet's games are one map, as a round-robin's are."""


@pytest.fixture(scope="module")
def clusters(request: pytest.FixtureRequest) -> dict[int, str]:
    """The shared cluster of one Dask worker process and the one of two, by worker count:
    addresses."""
    return {count: shared_cluster(request, count).scheduler_address for count in (1, 2)}


@pytest.fixture(scope="module")
def watcher(clusters: dict[int, str]) -> Iterator[Client]:
    """A client of the two-worker cluster, to look at its workers."""
    with client_of(clusters[2]) as client:
        yield client


def _config(folder: Path, fmt: str, field: tuple[str, ...] = INLINE, extra: str = "") -> Path:
    """A tournament of `field` (`{folder}` there is this folder), sandboxed at `strict`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mine.py").write_text(MINE)
    entrants = "".join(f"  - {e.format(folder=folder)}\n" for e in field)
    path = folder / "t.yaml"
    path.write_text(f"name: t\nrules: dice\nentrants:\n{entrants}{extra}"
                    f"format: {fmt}\nisolation: strict\nseed: 7\n")
    return path


def _same_as_locally(folder: Path, path: Path, clusters: dict[int, str],
                     counts: tuple[int, ...] = (2,),
                     meanwhile: Callable[[], None] | None = None) -> None:
    """Run the config locally on 2 workers, then on the clusters of `counts` workers: the same
    bytes (`meanwhile` runs in a thread beside the cluster runs, joined after them)."""
    cfg = load_tournament(path)
    local = run_tournament(cfg, folder / "local", workers=2)
    assert local.played > 50, "too few games to give both Dask workers a batch"
    beside = threading.Thread(target=meanwhile, daemon=True) if meanwhile else None
    if beside is not None:
        beside.start()
    for count in counts:
        address = clusters[count]
        told: list[str] = []
        report = run_tournament(cfg, folder / f"on-{count}", cluster=Cluster(address),
                                info=told.append)
        assert differing(folder / "local", folder / f"on-{count}") == [], (count, told)
        assert (report.played, report.standings) == (local.played, local.standings)
        assert f"cluster: {count} workers, {count} threads at {address}" in told
    if beside is not None:
        beside.join()


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_writes_the_bytes_of_a_local_run_on_dask_workers(
    tmp_path: Path, clusters: dict[int, str], fmt: str,
) -> None:
    _same_as_locally(tmp_path, _config(tmp_path, FORMATS[fmt]), clusters, ON[fmt])


def test_sandboxed_and_command_bots_on_a_cluster_write_a_local_runs_bytes_and_leave_no_process(
    tmp_path: Path, clusters: dict[int, str], watcher: Client,
) -> None:
    """One run of sandboxed and command bots on the cluster checks both: its bytes are a
    local run's, and its bots' processes, seen running on the workers, are gone after it."""
    strict_here()
    fmt = "{type: round-robin, seats: 2, games: 5}"  # 2 workers: 1 sandboxes its bots alike
    pids = set(worker_pids(watcher).values())
    running: list[list[str]] = []

    def look() -> None:
        running.append(wait_for(lambda: bot_processes(pids), "the bots' processes"))

    _same_as_locally(tmp_path, _config(tmp_path, fmt, ("honest", "random", *ISOLATED)),
                     clusters, meanwhile=look)
    assert running and running[0], "no bot process was seen running on the workers"
    assert bot_processes(pids) == []


def test_an_inline_bot_that_kills_its_process_is_recorded_as_locally_its_dask_worker_lives(
    tmp_path: Path, clusters: dict[int, str], watcher: Client,
) -> None:
    def play(where: str, **how: object) -> list[str]:
        folder = tmp_path / where
        folder.mkdir()
        (folder / "killer.py").write_text(f"FOLDER = {str(folder)!r}\n{KILLER}")
        extra = f"  - bot: {folder / 'killer.py'}\n    mode: inline\n"
        cfg = load_tournament(_config(folder, FORMATS["round-robin"], INLINE[:3], extra))
        told: list[str] = []
        run_tournament(cfg, folder / "out", info=told.append, **how)  # type: ignore[arg-type]
        assert (folder / "killed").exists(), f"the killer never killed ({where})"
        return told

    before = worker_pids(watcher)
    play("local", workers=2)
    told = play("cluster", cluster=Cluster(watcher.scheduler.address))
    assert differing(tmp_path / "local" / "out", tmp_path / "cluster" / "out") == []
    assert sum("a worker died (killed by SIGKILL) in game rr-" in line for line in told) == 1
    assert worker_pids(watcher) == before, "a Dask worker died or was replaced"


def test_no_bot_process_is_left_on_any_worker_after_ctrl_c_in_the_main_process(
    tmp_path: Path, watcher: Client,
) -> None:
    strict_here()
    fmt = "{type: round-robin, seats: 2, games: 200}"  # stopped after a batch or two
    cfg = load_tournament(_config(tmp_path, fmt, ("random", *ISOLATED)))
    pids = set(worker_pids(watcher).values())
    out = tmp_path / "out"
    pressed: list[list[str]] = []

    def ctrl_c() -> None:  # once the bots' processes are up
        pressed.append(wait_for(lambda: bot_processes(pids), "the bots' processes"))
        _thread.interrupt_main()

    presser = threading.Thread(target=ctrl_c, daemon=True)
    presser.start()
    with pytest.raises(Interrupted):
        run_tournament(cfg, out, cluster=Cluster(watcher.scheduler.address))
    presser.join()
    assert pressed and pressed[0], "no bot process was seen running on the workers"
    wait_for(lambda: not bot_processes(pids), "the bot processes to stop", timeout=30)


def test_a_comparison_on_a_cluster_reaches_the_verdict_it_reaches_locally(
    clusters: dict[int, str],
) -> None:
    setup = Setup(Entrant("statistician"), Entrant("honest"), seats=3,
                  field=(Entrant("random"), Entrant("bluffer")))
    local = run_compare(setup, max_games=120, workers=2)
    there = run_compare(setup, max_games=120, cluster=Cluster(clusters[2]))
    assert local.tally.games > 50, "too few games to give both Dask workers a batch"
    assert there == local
