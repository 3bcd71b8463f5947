"""The contest a site serves: its config, loaded once a process, and the folders it uses."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from django.conf import settings

from arena.tournament.config import TournamentConfig
from arena.tournament.load import load_tournament

__all__ = ["Contest", "current"]


@dataclass(frozen=True, slots=True)
class Contest:
    """The served contest: config, results folder (the season's) and the site's data folder."""

    config: TournamentConfig
    config_path: Path
    results: Path
    data: Path

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def store(self) -> Path:
        """Uploads by sha256: never served, never imported by the site."""
        return self.data / "store"

    @property
    def entries(self) -> Path:
        """The ladder's submissions folder the season fills from accepted uploads."""
        return self.data / "entries"

    @property
    def versions(self) -> Path:
        """A class's versions' gauntlets, one results folder each (`<bot>@<n>/`): beside the
        demo class's results folder, never inside it, so each stays a folder of arena results
        that a resumed run or `arena report` reads alone."""
        return self.results.with_name(f"{self.results.name}-versions")

    def gauntlet(self, player: str) -> Path:
        """The results folder of a class version's gauntlet (`player`: its `<bot>@<n>`)."""
        return self.versions / player

    @property
    def graded(self) -> bool:
        """A class: a gauntlet whose config has grades (each version plays the champions)."""
        return bool(self.config.grades)


@cache
def current() -> Contest:
    """The contest of this process's settings (ARENA_SITE_CONFIG, ARENA_SITE_DATA)."""
    path = Path(settings.CONFIG)
    config = load_tournament(path)
    results = Path(config.output or f"results/{config.name}")  # as `arena run` finds it
    return Contest(config, path, results.resolve(), Path(settings.DATA))
