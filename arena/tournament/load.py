"""A tournament config checked against what is installed: `load_tournament`, and where each
entrant runs.

Beyond the config loader's checks (arena/tournament/config/load.py), each bot must play the
config's rule set, take the bot options given to it, run in a mode this arena can host, and
every table the plan deals must be playable. Also here: the one trust policy as the
tournament asks it (`entrant_mode`, `untrusted_inline`) and what the user should
know about the schedule before it is played (`schedule_notes`).

This module never plays a game, never writes a results folder and never prints; it knows the
rule sets only through their public face (arena.rules).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from arena import entrants
from arena.entrants import Resolved
from arena.plugins import BotSpec, Registry, default_registry
from arena.rules import OptionError, RuleSet
from arena.tournament.config import (
    EntrantConfig,
    KeyLines,
    OptionProblem,
    RuleSetInfo,
    TournamentConfig,
)
from arena.tournament.config.load import load_config
from arena.tournament.config.yaml_lines import key_lines
from arena.tournament.formats.ladder.versions import organised
from arena.tournament.formats.registry import format_of, formats, plan_for

__all__ = [
    "HOSTED_MODES",
    "Loaded",
    "entrant_mode",
    "load_resolved",
    "load_tournament",
    "rule_infos",
    "schedule_notes",
    "untrusted_inline",
]

HOSTED_MODES = ("inline", "process", "command")
"""Where a bot can run: in the worker's own process, or isolated (arena/hosts/pipe.py)."""


@dataclass(frozen=True, slots=True)
class _RuleInfo:
    """A rule set as the config layer sees it (`RuleSetInfo`)."""

    ruleset: RuleSet

    @property
    def id(self) -> str:
        return self.ruleset.id

    @property
    def min_players(self) -> int:
        return self.ruleset.min_players

    @property
    def max_players(self) -> int:
        return self.ruleset.max_players

    def check_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        names = [spec.name for spec in self.ruleset.option_specs]
        try:
            return self.ruleset.check_options(options)
        except OptionError as problem:
            if problem.key in names:
                raise OptionProblem(problem.key, problem.message) from None
            raise OptionProblem(problem.key, f"unknown option {problem.key!r}", names) from None


def rule_infos(registry: Registry) -> dict[str, RuleSetInfo]:
    """The installed rule sets in the form the config loader takes."""
    return {rules_id: _RuleInfo(ruleset) for rules_id, ruleset in registry.rules.items()}


@dataclass(frozen=True, slots=True)
class Loaded:
    """A tournament checked against what is installed, with each of the organiser's
    entrants resolved once (a ladder's submissions are resolved at their validation)."""

    cfg: TournamentConfig
    entrants: tuple[Resolved, ...]
    """By entrant of `organised(cfg)`, in config order: what the dry runs, the warnings
    and the run's checks use instead of resolving again."""

    @property
    def seated(self) -> dict[str, Resolved]:
        """The resolved entrants by name."""
        return {e.name: r for e, r in zip(organised(self.cfg).entrants, self.entrants,
                                          strict=True)}

    def at_isolation(self, level: str) -> Loaded:
        """The same tournament at this isolation level (which resolves nothing anew)."""
        cfg = self.cfg.at_isolation(level)
        return Loaded(cfg, tuple(replace(r, reference=e.reference) for e, r in
                                 zip(organised(cfg).entrants, self.entrants, strict=True)))

    def replace(self, **changes: Any) -> Loaded:
        """The config changed in what resolves nothing (its cluster, its output)."""
        return Loaded(replace(self.cfg, **changes), self.entrants)


def load_tournament(
    path: str | os.PathLike[str], registry: Registry | None = None
) -> TournamentConfig:
    """Read and check a tournament file against the installed rule sets and bots: the
    config of `load_resolved`, for a caller that needs no entrant resolved."""
    return load_resolved(path, registry).cfg


def load_resolved(path: str | os.PathLike[str], registry: Registry | None = None) -> Loaded:
    """Read and check a tournament file against the installed rule sets and bots, each
    entrant resolved once.

    Beyond the config loader's checks: each bot must play the config's rule set, take the
    bot options given to it, and run in a mode this arena can host. Raises ConfigError.
    """
    registry = registry or default_registry()
    cfg = load_config(
        path,
        rules=rule_infos(registry),
        formats=formats(registry),
        bot_problem=lambda ref: entrants.reference_problem(ref, registry),
        known_bots=registry.names(),
    )
    lines = key_lines(path)
    resolved = tuple(_check_entrant(cfg, index, entrant, registry, lines)  # a submission:
                     for index, entrant in enumerate(organised(cfg).entrants))  # validated
    if not format_of(cfg, registry).season:  # a season has no tables apart from its folder
        _check_tables(cfg, registry, lines)
    return Loaded(cfg, resolved)


def _check_entrant(
    cfg: TournamentConfig, index: int, entrant: EntrantConfig, registry: Registry, lines: KeyLines
) -> Resolved:
    """Refuse an entrant whose bot does not play the rules or take its options, as far as
    its card is known here (a bot in its own process says it at its dry run, arena.trial);
    a bot file run inline is loaded here, as the user asked."""
    where = ("entrants", index, "command" if entrant.command is not None else "bot")
    try:
        resolved = entrants.resolve(entrant.reference, registry)
    except entrants.EntrantError as exc:
        raise lines.error(where, str(exc)) from None
    found = entrants.problem(resolved, cfg.rules)
    if found is not None:
        raise lines.error(("entrants", index, *found.where), found.message)
    return resolved


Seated = Mapping[str, Resolved]
"""Entrants resolved already, by name (`Loaded.seated`): not resolved again."""


def _seat(entrant: EntrantConfig, registry: Registry | None,
          seated: Seated | None) -> Resolved:
    """The entrant as resolved already, else resolved now."""
    if seated is not None and entrant.name in seated:
        return seated[entrant.name]
    return entrants.resolve(entrant.reference, registry)


def _check_tables(cfg: TournamentConfig, registry: Registry, lines: KeyLines) -> None:
    """An elimination deals tables smaller than `seats` when the entrants do not divide
    evenly (and finals of the survivors); each must still be playable."""
    ruleset = registry.rules[cfg.rules]
    smallest = plan_for(cfg, registry).smallest_table()
    if smallest is not None and smallest[1] < ruleset.min_players:
        stage, size = smallest
        raise lines.error(
            ("format", "seats"),
            f"with {len(cfg.entrants)} entrants, {stage} would have a table of {size}, but "
            f"{ruleset.id!r} needs at least {ruleset.min_players} players; change the "
            "number of entrants, seats or advance",
        )


def entrant_mode(entrant: EntrantConfig, spec: BotSpec | None = None) -> str:
    """Where an entrant's bot runs, by the one trust policy (arena.entrants.mode_of)."""
    return entrants.mode_of(entrant.reference, spec)


def untrusted_inline(cfg: TournamentConfig, registry: Registry | None = None,
                     seated: Seated | None = None) -> list[str]:
    """Entrants not from a trusted source (shipped with arena) that run inline, in the
    referee's own process."""
    names = []
    for entrant in cfg.entrants:
        seat = _seat(entrant, registry, seated)
        if seat.mode == "inline" and not (seat.spec and seat.spec.builtin):
            names.append(entrant.name)
    return names


def written_seed(cfg: TournamentConfig, registry: Registry | None = None,
                 seated: Seated | None = None) -> str | None:
    """The warning for a config that writes its seed while entrants not arena's own play:
    a bot that knows the seed (a config in a public repository) foresees every die. With
    `seated`, an entrant not in it is a submission: not arena's own."""
    if cfg.seed is None:
        return None
    names = []
    for entrant in cfg.entrants:
        try:
            if seated is not None and entrant.name not in seated:
                raise entrants.EntrantError("a submission")
            seat = _seat(entrant, registry, seated)
        except entrants.EntrantError:  # a submission its dry run rejects: not arena's own
            names.append(repr(entrant.name))
            continue
        if not (seat.mode == "inline" and seat.spec and seat.spec.builtin):
            names.append(repr(entrant.name))
    if not names:
        return None
    who = f"{', '.join(names)} {'are' if len(names) > 1 else 'is'} not arena's own"
    return (f"the config writes seed: {cfg.seed} and {who}: a bot that knows the seed "
            "foresees every die; for a contest leave seed: out (arena draws a secret one "
            "and keeps it in the results folder's secret)")


def sandboxed_entrants(cfg: TournamentConfig, registry: Registry | None = None,
                       seated: Seated | None = None) -> list[str]:
    """Entrants that run in a bot process (process or command), at the config's isolation."""
    return [e.name for e in cfg.entrants if _seat(e, registry, seated).mode != "inline"]


def schedule_notes(cfg: TournamentConfig) -> tuple[str, ...]:
    """What the user should know about the schedule before it is played, by its format (a
    round robin over its cap is replaced by balanced random tables, not what was asked)."""
    return format_of(cfg).notes(cfg)


# --- the plan: games, batch by batch ------------------------------------------------------
