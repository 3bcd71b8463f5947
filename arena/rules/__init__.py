"""The rule sets, by id: the three built-in ones, and the one registry every layer asks for a
rule set (`get_rules`), which finds those installed plugins register too. PURE: nothing here
does I/O, reads a clock or a global random; the plugins are read by the source arena's
package installs (`RuleSets.installed`), never imported from here."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from arena.rules.base import (
    CHANCE,
    TERMINAL,
    Description,
    IllegalAction,
    OptionError,
    RulesError,
    RuleSet,
)
from arena.rules.cards import CARDS
from arena.rules.dice import DICE, DICE_CARDS

RULESETS: dict[str, RuleSet] = {r.id: r for r in (DICE, DICE_CARDS, CARDS)}
"""The built-in rule sets, by id."""


class RuleSets:
    """Every rule set by id: the built-in ones, then the installed ones, read from
    `installed` only when an id is not built in (so a game of a built-in rule set loads no
    plugin). `installed` is set by arena's package to the plugin registry's rule sets."""

    def __init__(self, builtin: Mapping[str, RuleSet]) -> None:
        self.builtin = dict(builtin)
        self.installed: Callable[[], Mapping[str, RuleSet]] | None = None

    def known(self) -> Mapping[str, RuleSet]:
        """Every rule set by id, the installed plugins' among them."""
        return self.builtin if self.installed is None else self.installed()

    def find(self, rules_id: str) -> RuleSet:
        """The rule set of this id, or RulesError naming the known ones."""
        found = self.builtin.get(rules_id)
        if found is not None:
            return found
        known = self.known()
        if rules_id not in known:
            raise RulesError(f"unknown rule set {rules_id!r} (known: {', '.join(sorted(known))})")
        return known[rules_id]


RULE_SETS = RuleSets(RULESETS)
"""The one registry of rule sets the referee, `arena.play_game`, the commands and the
tournament ask."""


def get_rules(rules_id: str) -> RuleSet:
    """The rule set of this id, built in or registered by an installed plugin; raise
    RulesError naming the known ones."""
    return RULE_SETS.find(rules_id)


def description_of(rules: Description | str) -> Description:
    """A rule set's description, given it or its id."""
    if isinstance(rules, Description):
        return rules
    return get_rules(rules).description


__all__ = ["CHANCE", "RULESETS", "RULE_SETS", "TERMINAL", "Description", "IllegalAction",
           "OptionError", "RuleSet", "RuleSets", "RulesError", "description_of", "get_rules"]
