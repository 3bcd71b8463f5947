"""How a tournament's games are cut into batches on a Dask cluster, as the games show it: a
short map (an elimination's stage, a small tournament, the end of a long one) is shared by
every worker of the cluster, never left to one while the others wait."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import write_config
from cluster_support import ON_SHARED, shared_cluster

from arena.executor.cluster import Cluster
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

pytestmark = ON_SHARED

WITNESS = '''
import os
from pathlib import Path

from arena_bots.random_bot import RandomBot

SEEN = Path(FOLDER) / "players"  # FOLDER: the test's, written first (the bot plays a copy)


class Witness(RandomBot):
    """Notes which process plays each of its games."""

    name = "witness"

    def start(self, context):
        super().start(context)
        with SEEN.open("a") as seen:
            seen.write(f"{os.getpid()}\\n")
'''


@pytest.fixture(scope="module")
def address(request: pytest.FixtureRequest) -> str:
    """The shared cluster of two worker processes: its address."""
    return str(shared_cluster(request).scheduler_address)


def test_a_short_tournament_is_played_on_every_worker_of_the_cluster(
        tmp_path: Path, address: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_CLUSTER_CHECKS", "0")  # no game played twice: each seen once
    (tmp_path / "witness.py").write_text(f"FOLDER = {str(tmp_path)!r}\n{WITNESS}")
    config = write_config(tmp_path, f"""
        name: short
        rules: dice
        entrants:
          - {{bot: {tmp_path / "witness.py"}, mode: inline}}
          - random
        format: {{type: round-robin, seats: 2, games: 12}}
        seed: 1
        replays: false
    """)
    report = run_tournament(load_tournament(config), tmp_path / "out", cluster=Cluster(address))
    players = (tmp_path / "players").read_text().split()
    assert report.played == len(players) == 24
    assert len(set(players)) == 2
