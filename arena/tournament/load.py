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
from dataclasses import dataclass
from typing import Any

from arena import entrants
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
    "entrant_mode",
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


def load_tournament(
    path: str | os.PathLike[str], registry: Registry | None = None
) -> TournamentConfig:
    """Read and check a tournament file against the installed rule sets and bots.

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
    for index, entrant in enumerate(organised(cfg).entrants):  # a submission: its validation
        _check_entrant(cfg, index, entrant, registry, lines)
    if not format_of(cfg, registry).season:  # a season has no tables apart from its folder
        _check_tables(cfg, registry, lines)
    return cfg


def _check_entrant(
    cfg: TournamentConfig, index: int, entrant: EntrantConfig, registry: Registry, lines: KeyLines
) -> None:
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


def untrusted_inline(cfg: TournamentConfig, registry: Registry | None = None) -> list[str]:
    """Entrants not from a trusted source (shipped with arena) that run inline, in the
    referee's own process."""
    names = []
    for entrant in cfg.entrants:
        seated = entrants.resolve(entrant.reference, registry)
        if seated.mode == "inline" and not (seated.spec and seated.spec.builtin):
            names.append(entrant.name)
    return names


def written_seed(cfg: TournamentConfig, registry: Registry | None = None) -> str | None:
    """The warning for a config that writes its seed while entrants not arena's own play:
    a bot that knows the seed (a config in a public repository) foresees every die."""
    if cfg.seed is None:
        return None
    names = []
    for entrant in cfg.entrants:
        try:
            seated = entrants.resolve(entrant.reference, registry)
        except entrants.EntrantError:  # a submission its dry run rejects: not arena's own
            names.append(repr(entrant.name))
            continue
        if not (seated.mode == "inline" and seated.spec and seated.spec.builtin):
            names.append(repr(entrant.name))
    if not names:
        return None
    who = f"{', '.join(names)} {'are' if len(names) > 1 else 'is'} not arena's own"
    return (f"the config writes seed: {cfg.seed} and {who}: a bot that knows the seed "
            "foresees every die; for a contest leave seed: out (arena draws a secret one "
            "and keeps it in the results folder's secret)")


def sandboxed_entrants(cfg: TournamentConfig, registry: Registry | None = None) -> list[str]:
    """Entrants that run in a bot process (process or command), at the config's isolation."""
    return [e.name for e in cfg.entrants
            if entrants.resolve(e.reference, registry).mode != "inline"]


def schedule_notes(cfg: TournamentConfig) -> tuple[str, ...]:
    """What the user should know about the schedule before it is played, by its format (a
    round robin over its cap is replaced by balanced random tables, not what was asked)."""
    return format_of(cfg).notes(cfg)


# --- the plan: games, batch by batch ------------------------------------------------------
