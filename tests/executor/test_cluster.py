"""The cluster's faults, on real Dask processes: a worker killed or retired mid-run, the main
process killed and resumed (across local and cluster runs), the scheduler killed, workers that
must refuse (no bubblewrap, another arena): the run finishes or stops as promised, and its
results are the bytes of a calm local run."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from cluster_support import (
    ON_SHARED,
    Scheduler,
    Worker,
    client_of,
    descendants,
    differing,
    lines,
    one_worker_scheduler,
    shared_cluster,
    strict_here,
    wait_for,
    wait_for_workers,
    worker_pids,
)
from distributed import Client, LocalCluster
from distributed.client import (
    CancelledFuturesGroup,
    FutureCancelledError,
    FuturesCancelledError,
)

from arena.executor.cluster import Cluster, ClusterError, ClusterLost, ClusterMap
from arena.tournament.load import load_tournament
from arena.tournament.run import results
from arena.tournament.run.runner import run_tournament

pytestmark = ON_SHARED

ROOT = Path(__file__).parents[2]
SLOW = '''
import time

from arena_bots.random_bot import RandomBot


class Slow(RandomBot):
    """Random, a few milliseconds a decision: batches last long enough to be hit mid-run."""

    name = "slow"

    def act(self, observation):
        time.sleep(0.003)
        return super().act(observation)
'''
MINE = """
from arena_bots.random_bot import RandomBot


class Mine(RandomBot):
    name = "mine"
"""
MAIN = """
import sys

from arena.executor.cluster import Cluster
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

if __name__ == "__main__":
    config, out, where = sys.argv[1:]
    how = {"workers": 2} if where == "local" else {"cluster": Cluster(where)}
    run_tournament(load_tournament(config), out, **how)
"""


def _config(folder: Path, entrants: str = "", isolation: str = "none", games: int = 10,
            slow: bool = True) -> Path:
    """Three built-in bots and a slow inline bot file (plus `entrants`), 2-seat dice."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "slow.py").write_text(SLOW)
    (folder / "mine.py").write_text(MINE)
    fourth = f"bot: {folder / 'slow.py'}\n    mode: inline" if slow else "bluffer"
    path = folder / "t.yaml"
    path.write_text(
        f"name: t\nrules: dice\nentrants:\n  - honest\n  - random\n  - statistician\n"
        f"  - {fourth}\n{entrants}"
        f"format: {{type: round-robin, seats: 2, games: {games}}}\n"
        f"isolation: {isolation}\nseed: 9\n")
    return path


@pytest.fixture(scope="module")
def calm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results of the test tournament played locally on 2 workers, undisturbed."""
    folder = tmp_path_factory.mktemp("calm")
    run_tournament(load_tournament(_config(folder)), folder / "out", workers=2)
    return folder / "out"


@pytest.fixture(scope="module")
def cluster(request: pytest.FixtureRequest) -> LocalCluster:
    """The shared cluster of two workers: a worker killed here is replaced by its nanny and
    waited for again."""
    return shared_cluster(request)


@pytest.fixture(scope="module")
def watcher(cluster: LocalCluster) -> Iterator[Client]:
    with client_of(cluster.scheduler_address) as client:
        yield client


def _unique_ids(folder: Path) -> bool:
    ids = [json.loads(line)["id"] for line in (folder / results.GAMES).read_text().splitlines()]
    return len(ids) == len(set(ids))


def _meanwhile(action: Callable[[], None]) -> threading.Thread:
    """Run `action` beside the run (it waits for its moment itself)."""
    thread = threading.Thread(target=action, daemon=True)
    thread.start()
    return thread


def _busy_worker(client: Client, name: str | None = None) -> tuple[str, int, set[int]]:
    """A worker (the one of that name, if given) playing a batch now: its address, pid and
    arena's processes below it. The workers' pids are asked again only when a worker joined
    (a round trip to every worker, each 20 ms look, would load the run being watched)."""
    pids: dict[str, int] = {}

    def playing() -> tuple[str, int, set[int]] | None:
        names = {a: w.get("name") for a, w in client.scheduler_info()["workers"].items()}
        if not names.keys() <= pids.keys():
            pids.update(worker_pids(client))
        for address, held in client.processing().items():
            if name is not None and names.get(address) != name:
                continue
            below = descendants({pids.get(address, -1)})
            if held and below:
                return address, pids[address], below
        return None
    found: tuple[str, int, set[int]] = wait_for(playing, "a worker playing a batch")
    return found


def test_a_dask_worker_killed_mid_run_costs_no_game_and_changes_no_byte(
    tmp_path: Path, calm: Path, cluster: LocalCluster, watcher: Client,
) -> None:
    out, told, killed, below = tmp_path / "out", [], [], set()

    def kill() -> None:
        victim, pid, processes = _busy_worker(watcher)
        below.update(processes)  # its arena worker process and fork server
        os.kill(pid, signal.SIGKILL)
        killed.append(victim)

    killer = _meanwhile(kill)
    run_tournament(load_tournament(_config(tmp_path)), out,
                   cluster=Cluster(cluster.scheduler_address), info=told.append)
    killer.join()
    assert killed, "no worker was killed"
    assert differing(calm, out) == [] and _unique_ids(out)
    assert any(line.startswith(f"cluster: worker {killed[0]} left") for line in told), told
    assert below, "the killed worker had no process of arena's"
    wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in below),
             "the killed worker's processes to end")
    wait_for(lambda: len(watcher.scheduler_info()["workers"]) == 2, "the nanny's new worker")


def test_the_only_dask_worker_killed_mid_run_is_replaced_and_the_run_goes_on_there(
    tmp_path: Path, calm: Path, request: pytest.FixtureRequest,
) -> None:
    out, told, killed = tmp_path / "out", [], []
    own = shared_cluster(request, 1)
    with client_of(own.scheduler_address) as watcher:

        def kill() -> None:  # the job's only copy dies with it: the nanny's new worker
            victim, pid, _ = _busy_worker(watcher)  # is sent it again
            os.kill(pid, signal.SIGKILL)
            killed.append(victim)

        killer = _meanwhile(kill)
        run_tournament(load_tournament(_config(tmp_path)), out,
                       cluster=Cluster(own.scheduler_address), info=told.append)
        killer.join()
        wait_for(lambda: len(watcher.scheduler_info()["workers"]) == 1, "the nanny's new worker")
    assert killed, "no worker was killed"
    assert differing(calm, out) == [] and _unique_ids(out)
    assert any(line.startswith(f"cluster: worker {killed[0]} left") for line in told), told


def test_a_dask_worker_retired_mid_run_costs_no_game_and_changes_no_byte(
    tmp_path: Path, calm: Path, request: pytest.FixtureRequest,
) -> None:
    out, told, retired = tmp_path / "out", [], []
    own = shared_cluster(request, 1)  # its worker, and one that joins it to be retired
    joined = Worker(own.scheduler_address, "retired")
    try:
        with client_of(own.scheduler_address) as watcher:
            wait_for_workers(watcher, {"retired"})

            def retire() -> None:
                victim, _, _ = _busy_worker(watcher, "retired")
                watcher.retire_workers([victim], close_workers=True)
                retired.append(victim)

            retirer = _meanwhile(retire)
            run_tournament(load_tournament(_config(tmp_path)), out,
                           cluster=Cluster(own.scheduler_address), info=told.append)
            retirer.join()
            wait_for(lambda: len(watcher.scheduler_info()["workers"]) == 1,
                     "the retired worker to leave")  # the shared cluster as it was
    finally:
        joined.kill()
    assert retired, "no worker was retired"
    assert differing(calm, out) == [] and _unique_ids(out)
    assert any(line.startswith(f"cluster: worker {retired[0]} left") for line in told), told


def _killed_main(config: Path, out: Path, where: str) -> None:
    """Start a run in its own process and kill -9 it once games are written."""
    script = out.parent / "main.py"
    script.write_text(MAIN)
    main = subprocess.Popen([sys.executable, str(script), str(config), str(out), where],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: lines(out) > 0 or main.poll() is not None, "a first game")
        main.kill()
    finally:
        main.wait(30)
    assert main.returncode == -signal.SIGKILL, main.stderr.read() if main.stderr else ""


@pytest.mark.parametrize(("first", "then"),
                         [("cluster", "cluster"), ("local", "cluster"), ("cluster", "local")])
def test_a_main_process_killed_mid_run_resumes_on_either_backend_with_the_same_bytes(
    tmp_path: Path, calm: Path, cluster: LocalCluster, first: str, then: str,
) -> None:
    config, out = _config(tmp_path), tmp_path / "out"
    address = cluster.scheduler_address
    _killed_main(config, out, "local" if first == "local" else address)
    kept = lines(out)
    assert 0 < kept < lines(calm), kept
    how = {"cluster": Cluster(address)} if then == "cluster" else {"workers": 2}
    report = run_tournament(load_tournament(config), out, resume=True, **how)  # type: ignore[arg-type]
    assert report.resumed == kept
    assert differing(calm, out) == [] and _unique_ids(out)


@pytest.fixture
def scheduler(tmp_path: Path) -> Iterator[Scheduler]:
    started = Scheduler(tmp_path)
    try:
        yield started
    finally:
        started.kill()


def test_the_scheduler_killed_mid_run_stops_it_at_once_and_a_local_resume_completes_it(
    tmp_path: Path, calm: Path, scheduler: Scheduler,
) -> None:
    workers = [Worker(scheduler, "w0")]  # one is enough: the scheduler is what dies
    address = scheduler.address
    out, stopped = tmp_path / "out", []
    try:
        with client_of(address) as client:
            wait_for_workers(client, {"w0"})

        def kill() -> None:
            wait_for(lambda: lines(out) > 0, "a first batch")
            scheduler.kill()
            stopped.append(time.monotonic())

        killer = _meanwhile(kill)
        with pytest.raises(ClusterLost) as lost:
            run_tournament(load_tournament(_config(tmp_path)), out, cluster=Cluster(address))
        seconds = time.monotonic() - stopped[0]
        killer.join()
    finally:
        for worker in workers:
            worker.kill()
    assert str(lost.value).startswith(f"the Dask scheduler at {address} is gone"), lost.value
    assert seconds < 30, f"the run took {seconds:.1f} s to stop"
    text = (out / results.GAMES).read_text()
    assert text.endswith("\n") and all(json.loads(line) for line in text.splitlines())
    kept = lines(out)
    assert 0 < kept < lines(calm)
    report = run_tournament(load_tournament(_config(tmp_path)), out, resume=True, workers=2)
    assert report.resumed == kept
    assert differing(calm, out) == []


def _without_bubblewrap(folder: Path) -> str:
    """A PATH of this machine's programs but bubblewrap: a worker machine without it."""
    tools = folder / "tools"
    tools.mkdir()
    for place in ("/usr/local/bin", "/usr/bin", "/usr/sbin"):
        for program in Path(place).iterdir():
            if program.name != "bwrap" and not (tools / program.name).exists():
                (tools / program.name).symlink_to(program)
    assert shutil.which("bwrap", path=str(tools)) is None
    return str(tools)


def _another_arena(folder: Path) -> str:
    """A copy of this arena with one file changed: a machine with another arena installed
    (its compiled modules copied too, so its worker compiles only the changed one: each
    is checked against its source's time and size, which the copy keeps)."""
    import arena

    copy = folder / "other" / "arena"
    shutil.copytree(Path(arena.__file__).parent, copy)
    with (copy / "referee.py").open("a") as referee:
        referee.write("\n# changed on this machine\n")
    return str(copy.parent)


SANDBOXED = "  - bot: {folder}/mine.py\n"
REFUSED_GAMES = 4
"""Games a pairing in the refusal tests: the first batches, two per worker thread (arena's
executor/cluster.py, AHEAD), are as many with 40 games as with 100: each worker is sent some."""


@pytest.fixture(scope="module")
def weak(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A scheduler whose one worker has no bubblewrap (both refusal tests play there; a test
    that adds workers sees them leave): its address."""
    folder = tmp_path_factory.mktemp("weak")
    with one_worker_scheduler(folder, "no-bwrap", {"PATH": _without_bubblewrap(folder)}) as at:
        yield at


def test_workers_that_cannot_play_the_games_refuse_them_and_the_others_play_them(
    tmp_path: Path, weak: str,
) -> None:
    strict_here()
    config = _config(tmp_path, SANDBOXED.format(folder=tmp_path), "strict",
                     games=REFUSED_GAMES, slow=False)
    run_tournament(load_tournament(config), tmp_path / "local", workers=2)
    workers = [
        Worker(weak, "able"),
        Worker(weak, "other-arena", {"PYTHONPATH": _another_arena(tmp_path)}),
    ]
    told: list[str] = []
    try:
        with client_of(weak) as client:
            wait_for_workers(client, {"able", "no-bwrap", "other-arena"})
            addresses = {w["name"]: a for a, w in client.scheduler_info()["workers"].items()}
        run_tournament(load_tournament(config), tmp_path / "out",
                       cluster=Cluster(weak), info=told.append)
    finally:
        for worker in workers:
            worker.kill()
        with client_of(weak) as client:  # gone before the next test asks the workers
            wait_for(lambda: not {"able", "other-arena"} & {
                w["name"] for w in client.scheduler_info(n_workers=-1)["workers"].values()},
                "the added workers to leave")
    assert differing(tmp_path / "local", tmp_path / "out") == []
    refusals = {line.split()[2]: line for line in told if " refuses: " in line}
    assert set(refusals) == {addresses["no-bwrap"], addresses["other-arena"]}, told
    assert "isolation strict needs bubblewrap" in refusals[addresses["no-bwrap"]]
    assert "its arena is not the run's" in refusals[addresses["other-arena"]]


def test_when_every_worker_refuses_the_run_stops_in_one_line_naming_why(
    tmp_path: Path, weak: str,
) -> None:
    strict_here()
    config = _config(tmp_path, SANDBOXED.format(folder=tmp_path), "strict",
                     games=REFUSED_GAMES, slow=False)
    with pytest.raises(ClusterError) as refused:
        run_tournament(load_tournament(config), tmp_path / "out", cluster=Cluster(weak))
    said = str(refused.value)
    assert "\n" not in said
    assert said.startswith("no worker of the cluster can play these games: worker tcp://")
    assert "isolation strict needs bubblewrap, which is missing here" in said


CANCELLED = [
    FutureCancelledError("play_batch-1", "scheduler-connection-lost", "Client lost the "
                         "connection to the scheduler."),
    FuturesCancelledError([CancelledFuturesGroup([FutureCancelledError(
        "play_batch-1", "scheduler-connection-lost", "Client lost the connection to the "
        "scheduler.")], "scheduler-connection-lost")]),
]
"""A lost scheduler as Dask says it: one future's cancellation, or a group's."""
GONE = "the Dask scheduler at tcp://127.0.0.1:8786 is gone (scheduler-connection-lost)"


@pytest.mark.parametrize("cancelled", CANCELLED)
def test_a_batch_cancelled_by_a_lost_scheduler_is_the_cluster_lost_in_one_line(
    cancelled: Exception,
) -> None:
    """Dask says a lost scheduler as one future's cancellation or a group's (both happen,
    by timing): either is ClusterLost, its reason in one line, never a traceback."""
    class Gone:
        def done(self) -> bool:
            return True

        def result(self, timeout: float) -> None:
            raise cancelled

    stand_in = SimpleNamespace(client=SimpleNamespace(status="closed"),
                               cluster=Cluster("tcp://127.0.0.1:8786"), job=None,
                               _batch_of=lambda future, batch: batch,
                               _erred=lambda future, exc: exc)
    with pytest.raises(ClusterLost) as lost:
        ClusterMap._wait(stand_in, Gone())  # type: ignore[arg-type]
    assert str(lost.value) == GONE


@pytest.mark.parametrize("cancelled", CANCELLED)
def test_asking_who_played_a_batch_of_a_lost_scheduler_is_the_cluster_lost_in_one_line(
    cancelled: Exception,
) -> None:
    """Who played a batch already judged, asked as the scheduler goes: the same one line."""
    def who_has(future: object) -> None:
        raise cancelled

    stand_in = SimpleNamespace(client=SimpleNamespace(who_has=who_has),
                               cluster=Cluster("tcp://127.0.0.1:8786"))
    with pytest.raises(ClusterLost) as lost:
        ClusterMap._player(stand_in, SimpleNamespace(key="play_batch-1"))  # type: ignore[arg-type]
    assert str(lost.value) == GONE


def test_a_game_sent_to_a_client_dask_closed_is_the_cluster_lost_in_one_line() -> None:
    """Dask closes its client when the scheduler is gone past its reconnect time: sending
    the next batch then raises; that is the cluster lost, not a traceback."""
    from distributed.client import ClosedClientError

    def top_up(specs: object) -> None:
        raise ClosedClientError("Client is closed. Can't send update-graph message.")

    stand_in = SimpleNamespace(cluster=Cluster("tcp://127.0.0.1:8786"), _top_up=top_up,
                               _cancel=lambda: None)
    stand_in._closed_is_lost = lambda: ClusterMap._closed_is_lost(stand_in)  # type: ignore[arg-type]
    with pytest.raises(ClusterLost) as lost:
        list(ClusterMap._run(stand_in, iter([1])))  # type: ignore[arg-type]
    assert str(lost.value) == ("the Dask scheduler at tcp://127.0.0.1:8786 is gone (Client is "
                               "closed. Can't send update-graph message.)")


def test_a_batch_slower_to_fetch_than_a_look_is_fetched_not_asked_for_forever() -> None:
    """A done batch whose fetch takes longer than one look (a large one on a loaded machine:
    CI met a worker's 8 MiB replays at load 30) is waited for longer each time; a fetch cut
    short by its timeout starts again from nothing, so a fixed timeout never ends."""
    asked: list[float] = []

    class Slow:
        def done(self) -> bool:
            return True

        def result(self, timeout: float) -> str:
            asked.append(timeout)
            assert len(asked) < 20, "asked again and again with the same patience"
            if timeout < 5:
                raise TimeoutError
            return "the batch"

    stand_in = SimpleNamespace(members=SimpleNamespace(look=lambda: None),
                               _batch_of=lambda future, batch: batch)
    assert ClusterMap._wait(stand_in, Slow()) == "the batch"  # type: ignore[arg-type]
    assert asked == [1.0, 2.0, 4.0, 8.0]
