"""The games a caught cluster worker returned before it was caught are played again and put
right (arena.tournament.run.recall): a worker that swapped a bot passes the rules' check, so
its legal but false games were written; once it is caught, each is played again and the
folder ends with the bytes of a run where nobody lied."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from cli_support import write_config

from arena.executor.local import Executor
from arena.replay import read_listed, timeless
from arena.tournament.errors import TournamentError
from arena.tournament.formats.registry import plan_for
from arena.tournament.load import load_tournament
from arena.tournament.run import results
from arena.tournament.run.audit import digest
from arena.tournament.run.recall import played_again
from arena.tournament.run.runner import run_tournament, tournament_setup
from arena.tournament.run.worker import game_job

CONFIG = """
    name: recall
    rules: dice
    entrants: [honest, {SWAPPED}, statistician]
    format: {type: round-robin, seats: 2, games: 3}
    seed: 11
"""


class _Recalling:
    """An executor whose caught worker had played `specs`: handed back once by `recall`,
    then played honestly here."""

    def __init__(self, executor: Executor, specs: list[Any]) -> None:
        self.executor, self.specs = executor, specs

    def recall(self) -> list[Any]:
        specs, self.specs = self.specs, []
        return specs

    def map(self, specs: Iterable[Any]) -> Iterator[Any]:
        return self.executor.map(specs)


def _played(tmp_path: Path, name: str, entrant: str) -> Path:
    """A run's folder on this machine, `random`'s seat played by `entrant`'s bot."""
    folder = tmp_path / name
    folder.mkdir()
    config = write_config(folder, CONFIG.replace("{SWAPPED}", entrant))
    run_tournament(load_tournament(config), folder / "out", workers=1)
    return folder / "out"


def _state(out: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the run holds in memory of its folder: placements and written digests by game."""
    placed, written = {}, {}
    for text, line in results.iter_game_lines(out / results.GAMES):
        replay = (out / line["replay"]).read_bytes()
        placed[line["id"]] = tuple(line["placements"])
        written[line["id"]] = (digest(text.encode("utf-8")), digest(replay))
    return placed, written


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path, list[Any], Executor]:
    honest = _played(tmp_path, "honest", "random")
    lied = _played(tmp_path, "lied", "{bot: boss, alias: random}")  # boss under random's name
    cfg = load_tournament(tmp_path / "honest" / "t.yaml")
    specs = list(plan_for(cfg).batch({}))
    executor = Executor(game_job(replace(tournament_setup(cfg), replays=True)))
    return honest, lied, specs, executor


def test_a_caught_worker_s_written_games_are_played_again_and_the_folder_is_a_true_run_s(
    folders: tuple[Path, Path, list[Any], Executor],
) -> None:
    honest, lied, specs, executor = folders
    assert (lied / results.GAMES).read_bytes() != (honest / results.GAMES).read_bytes()
    placed, written = _state(lied)
    try:
        count = played_again(executor=_Recalling(executor, specs),  # type: ignore[arg-type]
                             folder=lied, current={s.id for s in specs}, results=placed,
                             written=written, replays=True)
    finally:
        executor.close()
    assert count > 0
    assert (lied / results.GAMES).read_bytes() == (honest / results.GAMES).read_bytes()
    assert (placed, {k: v[0] for k, v in written.items()}) == (
        _state(honest)[0], {k: v[0] for k, v in _state(honest)[1].items()})
    for line in results.iter_games(honest / results.GAMES):
        assert timeless(read_listed(lied, line["replay"])) == timeless(
            read_listed(honest, line["replay"])), line["id"]


def test_a_game_of_an_earlier_stage_that_comes_out_otherwise_stops_the_run(
    folders: tuple[Path, Path, list[Any], Executor],
) -> None:
    _, lied, specs, executor = folders
    placed, written = _state(lied)
    before = (lied / results.GAMES).read_bytes()
    try:
        with pytest.raises(TournamentError, match="of an earlier stage was played by a worker "
                                                  "caught lying"):
            played_again(_Recalling(executor, specs), lied, set(),  # type: ignore[arg-type]
                         placed, written, True)
    finally:
        executor.close()
    assert (lied / results.GAMES).read_bytes() == before
