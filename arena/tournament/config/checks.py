"""The checks of one YAML value in a tournament config: a mapping of known keys, a required
key, a whole number, seconds, text, one of some choices, a flag, a factor.

`FieldChecks` holds what every section's checks need (where each key is, the rule sets and
bots that are installed, the config file's folder) and fails with the one-line
`ConfigError` at the value's line. The sections build on it: entrants in
entrants.py, the rest and `load_config` in load.py.

This module knows no section of the config and must not import the rules, the referee,
pluggy or click; it never reads a file.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.tournament.config import KeyLines, KeyPath, RuleSetInfo, describe, suggestion

__all__ = ["FieldChecks"]


class FieldChecks:
    """Checks plain YAML values one at a time, failing at the line of the value's key."""

    def __init__(
        self,
        doc: KeyLines,
        rules: Mapping[str, RuleSetInfo],
        bot_problem: Callable[[str], str | None],
        known_bots: tuple[str, ...],
        folder: Path | None = None,
    ) -> None:
        self.doc = doc
        self.rule_sets = rules
        self.bot_problem = bot_problem
        self.known_bots = known_bots
        self.folder = folder

    # generic checks

    def mapping(self, path: KeyPath, value: Any, allowed: Sequence[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.doc.fail(path, f"must be a mapping, got {describe(value)}")
        for key in value:
            if key not in allowed:
                near = suggestion(key, allowed, "known")
                self.doc.fail((*path, key), f"unknown key {key!r}{near}")
        return value

    def free_mapping(self, path: KeyPath, value: Any) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.doc.fail(path, f"must be a mapping, got {describe(value)}")
        return value

    def required(self, path: KeyPath, section: Mapping[str, Any], key: str) -> Any:
        if key not in section or section[key] is None:
            self.doc.fail((*path, key), "this key is required")
        return section[key]

    def whole(self, path: KeyPath, value: Any, least: int | None = None) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            self.doc.fail(path, f"must be a whole number, got {describe(value)}")
        if least is not None and value < least:
            self.doc.fail(path, f"must be at least {least}, got {value}")
        return value

    def seconds(self, path: KeyPath, value: Any) -> float:
        if not isinstance(value, int | float) or isinstance(value, bool):
            self.doc.fail(path, f"must be a number of seconds, got {describe(value)}")
        if not math.isfinite(value) or value <= 0:
            self.doc.fail(path, f"must be more than 0 seconds and finite, got {value}")
        return float(value)

    def text(self, path: KeyPath, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            self.doc.fail(path, f"must be non-empty text, got {describe(value)}")
        return value

    def choice(self, path: KeyPath, value: Any, choices: Sequence[str], what: str) -> str:
        if not isinstance(value, str):
            self.doc.fail(path, f"must be one of {', '.join(choices)}, got {describe(value)}")
        if value not in choices:
            self.doc.fail(path, f"unknown {what} {value!r}{suggestion(value, choices)}")
        return value

    def flag(self, path: KeyPath, value: Any) -> bool:
        if not isinstance(value, bool):
            self.doc.fail(path, f"must be true or false, got {describe(value)}")
        return value

    def factor(self, path: KeyPath, value: Any) -> float:
        if (not isinstance(value, int | float) or isinstance(value, bool)
                or not math.isfinite(value) or value < 1):
            self.doc.fail(path, f"must be a number of at least 1 and finite, "
                                f"got {describe(value)}")
        return float(value)

