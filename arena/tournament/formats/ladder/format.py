"""The ladder as a format: its config keys (min_games, batch, band, final_games) and what a
season is to the rest of arena; its games are chosen run by run from its folder (season.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.tournament.config import EntrantConfig, TournamentConfig
from arena.tournament.errors import TournamentError
from arena.tournament.formats.base import Asked, Format, Ready

if TYPE_CHECKING:
    from arena.tournament.config.checks import FieldChecks
    from arena.tournament.formats.plan import Plan

__all__ = ["LadderFormat"]

_KEYS = (("min_games", 20, 0), ("batch", 8, 1), ("band", 4, 2), ("final_games", 1, 1))
"""Each key of a ladder's format section, its default and its least value."""


class LadderFormat(Format):
    """A season: tables chosen batch by batch among the active versions (matchmaking)."""

    type = "ladder"
    keys = tuple(key for key, _, _ in _KEYS)
    season = True

    def settings(self, checks: FieldChecks, section: Mapping[str, Any], seats: int,
                 entrants: tuple[EntrantConfig, ...]) -> dict[str, Any]:
        return {key: checks.whole(("format", key), section.get(key, default), low)
                for key, default, low in _KEYS}

    def prepare(self, folder: Path, cfg: TournamentConfig, asked: Asked) -> Ready:
        """A season's folder made ready: its versions changed and started, or its final
        frozen, and the season as the run's plan (season.py's `prepare_season`)."""
        from arena.tournament.formats.ladder.season import prepare_season

        return prepare_season(folder, cfg, asked)

    def plan(self, cfg: TournamentConfig) -> Plan:
        """A season has no plan apart from its folder: its games follow its versions."""
        raise TournamentError(f"{cfg.name}: a ladder's games are chosen from its folder run "
                              "by run; play it with arena run --games N")

    def described(self, cfg: TournamentConfig) -> str:
        fmt = cfg.format
        return (f"a ladder of {fmt.seats}-seat tables, {fmt.batch} tables a batch, ranked "
                f"after {fmt.min_games} games")
