"""A results folder is made ready by its format (issue 33): the one runner asks the config's
format to prepare the folder (a whole schedule's resume checks, a season's versions) and
plays what it made ready; a format's own prepare step is the one a run takes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from arena.tournament.config import TournamentConfig
from arena.tournament.errors import TournamentError
from arena.tournament.formats.base import Asked, Format, Ready
from arena.tournament.formats.builtin import RoundRobin
from arena.tournament.formats.ladder.format import LadderFormat
from arena.tournament.formats.ladder.season import run_ladder
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

ROUND_ROBIN = """\
name: rr
rules: dice
options: {max_points: 1}
entrants: [honest, random, bluffer]
format: {type: round-robin, seats: 2, games: 1}
seed: 3
replays: false
"""
LADDER = """\
name: season
rules: dice
options: {max_points: 1}
entrants: [honest, random, bluffer]
format: {type: ladder, seats: 2, min_games: 2, batch: 2, band: 2}
seed: 5
replays: false
"""


def _load(root: Path, text: str) -> TournamentConfig:
    (root / "t.yaml").write_text(text, "utf-8")
    return load_tournament(root / "t.yaml")


def _spying(real: Callable[..., Ready], seen: list[tuple[str, Path, Asked]]
            ) -> Callable[..., Ready]:
    def spy(self: Format, folder: Path, cfg: TournamentConfig, asked: Asked) -> Ready:
        seen.append((self.type, folder, asked))
        return real(self, folder, cfg, asked)

    return spy


@pytest.fixture
def prepared(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Path, Asked]]:
    """Each prepare step a run asks of a format: its type, the folder and the flags."""
    seen: list[tuple[str, Path, Asked]] = []
    for kind in (RoundRobin, LadderFormat):
        monkeypatch.setattr(kind, "prepare", _spying(kind.prepare, seen))
    return seen


def test_every_run_plays_the_folder_its_format_made_ready(
        tmp_path: Path, prepared: list[tuple[str, Path, Asked]]) -> None:
    report = run_tournament(_load(tmp_path, ROUND_ROBIN), tmp_path / "rr")
    season = run_ladder(_load(tmp_path, LADDER), tmp_path / "season", 4)
    assert [(kind, folder.name) for kind, folder, _ in prepared] == [
        ("round-robin", "rr"), ("ladder", "season")]
    assert prepared[1][2].games == 4
    assert report.played == 6 and season.ladder["games"] == 4
    again = run_tournament(_load(tmp_path, ROUND_ROBIN), tmp_path / "rr", resume=True)
    assert prepared[2][2].resume and again.played == 0 and again.resumed == 6


def test_a_format_that_refuses_its_folder_stops_the_run_before_any_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: RoundRobin, folder: Path, cfg: TournamentConfig, asked: Asked) -> Ready:
        raise TournamentError(f"{folder}: not ready")

    monkeypatch.setattr(RoundRobin, "prepare", refuse)
    with pytest.raises(TournamentError, match="rr: not ready"):
        run_tournament(_load(tmp_path, ROUND_ROBIN), tmp_path / "rr")
    assert not (tmp_path / "rr" / "games.jsonl").exists()


def test_a_ladder_season_of_another_format_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(TournamentError, match="a round-robin is not a ladder's season"):
        run_ladder(_load(tmp_path, ROUND_ROBIN), tmp_path / "rr", 4)
