"""What a tournament format is (issue 33): one interface the config loader, the plan, the
runner and the command line ask, instead of testing the config's `type`.

A `Format` is registered under its config `type` (arena/tournament/formats/registry.py: the
five built in, and any a plugin registers through the `register_formats` hook). It checks
its own config keys, makes a results folder ready for a run (`prepare`: the flags and the
saved config checked, or a season's versions changed and validated), deals its games batch
by batch given the results so far (`Plan`), and says what the user should know before they
are played. This module never plays a game and never knows a rule of the game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from arena.tournament.config import EntrantConfig, TournamentConfig

if TYPE_CHECKING:
    from arena.executor.cluster import Cluster
    from arena.executor.local import Executor
    from arena.tournament.config.checks import FieldChecks
    from arena.tournament.formats.plan import Placements, Plan
    from arena.tournament.run.skipped import LeftOut

__all__ = ["Asked", "Format", "Ready"]


@dataclass(frozen=True, slots=True)
class Asked:
    """What a run was asked beside its config (the command line's flags), as a format's
    prepare step reads them: a whole schedule's resume, force and left out entrants, or a
    season's budget of games, confidence, final and re-runs."""

    resume: bool = False
    force: bool = False
    left_out: tuple[LeftOut, ...] = ()
    games: int = 0
    until: int | None = None
    final: int | None = None
    retry: tuple[str, ...] = ()
    cluster: Cluster | None = None


@dataclass(slots=True)
class Ready:
    """A results folder made ready for a run by its format: the tournament as it plays, the
    games its folder holds, and what the one runner plays before its plan's batches."""

    cfg: TournamentConfig
    recorded: list[tuple[str, Placements]] = field(default_factory=list)
    """The folder's games, checked against the plan's schedule as it deals them again."""
    plan: Plan | None = None
    """The run's plan; None: the format's plan of `cfg` (`Format.plan`)."""
    past: list[tuple[str, Placements]] = field(default_factory=list)
    """The folder's games taken as played, never dealt again (a season's earlier runs)."""
    before: Callable[[Executor], object] | None = None
    """Games played before the plan's, given the run's executor (a season's validation)."""


class Format(ABC):
    """A tournament format: its config keys and checks, and the plan of its games."""

    type: ClassVar[str]
    """The config's `format.type` that names it."""
    keys: ClassVar[tuple[str, ...]] = ()
    """Its own keys of the config's `format` section, beside type, seats and games."""
    graded: ClassVar[bool] = False
    """Whether its games meet every graded entrant with every grade's bot (`grades:`)."""
    season: ClassVar[bool] = False
    """Whether it is a season: a folder played into run by run, whose entrants may change
    (a `submissions:` folder, `arena run --games N`)."""

    def settings(self, checks: FieldChecks, section: Mapping[str, Any], seats: int,
                 entrants: tuple[EntrantConfig, ...]) -> dict[str, Any]:
        """Its own keys of `section`, checked, with their defaults: FormatConfig's fields by
        name (a key that is none of them is kept in its `extra`)."""
        return {}

    def prepare(self, folder: Path, cfg: TournamentConfig, asked: Asked) -> Ready:
        """Make the locked `folder` ready for a run of `cfg`: checked against the flags
        (--resume, --force) and the saved configuration, its torn last line and temporaries
        gone; the games it holds are dealt again by the plan (arena/tournament/run/prepare.py)."""
        from arena.tournament.run.prepare import prepare

        recorded = prepare(folder, cfg, resume=asked.resume, force=asked.force,
                           left_out=asked.left_out)
        return Ready(cfg, recorded)

    @abstractmethod
    def plan(self, cfg: TournamentConfig) -> Plan:
        """The plan of a tournament of this format: what to play next given the results."""

    def notes(self, cfg: TournamentConfig) -> tuple[str, ...]:
        """What the user should know about the schedule before it is played."""
        return ()

    def described(self, cfg: TournamentConfig) -> str:
        """What `arena validate` says of the tournament's size, after `ok: N entrants, `."""
        return f"{self.plan(cfg).total()} games"
