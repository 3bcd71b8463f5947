"""`--cluster` from the user's side: `arena run`, `validate`, `compare` and `doctor` on a real
Dask cluster of worker processes on loopback, with the same bytes and words as here, and
one line (exit 2) for a cluster that cannot be used, exit 75 for one lost mid-run."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import invoke_cli, write_config
from cluster_support import (
    ON_SHARED,
    Scheduler,
    Worker,
    client_of,
    shared_cluster,
    wait_for_workers,
)
from distributed import Client, LocalCluster

from arena.executor import dial as cluster_executor

pytestmark = ON_SHARED

RUN_FILES = ("games.jsonl", "ratings.json", "standings.md", "crosstable.csv")
SMALL = """\
    name: small
    rules: dice
    seed: 5
    entrants: [honest, bluffer, statistician, random]
    format: {type: round-robin, seats: 3, games: 2}
"""


@pytest.fixture(scope="module")
def cluster(request: pytest.FixtureRequest) -> str:
    """The shared local cluster of two worker processes; its address."""
    return str(shared_cluster(request).scheduler_address)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_without_dask_cluster_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(tmp_path, SMALL)
    monkeypatch.setitem(sys.modules, "distributed", None)
    flag = invoke_cli("run", config, "--cluster", "tcp://127.0.0.1:8786")
    keyed = write_config(tmp_path, SMALL + "    cluster: tcp://127.0.0.1:8786\n", "k.yaml")
    key = invoke_cli("run", keyed)
    for result in (flag, key):
        assert (result.exit_code, result.stdout, result.stderr) == (
            2, "", "arena: error: --cluster needs Dask: pip install 'distributed>=2024.6'\n")
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(("flags", "said"), [
    (("--cluster", "127.0.0.1:8786"),
     ("cluster address '127.0.0.1:8786' must start with tcp:// or tls:// (the scheduler's "
     "address, as `dask scheduler` prints it)")),
    (("--cluster", "tls://127.0.0.1:8786", "--tls-ca", "ca.pem"),
     ("a tls:// cluster needs its CA file and this client's certificate and key "
     "(--tls-ca, --tls-cert, --tls-key)")),
    (("--cluster", "tls://127.0.0.1:8786", "--tls-ca", "ca.pem", "--tls-cert", "me.pem",
      "--tls-key", "me.key"), "--tls-ca ca.pem: no such file"),
    (("--tls-ca", "ca.pem"),
     "--tls-ca: TLS files are for a tls:// cluster; give its address with --cluster"),
    (("--cluster", "tcp://127.0.0.1"),
     ("cluster address 'tcp://127.0.0.1' must name the scheduler's host and port, as `dask "
      "scheduler` prints it (tcp://HOST:8786)")),
    (("--cluster", "tcp://127.0.0.1:abc"),
     ("cluster address 'tcp://127.0.0.1:abc' must name the scheduler's host and port, as "
      "`dask scheduler` prints it (tcp://HOST:8786)")),
])
def test_a_cluster_that_cannot_be_used_is_one_line(
    tmp_path: Path, flags: tuple[str, ...], said: str
) -> None:
    config = write_config(tmp_path, SMALL)
    result = invoke_cli("run", config, *flags)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"arena: error: {said}\n")


def test_no_scheduler_at_the_address_is_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster_executor, "DIAL_SECONDS", 1.0)  # 10 s in use: the same path
    config = write_config(tmp_path, SMALL)
    address = f"tcp://127.0.0.1:{_closed_port()}"
    result = invoke_cli("run", config, "--cluster", address, "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"arena: error: cannot reach the Dask scheduler at {address}: ")
    assert result.stderr.count("\n") == 1


def test_a_port_that_never_answers_is_one_line_not_a_hang(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster_executor, "CONNECT_SECONDS", 1.0)  # 15 s in use: the same path
    listener = socket.create_server(("127.0.0.1", 0))  # accepts, as a dashboard does, and
    accepted: list[socket.socket] = []  # never says a word of Dask's

    def accept() -> None:
        with contextlib.suppress(OSError):
            while True:
                accepted.append(listener.accept()[0])

    threading.Thread(target=accept, daemon=True).start()
    address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    try:
        result = invoke_cli("doctor", "--cluster", address)
    finally:
        listener.close()
        for connection in accepted:
            connection.close()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"arena: error: no Dask scheduler answered at {address} within 1 s (is it the "
        "scheduler's address, as `dask scheduler` prints it, not its dashboard's?)\n")


def test_a_run_on_the_cluster_writes_what_a_local_run_writes(tmp_path: Path, cluster: str) -> None:
    config = write_config(tmp_path, SMALL)
    here = invoke_cli("run", config, "--workers", "2", "--out", tmp_path / "here")
    there = invoke_cli("run", config, "--cluster", cluster, "--out", tmp_path / "there")
    assert (there.exit_code, there.stdout) == (0, here.stdout)
    assert "arena: cluster: 2 workers, 2 threads at " in there.stderr
    assert f"playing 24 on the cluster at {cluster} into " in there.stderr
    for name in RUN_FILES:
        assert (tmp_path / "there" / name).read_bytes() == (tmp_path / "here" / name).read_bytes()


def test_the_config_key_plays_on_the_cluster_and_the_flag_wins(
    tmp_path: Path, cluster: str
) -> None:
    wrong = f"tcp://127.0.0.1:{_closed_port()}"
    config = write_config(tmp_path, SMALL + f"    cluster: {wrong}\n")
    keyed = write_config(tmp_path, SMALL + f"    cluster: {cluster}\n", "k.yaml")
    by_flag = invoke_cli("run", config, "--cluster", cluster, "--out", tmp_path / "flag")
    by_key = invoke_cli("run", keyed, "--out", tmp_path / "key")
    for result, out in ((by_flag, "flag"), (by_key, "key")):
        assert result.exit_code == 0, result.stderr
        assert f"on the cluster at {cluster} into " in result.stderr
        assert (tmp_path / out / "config.yaml").read_text().startswith(f"cluster: {cluster}\n")


@contextlib.contextmanager
def _dask_processes(folder: Path) -> Iterator[tuple[str, Scheduler]]:
    """A scheduler and one worker as `dask scheduler` and `dask worker` run them, each its
    own process (so the scheduler can be killed); its address and the scheduler."""
    scheduler = Scheduler(folder)
    worker = Worker(scheduler, "only")
    try:
        with client_of(scheduler.address) as client:
            wait_for_workers(client, {"only"})
        yield scheduler.address, scheduler
    finally:
        worker.kill()
        scheduler.kill()


def test_a_scheduler_lost_mid_run_keeps_the_games_and_says_how_to_resume(
    tmp_path: Path
) -> None:
    config = write_config(tmp_path, SMALL.replace("games: 2", "games: 20"))
    out = tmp_path / "out"
    with _dask_processes(tmp_path) as (address, scheduler):
        killer = threading.Thread(target=_kill_when_played, args=(scheduler, out), daemon=True)
        killer.start()
        result = invoke_cli("run", config, "--cluster", address, "--out", out)
        killer.join()
    assert result.exit_code == 75
    last = result.stderr.splitlines()[-1]
    assert last.startswith("arena: the cluster was lost: ")
    assert last.endswith(f"; the games in games.jsonl are kept; to play the rest: arena run "
                         f"{config} --out {out} --cluster {address} --resume")
    kept = (out / "games.jsonl").read_text().splitlines()
    assert 0 < len(kept) < 240
    resumed = invoke_cli("run", config, "--out", out, "--resume", "--workers", "2")
    assert resumed.exit_code == 0, resumed.stderr
    assert f"{len(kept)} already played" in resumed.stderr


def _kill_when_played(scheduler: Scheduler, out: Path) -> None:
    """Kill the cluster's scheduler once the run has written some games."""
    games = out / "games.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if games.exists() and games.stat().st_size > 0:
            break
        time.sleep(0.02)
    scheduler.kill()


def test_a_scheduler_lost_mid_comparison_exits_75(tmp_path: Path) -> None:
    with _dask_processes(tmp_path) as (address, scheduler):
        killer = threading.Thread(target=_kill_when_busy, args=(scheduler, address), daemon=True)
        killer.start()
        result = invoke_cli("compare", "random", "honest", "--games", "100000", "--seed", "2",
                            "--cluster", address)
        killer.join()
    assert (result.exit_code, result.stdout) == (75, "")
    last = result.stderr.splitlines()[-1]
    assert last.startswith("arena: the cluster was lost: ")
    assert last.endswith("; a comparison keeps nothing: run it again once the cluster is back")


def _kill_when_busy(scheduler: Scheduler, address: str) -> None:
    """Kill the cluster's scheduler once a batch of games is being played."""
    with Client(address, timeout=30) as watcher:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(watcher.processing().values()):
            time.sleep(0.02)
    scheduler.kill()


# --- the dry run on a worker ---------------------------------------------------------------

SPY = """\
import os
import socket

import arena

SEEN = f"host={{socket.gethostname()}} uid={{os.getuid()}}"
try:  # a stranger's code at import: it leaves a mark where it can
    with open({marker!r}, "w") as mark:
        mark.write(SEEN)
except OSError:
    pass


class Spy(arena.Bot):
    name = "spy " + SEEN
    rules = ("dice",)

    def act(self, obs):
        return arena.Challenge() if obs.decision == "respond" else arena.Bid(obs.min_claim)
"""
CARDS_ONLY = """\
import arena


class Picky(arena.Bot):
    name = "picky"
    rules = ("cards",)

    def act(self, obs):
        return arena.Accept()
"""


def _with_bot(folder: Path, source: str, name: str) -> Path:
    (folder / name).write_text(source)
    return write_config(folder, SMALL.replace("[honest,", f"[{name}, honest,"))


def test_on_a_cluster_a_strangers_dry_run_is_in_a_workers_sandbox_not_here(
    tmp_path: Path, cluster: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The organiser's laptop has no sandbox at all; the cluster's workers do.
    from arena.hosts import walls

    bare = tuple(dataclasses.replace(w, found=False) for w in walls.survey())
    monkeypatch.setattr(walls, "survey", lambda: bare)
    marker = tmp_path / "marker"
    config = _with_bot(tmp_path, SPY.format(marker=str(marker)), "spy.py")
    result = invoke_cli("validate", config, "--cluster", cluster)
    assert result.exit_code == 0, result.stderr
    said = re.search(r"says it is 'spy host=(\S+) uid=(\d+)'", result.stdout)
    assert said is not None, result.stdout
    assert said.group(1) == "arena"  # bubblewrap's own host name: inside the sandbox
    assert int(said.group(2)) not in (0, os.getuid())  # a uid of its own
    assert not marker.exists(), marker.read_text()  # nothing it did reached this machine


def test_a_bot_that_refuses_the_rules_is_refused_on_the_cluster_in_the_same_words(
    tmp_path: Path, cluster: str
) -> None:
    config = _with_bot(tmp_path, CARDS_ONLY, "picky.py")
    here = invoke_cli("validate", config)
    there = invoke_cli("validate", config, "--cluster", cluster)
    assert here.exit_code == 2
    assert "picky" in here.stderr
    assert (there.exit_code, there.stdout, there.stderr) == (2, "", here.stderr)


def test_the_cards_of_a_dry_run_on_the_cluster_are_the_ones_said_here(
    tmp_path: Path, cluster: str
) -> None:
    config = _with_bot(tmp_path, SPY.format(marker="/nonexistent/marker"), "spy.py")
    here = invoke_cli("validate", config)
    there = invoke_cli("validate", config, "--cluster", cluster)
    assert here.exit_code == 0, here.stderr
    assert f"(process, file {tmp_path}/spy.py): says it is 'spy host=arena uid=" in here.stdout
    assert (there.exit_code, there.stdout) == (0, here.stdout.replace(
        _uid(here.stdout), _uid(there.stdout)))


def _uid(said: str) -> str:
    """The uid a sandboxed bot saw (one of a range, drawn per bot process)."""
    found = re.search(r"uid=\d+", said)
    assert found is not None
    return found.group(0)


# --- compare and doctor --------------------------------------------------------------------


def test_compare_on_the_cluster_gives_the_local_verdict(cluster: str) -> None:
    asked = ("compare", "statistician", "random", "--games", "400", "--seed", "11")
    here = invoke_cli(*asked, "--workers", "2")
    there = invoke_cli(*asked, "--cluster", cluster)
    assert here.stdout.splitlines()[-1].startswith(
        "verdict     better: statistician is better than random: 95% confident it is stronger")
    assert (there.exit_code, there.stdout) == (here.exit_code, here.stdout)
    assert "arena: cluster: 2 workers, 2 threads at " in there.stderr


def test_compare_on_a_cluster_that_cannot_be_used_is_one_line(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    result = invoke_cli("compare", "honest", "random", "--cluster", "tcp://127.0.0.1:8786")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", "arena: error: --cluster needs Dask: pip install 'distributed>=2024.6'\n")


def test_doctor_says_each_workers_sandbox_level(cluster: str) -> None:
    with Client(cluster, timeout=30) as client:
        workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
    host = socket.gethostname()
    result = invoke_cli("doctor", "--cluster", cluster)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == "".join(
        [f"cluster {cluster}: 2 workers\n"]
        + [f"worker {w} ({host}): level strict: every wall, for bots written by strangers\n"
           for w in workers])


def test_when_no_worker_gives_the_level_the_run_stops_before_any_game_saying_why(
    tmp_path: Path
) -> None:
    weak = {"PATH": str(Path(sys.executable).parent)}  # no bubblewrap, no setpriv there
    config = _with_bot(tmp_path, SPY.format(marker="/nonexistent/marker"), "spy.py")
    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None,
                      processes=True, env=weak) as cluster:
        address = cluster.scheduler_address
        worker = next(iter(cluster.scheduler_info["workers"]))
        doctor = invoke_cli("doctor", "--cluster", address)
        refused = invoke_cli("run", config, "--cluster", address, "--out", tmp_path / "out")
        trusted = invoke_cli("run", write_config(tmp_path, SMALL), "--cluster", address,
                             "--out", tmp_path / "trusted")
    host = socket.gethostname()
    assert doctor.stdout == (
        f"cluster {address}: 1 workers\nworker {worker} ({host}): level none: no sandbox, for "
        "bots you trust only; strict would need: bubblewrap, one uid per bot\n")
    assert (refused.exit_code, refused.stdout) == (2, "")
    assert refused.stderr == (
        f"arena: error: no worker of the cluster can play these games: worker {worker} ({host}) "
        "refuses: isolation strict needs 2 walls missing here: bubblewrap (not installed): "
        "apt-get install bubblewrap; one uid per bot (not root: every bot shares this user's "
        "uid): run arena as root (util-linux setpriv: apt-get install util-linux)\n")
    assert not (tmp_path / "out").exists()
    assert trusted.exit_code == 0, trusted.stderr  # built-in bots alone need no sandbox


def test_an_entrant_with_the_network_is_refused_on_a_cluster_without_tls(
    tmp_path: Path,
) -> None:
    (tmp_path / "mine.py").write_text("from arena_bots.random_bot import RandomBot\n\n\n"
                                      "class Mine(RandomBot):\n    name = 'mine'\n")
    config = write_config(tmp_path, """\
        name: open
        rules: dice
        entrants:
          - random
          - {bot: mine.py, alias: online, network: true}
        format: {type: round-robin, seats: 2, games: 2}
    """)
    address = f"tcp://127.0.0.1:{_closed_port()}"
    result = invoke_cli("run", config, "--cluster", address, "--out", tmp_path / "out")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"arena: error: entrant 'online' has network: true, and the cluster at {address} has "
        "no TLS: its bot could reach the scheduler from a worker and run code on every "
        "worker; play it on a tls:// cluster (docs/cluster.md)\n")
    assert not (tmp_path / "out").exists()
