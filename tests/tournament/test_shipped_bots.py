"""Bot files travel with the work: the run packs each file bot's bytes into the setup, each
worker writes them once under its temporary folder (content-addressed, its own) and plays
the entrant from that copy, so a cluster's machines need none of the organiser's folders,
and a bot file edited or deleted mid-run changes no game. The results name the config's
file, never the copy."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import write_config
from distributed import Client, LocalCluster
from needs import require

from arena.compare.groups import Entrant, Setup
from arena.compare.run import run_compare
from arena.compare.verdict import Bounds, Comparison
from arena.executor.cluster import Cluster
from arena.hosts import walls
from arena.replay import read_replay
from arena.tournament.errors import TournamentError
from arena.tournament.load import load_tournament
from arena.tournament.run import results
from arena.tournament.run.runner import run_tournament
from arena.tournament.run.shipment import SHIPPED_FOLDER

CAUTIOUS = '''
import arena


class Cautious(arena.Bot):
    """Claims the lowest legal claim; challenges any claim above a pair of aces."""

    name = "cautious"

    def act(self, obs):
        if obs.decision in ("respond", "accept") and obs.claim > arena.parse_claim("pair A"):
            return arena.Challenge()
        if obs.decision == "respond":
            return arena.Look()
        if obs.decision == "reroll":
            return arena.Reroll(())
        return arena.Bid(obs.min_claim)
'''
RASH = '''
import arena


class Rash(arena.Bot):
    """Challenges every claim it can."""

    name = "rash"

    def act(self, obs):
        if obs.decision == "respond":
            return arena.Challenge()
        return arena.Bid(obs.min_claim)
'''
SPY = '''
import os

import arena


class Spy(arena.Bot):
    """Says, as its fault, what it finds beside the folder of its own file."""

    name = "spy"

    def act(self, obs):
        beside = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        raise RuntimeError(" ".join(sorted(os.listdir(beside))))
'''


@pytest.fixture(autouse=True)
def sandbox_here() -> None:
    """Bots from files run in the sandbox, as an organiser's untrusted entrants do."""
    require(walls.strongest() != "none",
            "bubblewrap and libseccomp are needed: apt-get install bubblewrap libseccomp2")


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A local Dask cluster whose worker processes work in an empty folder of their own, as
    another machine's would: none of the organiser's relative paths exist there."""
    empty = tmp_path_factory.mktemp("worker-cwd")
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as local:
        with Client(local) as client:
            client.run(os.chdir, str(empty))
            assert set(client.run(os.getcwd).values()) == {str(empty)}
        yield Cluster(local.scheduler_address)


def _bot(folder: Path, name: str, source: str) -> Path:
    path = folder / "bots" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(textwrap.dedent(source).lstrip())
    return path


def _config(folder: Path, entrants: str) -> Path:
    return write_config(folder, f"""
        name: t
        rules: dice
        options: {{max_points: 2}}
        entrants: {entrants}
        format: {{type: round-robin, seats: 2, games: 1}}
        seed: 3
    """)


def _seats(folder: Path) -> dict[str, dict[str, object]]:
    """Each entrant as its replays' headers describe it (the same in every game)."""
    seats: dict[str, list[dict[str, object]]] = {}
    for path in sorted((folder / results.REPLAYS).iterdir()):
        for seat in read_replay(path).header["entrants"]:
            seats.setdefault(seat["name"], []).append({k: v for k, v in seat.items()
                                                       if k != "seat"})
    assert all(len({json.dumps(s) for s in found}) == 1 for found in seats.values())
    return {name: found[0] for name, found in seats.items()}


def test_a_relative_file_bot_plays_on_workers_that_do_not_have_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, elsewhere: Cluster
) -> None:
    monkeypatch.chdir(tmp_path)
    _bot(tmp_path, "mine.py", CAUTIOUS)
    cfg = load_tournament(Path(_config(tmp_path, "[bots/mine.py, random, honest]").name))
    assert cfg.entrants[0].bot == "bots/mine.py"
    run_tournament(cfg, "local", workers=2)
    run_tournament(cfg, "cluster", cluster=elsewhere)
    games = (tmp_path / "cluster" / results.GAMES).read_bytes()
    assert games == (tmp_path / "local" / results.GAMES).read_bytes()
    assert b'"faults":[{' not in games  # the bot played every game, no seat faulted
    mine = _seats(tmp_path / "cluster")["mine"]
    assert (mine["bot"], mine["origin"], mine["mode"], mine["isolation"]) == \
        ("bots/mine.py", "file bots/mine.py", "process", walls.strongest())


def test_a_bot_file_edited_or_deleted_mid_run_changes_no_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    mine, other = _bot(tmp_path, "mine.py", CAUTIOUS), _bot(tmp_path, "other.py", CAUTIOUS)
    entrants = ("[{bot: bots/mine.py, alias: trusted, mode: inline}, "
                "{bot: bots/other.py, alias: untrusted}, random]")
    cfg = load_tournament(Path(_config(tmp_path, entrants).name))
    run_tournament(cfg, "untouched", workers=2)

    def meddle(_: str) -> None:
        """Once the run has started: a new bot in one file, the other file gone."""
        if other.exists():
            mine.write_text(textwrap.dedent(RASH).lstrip())
            other.unlink()

    run_tournament(cfg, "touched", workers=2, info=meddle)
    assert not other.exists()
    assert (tmp_path / "touched" / results.GAMES).read_bytes() == \
        (tmp_path / "untouched" / results.GAMES).read_bytes()
    seats = _seats(tmp_path / "touched")
    assert (seats["trusted"]["origin"], seats["trusted"]["mode"]) == \
        ("file bots/mine.py", "inline")


def test_a_compare_plays_the_file_as_it_was_when_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each twin game starts the bot afresh (it must not remember the deal): from the copy."""
    monkeypatch.chdir(tmp_path)
    mine = _bot(tmp_path, "mine.py", CAUTIOUS)
    setup = Setup(Entrant("bots/mine.py"), Entrant("random"))

    def meddle(_: Comparison) -> None:
        mine.unlink(missing_ok=True)

    untouched = run_compare(setup, Bounds(0.0, 60.0), 8)
    touched = run_compare(setup, Bounds(0.0, 60.0), 8, progress=meddle)
    assert not mine.exists()
    assert touched.tally == untouched.tally
    assert (touched.tally.games, touched.tally.candidate_faults) == (8, 0)


def test_the_sandbox_shows_a_bot_its_own_copy_and_no_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    spy = _bot(tmp_path, "spy.py", SPY)
    _bot(tmp_path, "mine.py", CAUTIOUS)
    cfg = load_tournament(Path(_config(tmp_path, "[bots/spy.py, bots/mine.py]").name))
    run_tournament(cfg, "out", workers=1)
    own = hashlib.sha256(spy.read_bytes()).hexdigest()[:32]
    lines = [json.loads(line) for line in (tmp_path / "out" / results.GAMES).open()]
    said = {f["message"] for line in lines for f in line["faults"]}
    assert said == {f"RuntimeError: {own}"}


@pytest.mark.parametrize(("planted", "why"), [("symlink", "belongs to another user"),
                                              ("foreign", "belongs to another user"),
                                              ("open", "is writable by other users")])
def test_a_shipped_bots_folder_made_by_someone_else_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planted: str, why: str
) -> None:
    """Another user who made the folder first could swap the bot that plays."""
    monkeypatch.chdir(tmp_path)
    _bot(tmp_path, "mine.py", CAUTIOUS)
    cfg = load_tournament(Path(_config(tmp_path, "[bots/mine.py, random]").name))
    temporary, theirs = tmp_path / "tmp", tmp_path / "theirs"
    temporary.mkdir()
    theirs.mkdir(mode=0o777)
    folder = temporary / f"{SHIPPED_FOLDER}-{os.getuid()}"
    if planted == "symlink":
        folder.symlink_to(theirs)
    elif planted == "foreign":
        require(os.geteuid() == 0, "giving a folder to another uid needs root")
        folder.mkdir()
        os.chown(folder, 4242, 4242)
    else:
        folder.mkdir()
        folder.chmod(0o777)
        theirs = folder
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    with pytest.raises(TournamentError) as refused:
        run_tournament(cfg, "out", workers=1)
    assert str(refused.value) == \
        f"a worker could not start: {folder} {why}: shipped bots are not kept there"
    assert list(theirs.iterdir()) == []
    assert not (tmp_path / "out" / results.GAMES).read_bytes()
