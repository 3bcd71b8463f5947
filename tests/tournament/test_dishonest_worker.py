"""A cluster worker's word is taken for nothing: a Dask worker that joins with a patched
arena (tests/cheating_worker.py, the honest code fingerprint) and swaps a bot, forges
placements, or returns huge, junk or repeated replays is caught, named in one line, given
no more games, and the run's results are a local run's, byte for byte.

One scheduler, one honest worker and one dishonest worker serve the module; each test tells
the dishonest one its lie (a word in a file it reads at each question)."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import invoke_cli
from cluster_support import (
    Scheduler,
    Worker,
    client_of,
    differing,
    wait_for,
    wait_for_workers,
)
from distributed import Client

from arena.executor.cluster import Cluster
from arena.tournament.config.yaml_lines import key_lines
from arena.tournament.load import load_tournament
from arena.tournament.run import results
from arena.tournament.run.audit import check_folder
from arena.tournament.run.runner import run_tournament
from arena.tournament.run.trial_remote import check_on_cluster

TESTS = Path(__file__).parents[1]
CONFIG = """name: trust
rules: dice
entrants: [honest, random, statistician]
format: {type: round-robin, seats: 2, games: 6}
seed: 11
"""
"""36 games, random in two of every three: a run's first four batches (a quarter of the
games each: arena's AHEAD batches per worker thread) each hold games of every entrant, as
with 72 games, whose batches were only twice as long: the liar's share is no smaller."""
LIES = ("swap", "placements", "huge", "junk", "repeat")
PICKLES = ("pickle", "raise")
"""A batch, or the error a batch raises, whose unpickling runs the worker's code."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Liar]]:
    """A scheduler with one honest worker and the dishonest one, the three started at once
    (each worker joins once the scheduler is up): its address and the liar."""
    scheduler = Scheduler(tmp_path_factory.mktemp("scheduler"))
    honest_one = Worker(scheduler, "honest")
    liar = Liar(scheduler, tmp_path_factory.mktemp("liar"))
    try:
        with client_of(scheduler.address) as client:
            wait_for_workers(client, {"honest", "liar"})
            liar.address = next(a for a, w in client.scheduler_info(n_workers=-1)["workers"]
                                .items() if w["name"] == "liar")
        yield scheduler.address, liar
    finally:
        liar.worker.kill()
        honest_one.kill()
        scheduler.kill()


@pytest.fixture(scope="module")
def honest(served: tuple[str, Liar]) -> str:
    """The scheduler's address (its honest worker beside the dishonest one)."""
    return served[0]


class Liar:
    """The module's dishonest worker (tests/cheating_worker.py): the lie it tells from now on
    is the word in its file, and what its pickles take over writes `mark`.<pid>."""

    def __init__(self, scheduler: Scheduler, folder: Path) -> None:
        self.said, self.mark = folder / "cheat", folder / "taken"
        self.said.write_text("")
        self.worker = Worker(scheduler, "liar", {
            "ARENA_TEST_CHEAT_FILE": str(self.said), "PYTHONPATH": str(TESTS),
            "ARENA_TEST_MARK": str(self.mark)}, args=("--preload", "cheating_worker"))
        self.address = ""

    def tell(self, lie: str) -> None:
        self.said.write_text(lie)


@pytest.fixture(scope="module")
def lying(served: tuple[str, Liar]) -> Liar:
    """The dishonest worker, joined to the honest one's scheduler."""
    return served[1]


@pytest.fixture
def liar(lying: Liar) -> Iterator[Liar]:
    """The dishonest worker, honest again after each test."""
    try:
        yield lying
    finally:
        lying.tell("")


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tournament played on this machine: the bytes every cluster run must write."""
    folder = tmp_path_factory.mktemp("local")
    (folder / "t.yaml").write_text(CONFIG)
    run_tournament(load_tournament(folder / "t.yaml"), folder / "out", workers=2)
    return folder / "out"


@pytest.mark.parametrize("lie", LIES)
def test_a_dishonest_worker_is_caught_named_and_the_results_are_a_local_runs(
    tmp_path: Path, honest: str, liar: Liar, local: Path, lie: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_CLUSTER_CHECKS", "1")  # every game is played again: no luck
    _caught_in_a_run(tmp_path, honest, liar, local, lie)


@pytest.mark.parametrize("lie", PICKLES)
def test_a_worker_that_sends_a_pickle_runs_no_code_here_and_is_caught(
    tmp_path: Path, honest: str, liar: Liar, local: Path, lie: str,
) -> None:
    _caught_in_a_run(tmp_path, honest, liar, local, lie)
    assert not Path(f"{liar.mark}.{os.getpid()}").exists(), \
        "the worker's code ran in the organiser"


@pytest.mark.parametrize("lie", PICKLES)
def test_doctor_names_a_worker_that_sends_a_pickle_and_runs_none_of_its_code(
    honest: str, liar: Liar, lie: str,
) -> None:
    liar.tell(lie)
    with client_of(honest) as client:
        workers = client.scheduler_info(n_workers=-1)["workers"]
    named = {w["name"]: a for a, w in workers.items()}
    result = invoke_cli("doctor", "--cluster", honest)
    assert not Path(f"{liar.mark}.{os.getpid()}").exists(), \
        "the worker's code ran in the organiser"
    host = socket.gethostname()
    lines = {
        named["honest"]: f"worker {named['honest']} ({host}): level strict: every wall, for "
                         "bots written by strangers\n",
        named["liar"]: f"worker {named['liar']}: its answer named code this process does not "
                       "run: refused; it runs other code than arena's\n"}
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout == f"cluster {honest}: 2 workers\n" + "".join(
        lines[a] for a in sorted(lines))


def _caught_in_a_run(tmp_path: Path, honest: str, liar: Liar, local: Path, lie: str) -> None:
    """A run beside a worker telling `lie`: caught, named once, the results a local run's."""
    (tmp_path / "t.yaml").write_text(CONFIG)
    liar.tell(lie)
    told: list[str] = []
    run_tournament(load_tournament(tmp_path / "t.yaml"), tmp_path / "out",
                   cluster=Cluster(honest), info=told.append)
    assert differing(local, tmp_path / "out") == [], told
    caught = [line for line in told if "caught" in line]
    assert len(caught) == 1, told
    assert caught[0].startswith(f"cluster: worker {liar.address} (") and "\n" not in caught[0]
    assert "it is given no more games; its games are played again elsewhere" in caught[0]
    games = list(results.iter_games(tmp_path / "out" / results.GAMES))
    assert [c.problem for c in check_folder(tmp_path / "out", games)] == [None] * len(games)
    print(caught[0])


def test_a_dishonest_worker_does_not_change_compare_s_verdict(
    honest: str, liar: Liar, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_CLUSTER_CHECKS", "1")
    asked = ("compare", "random", "honest", "--games", "60", "--seed", "11")
    here = invoke_cli(*asked)
    liar.tell("swap")  # it plays boss in random's seat: random would win where it loses
    there = invoke_cli(*asked, "--cluster", honest)
    assert (there.exit_code, there.stdout) == (here.exit_code, here.stdout), there.stderr
    caught = [line for line in there.stderr.splitlines() if "caught" in line]
    assert len(caught) == 1 and "it is given no more games" in caught[0], there.stderr


def test_a_worker_that_lies_in_the_dry_run_does_not_change_the_entrants(
    tmp_path: Path, honest: str,
) -> None:
    (tmp_path / "t.yaml").write_text(CONFIG)
    cfg = load_tournament(tmp_path / "t.yaml")
    second = Worker(honest, "second")
    liar = Worker(honest, "card-liar",
                  {"ARENA_TEST_CHEAT": "card", "PYTHONPATH": f"{TESTS}:{TESTS.parent}"},
                  args=("--preload", "cheating_worker", "--worker-port", str(_low_port())))
    try:  # the liar's address sorts first: a run that asks one worker asks the liar
        with client_of(honest) as client:
            wait_for_workers(client, {"second", "card-liar"})
        cards = check_on_cluster(Cluster(honest), cfg, key_lines(tmp_path / "t.yaml"))
    finally:
        liar.kill()
        second.kill()
        with client_of(honest) as client:  # gone before the next test counts the workers
            wait_for(lambda: not {"second", "card-liar"} & _names(client),
                     "the dry run's workers to leave")
    assert [type(card).__name__ for card in cards] == ["BotCard"] * 3, cards


def _names(client: Client) -> set[str]:
    return {w["name"] for w in client.scheduler_info(n_workers=-1)["workers"].values()}


def _low_port() -> int:
    """A free port whose address sorts before every ephemeral one (32768 and up)."""
    for port in range(10000, 20000):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise AssertionError("no free port from 10000 to 19999")
