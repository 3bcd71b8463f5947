"""The rule sets, by id: the three built-in ones, and the one registry every layer asks for a
rule set (`get_rules`), which finds those installed plugins register too. PURE: nothing here
does I/O, reads a clock or a global random; the plugins are read by the source arena's
package installs (`RuleSets.installed`), never imported from here.

Cheap to import: the names below load their modules, and the built-in rule sets their
engines, the first time they are used (a bot's own process, `arena --version`, never do)."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.rules.base import (
        CHANCE,
        TERMINAL,
        Description,
        IllegalAction,
        OptionError,
        RulesError,
        RuleSet,
    )

    RULESETS: dict[str, RuleSet]
    """The built-in rule sets, by id: their engines load the first time it is read."""

BUILTIN_IDS = ("dice", "dice-cards", "cards")
"""The built-in rule sets' ids, in their order, known without loading their engines."""
_BASE = frozenset({"CHANCE", "TERMINAL", "Description", "IllegalAction", "OptionError",
                   "RulesError", "RuleSet"})
"""The names of arena.rules.base this package hands on."""


def __getattr__(name: str) -> Any:
    """RULESETS and the names of arena.rules.base, loaded the first time they are read."""
    if name == "RULESETS":
        value: Any = RULE_SETS.builtin
    elif name in _BASE:
        value = getattr(importlib.import_module("arena.rules.base"), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def _builtin() -> dict[str, RuleSet]:
    """The built-in rule sets by id, their engines loaded."""
    from arena.rules.cards import CARDS
    from arena.rules.dice import DICE, DICE_CARDS

    found: dict[str, RuleSet] = {r.id: r for r in (DICE, DICE_CARDS, CARDS)}
    assert tuple(found) == BUILTIN_IDS, "BUILTIN_IDS names the built-in rule sets in order"
    return found


class RuleSets:
    """Every rule set by id: the built-in ones, then the installed ones, read from
    `installed` only when an id is not built in (so a game of a built-in rule set loads no
    plugin). `installed` is set by arena's package to the plugin registry's rule sets."""

    def __init__(self, builtin: Callable[[], Mapping[str, RuleSet]]) -> None:
        self._builtin = builtin
        self.installed: Callable[[], Mapping[str, RuleSet]] | None = None

    @functools.cached_property
    def builtin(self) -> dict[str, RuleSet]:
        """The built-in rule sets by id, loaded the first time they are asked for."""
        return dict(self._builtin())

    def known(self) -> Mapping[str, RuleSet]:
        """Every rule set by id, the installed plugins' among them."""
        return self.builtin if self.installed is None else self.installed()

    def find(self, rules_id: str) -> RuleSet:
        """The rule set of this id, or RulesError naming the known ones."""
        from arena.rules.base import RulesError

        found = self.builtin.get(rules_id)
        if found is not None:
            return found
        known = self.known()
        if rules_id not in known:
            raise RulesError(f"unknown rule set {rules_id!r} (known: {', '.join(sorted(known))})")
        return known[rules_id]


RULE_SETS = RuleSets(_builtin)
"""The one registry of rule sets the referee, `arena.play_game`, the commands and the
tournament ask."""


def get_rules(rules_id: str) -> RuleSet:
    """The rule set of this id, built in or registered by an installed plugin; raise
    RulesError naming the known ones."""
    return RULE_SETS.find(rules_id)


def description_of(rules: Description | str) -> Description:
    """A rule set's description, given it or its id."""
    from arena.rules.base import Description

    if isinstance(rules, Description):
        return rules
    return get_rules(rules).description


__all__ = ["BUILTIN_IDS", "CHANCE", "RULESETS", "RULE_SETS", "TERMINAL", "Description",
           "IllegalAction", "OptionError", "RuleSet", "RuleSets", "RulesError", "description_of",
           "get_rules"]
