"""The stakes of a game in a few lines, for a person at the terminal (`arena play ... human`):
what a challenge costs each side, what looking allows, how the game ends. Said from the rule
set and the options in force, so it cannot drift from the game being played; docs/rules.md
stays the whole text."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import groupby
from textwrap import wrap
from typing import Any

from arena.hands import claim_space
from arena.rules import RULESETS, RuleSet
from arena.rules.base import Description

RULES_PAGE = "docs/rules.md"
"""Where the full rules are, as the primer's first line says."""
WIDTH = 96
"""The primer's lines wrap here, so a terminal of 100 columns shows each whole."""
KEYS = {"two-pair": " (high pair, low pair)", "full": " (triple, pair)"}
"""What the two ranks of a two-rank claim are, in the ladder."""


def primer(ruleset: RuleSet, options: Mapping[str, Any]) -> list[str]:
    """The primer's lines (at most 10): a header, then how a round, a challenge, a look and
    the game go under these options; a plugin's rule set gets what its description says."""
    description = ruleset.description
    head = (f"{description.id}: how a game goes (the full rules: {RULES_PAGE}; "
            "'help rules' at any prompt)")
    if not _built_in(description):
        body = _described(description)
    elif description.central:
        body = _central(options)
    else:
        body = _cup(description, options)
    return [head, *(line for text in body
                    for line in wrap(text, WIDTH, initial_indent="  ", subsequent_indent="    "))]


def rules_help(ruleset: RuleSet, options: Mapping[str, Any]) -> list[str]:
    """`help rules`: the primer, every claim lowest first, and what each option in force
    means."""
    sof = bool(options.get("straight_over_full", False))
    lines = primer(ruleset, options)
    lines.append(f"  every claim, lowest first ({len(claim_space(ruleset.description.hand, sof))}"
                 "); a claim holds when the hand is worth it or more (no kickers):")
    lines += [f"    {text}" for text in claim_ladder(ruleset.description.hand, sof)]
    lines.append("  options in force:")
    lines += [f"    {spec.name}: {_shown(options.get(spec.name, spec.default))}  ({spec.help})"
              for spec in ruleset.option_specs]
    return lines


def claim_ladder(kind: str, straight_over_full: bool = False) -> list[str]:
    """Every claim of a claim space, lowest first: a line a category (wrapped), each claim
    written as its key ranks ('full 9 T' is '9T' in the line of 'full')."""
    lines = []
    space = claim_space(kind, straight_over_full).claims
    for category, group in groupby(space, key=lambda claim: str(claim).split()[0]):
        ranks = [str(claim).removeprefix(category).replace(" ", "") for claim in group]
        lines += wrap(f"{category}{KEYS.get(category, '')}: {' '.join(ranks)}", WIDTH - 4,
                      subsequent_indent="    ")
    return lines


def _built_in(description: Description) -> bool:
    """Whether this is one of arena's own rule sets, whose rules the primer can say."""
    known = RULESETS.get(description.id)
    return known is not None and known.description == description


def _cup(description: Description, options: Mapping[str, Any]) -> list[str]:
    """`dice` and `dice-cards`: a round under the cup, penalty points."""
    cards = description.hand == "cards"
    sof = bool(options.get("straight_over_full", False))
    top = claim_space(description.hand, sof).claims[-1]
    things, change = ("cards", "exchange") if cards else ("dice", "reroll")
    deal = ("gets 5 cards of a fresh deck, may exchange any once," if cards
            else "rolls 5 dice (9 T J Q K A) under the cup, sees them")
    receiver = ("the player to the left" if options.get("receiver", "left") == "left"
                else "the seat a thrower who lost the last round picks (else the left one)")
    which = "at least one" if options.get("look_must_reroll") else "any (or none)"
    once = "once" if options.get("reroll_once_per", "turn") == "turn" else "(each once a round)"
    order = " (straights above fulls)" if sof else ""
    points = int(options.get("max_points", 5))
    return [
        f"a round: the thrower {deal} and claims a hand",
        f"{receiver} receives the claim: challenge it, look, or claim higher blind",
        (f"a challenge shows the {things}: if they are worth the claim or more, the challenger"
         " takes a point; if less, the claimant takes it"),
        (f"a look shows you the {things}: {change} {which} {once}, then claim higher;"
         " no challenge then"),
        f"each claim beats the last{order}; after {top}, only a challenge",
        f"{_count(points, 'point')} and you are out; the last player in wins",
    ]


def _central(options: Mapping[str, Any]) -> list[str]:
    """`cards`: a central hand passed round the table, chips."""
    chips, penalty = int(options.get("chips", 10)), int(options.get("penalty", 5))
    reward = int(options.get("accept_reward", 1))
    fresh = ("the rejecter" if options.get("fresh_hand_to", "next") == "rejecter"
             else "the player left of the rejecter")
    return [
        (f"each player has {_count(chips, 'chip')} and 5 private cards; a central hand of 5"
         " goes round the table with a claim"),
        (f"handed a claim: accept it (the passer gets {_count(reward, 'chip')} from the bank)"
         " or reject it"),
        (f"a reject shows the central hand: if it is worth the claim or more, you pay the"
         f" passer {_count(penalty, 'chip')}; if less, the passer pays you; {fresh} takes"
         " a fresh hand"),
        ("after accepting, or with a fresh hand, you see it: swap cards one for one with yours,"
         " turn some face up, and pass it left with a higher claim"),
        ("0 chips and you are out; when the draw pile cannot make a new central hand, the most"
         " chips win"),
    ]


def _described(description: Description) -> list[str]:
    """A plugin's rule set: only what its description says."""
    return [f"a rule set from a plugin, scored in {description.score_word}; decisions: "
            + f"{', '.join(description.decisions)}; private: {description.private}"]


def _count(number: int, word: str) -> str:
    return f"{number} {word}{'' if number == 1 else 's'}"


def _shown(value: object) -> str:
    """An option's value as it is written in a config or `--option`."""
    return str(value).lower() if isinstance(value, bool) else str(value)
