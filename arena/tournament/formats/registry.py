"""The formats by the config's `type`: the five built in and any a plugin registers through
the `register_formats` hook (arena/hookspecs.py), as OpenSpiel registers its games.

Everything that depends on the format asks it here (`format_of`, `plan_for`) instead of
testing the type's name.
"""

from __future__ import annotations

from arena.plugins import PluginError, Registry, default_registry
from arena.tournament.config import TournamentConfig
from arena.tournament.formats.base import Format
from arena.tournament.formats.builtin import (
    EliminationFormat,
    GauntletFormat,
    RoundRobin,
    SwissFormat,
)
from arena.tournament.formats.ladder.format import LadderFormat
from arena.tournament.formats.plan import Plan

__all__ = ["BUILTIN", "format_of", "formats", "plan_for"]

BUILTIN: tuple[Format, ...] = (RoundRobin(), EliminationFormat(), GauntletFormat(),
                               SwissFormat(), LadderFormat())
"""arena's own formats, in the order an error lists them."""


def formats(registry: Registry | None = None) -> dict[str, Format]:
    """Every format by type: the built-in ones, then the plugins' (by type)."""
    found = {fmt.type: fmt for fmt in BUILTIN}
    plugins = (registry or default_registry()).formats
    for kind in sorted(plugins):
        fmt = plugins[kind]
        if kind in found:
            raise PluginError(f"format {kind!r} is arena's own: a plugin cannot register it")
        if not isinstance(fmt, Format):
            raise PluginError(f"format {kind!r} is not an arena.tournament.formats.base.Format")
        found[kind] = fmt
    return found


def format_of(cfg: TournamentConfig, registry: Registry | None = None) -> Format:
    """The format a loaded config plays (its type was checked when it was loaded)."""
    for fmt in BUILTIN:
        if fmt.type == cfg.format.type:
            return fmt
    return formats(registry)[cfg.format.type]


def plan_for(cfg: TournamentConfig, registry: Registry | None = None) -> Plan:
    """The plan of a tournament's games, by its format."""
    return format_of(cfg, registry).plan(cfg)
