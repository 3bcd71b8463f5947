"""The three rule sets, by id. PURE: nothing here does I/O, reads a clock or a global random."""

from __future__ import annotations

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


def get_rules(rules_id: str) -> RuleSet:
    """Return a built-in rule set by id, or raise RulesError naming them. The registry every
    command and `arena.play_game` look rule sets up in is `arena.plugins`' (these, and those
    installed plugins register): `arena.plugins.find_rules`."""
    try:
        return RULESETS[rules_id]
    except KeyError:
        known = ", ".join(sorted(RULESETS))
        raise RulesError(f"unknown rule set {rules_id!r} (known: {known})") from None


def description_of(rules: Description | str) -> Description:
    """A rule set's description, given it or a built-in rule set's id (a plugin's rule set
    is found in the plugin registry: `arena.plugins.find_rules`)."""
    if isinstance(rules, Description):
        return rules
    return get_rules(rules).description


__all__ = ["CHANCE", "RULESETS", "TERMINAL", "Description", "IllegalAction", "OptionError",
           "RuleSet", "RulesError", "description_of", "get_rules"]
