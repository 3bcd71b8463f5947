"""What a tournament format is (issue 33): one interface the config loader, the plan, the
runner and the command line ask, instead of testing the config's `type`.

A `Format` is registered under its config `type` (arena/tournament/formats/registry.py: the
five built in, and any a plugin registers through the `register_formats` hook). It checks
its own config keys, deals its games batch by batch given the results so far (`Plan`), and
says what the user should know before they are played. This module never plays a game and
never knows a rule of the game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from arena.tournament.config import EntrantConfig, TournamentConfig

if TYPE_CHECKING:
    from arena.tournament.config.checks import FieldChecks
    from arena.tournament.formats.plan import Plan

__all__ = ["Format"]


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

    @abstractmethod
    def plan(self, cfg: TournamentConfig) -> Plan:
        """The plan of a tournament of this format: what to play next given the results."""

    def notes(self, cfg: TournamentConfig) -> tuple[str, ...]:
        """What the user should know about the schedule before it is played."""
        return ()

    def described(self, cfg: TournamentConfig) -> str:
        """What `arena validate` says of the tournament's size, after `ok: N entrants, `."""
        return f"{self.plan(cfg).total()} games"
