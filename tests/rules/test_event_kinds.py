"""Each built-in rule set lists the kinds of event it can show a seat (`event_kinds`, what
`arena check-bot` makes sure a bot is told): random play shows no other kind, and the events
table of docs/writing-a-bot.md lists exactly these, rule set by rule set."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from arena.rules import CHANCE, RULESETS, TERMINAL
from arena.rules.playout import random_action

DOC = Path(__file__).parents[2] / "docs" / "writing-a-bot.md"


def kinds_in_play(rules_id: str, games: int) -> set[str]:
    """The kinds of every event of some random games, one fault in ten decisions under
    `on_fault: penalty` (as a faulting bot would cost its seat)."""
    rules, rng, seen = RULESETS[rules_id], random.Random(7), set()
    options = {"on_fault": "penalty"}
    if rules_id != "cards":
        options["receiver"] = "loser_chooses"
    for _ in range(games):
        state = rules.new_game(3, options)
        while (seat := rules.to_act(state)) != TERMINAL:
            if seat == CHANCE:
                state = rules.apply(state, rules.chance(state, rng))
            elif rng.random() < 0.1:
                state = rules.fault(state, seat)
            else:
                state = rules.apply(state, random_action(rules.legal(state), rng))
            seen.update(event.kind for event in rules.events(state))
    return seen


@pytest.mark.parametrize("rules_id", sorted(RULESETS))
def test_random_play_shows_only_the_listed_kinds(rules_id: str) -> None:
    listed = set(RULESETS[rules_id].event_kinds)  # type: ignore[attr-defined]
    seen = kinds_in_play(rules_id, 40)
    assert seen <= listed
    assert listed - seen <= {"reshuffle"}  # random play rarely empties a deck in one round


def documented_kinds() -> dict[str, set[str]]:
    """The kinds of the events table of writing-a-bot.md, by the rule sets it gives each."""
    table = DOC.read_text(encoding="utf-8").partition("| kind | rule sets |")[2]
    found: dict[str, set[str]] = {rules_id: set() for rules_id in RULESETS}
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \|", table.partition("\n\n")[0], re.MULTILINE)
    for kind, where in rows:
        for rules_id in RULESETS if where.strip() == "all" else where.split(","):
            found[rules_id.strip()].add(kind)
    return found


def test_the_events_table_lists_every_kind_of_each_rule_set() -> None:
    documented = documented_kinds()
    for rules_id, rules in RULESETS.items():
        assert documented[rules_id] == set(rules.event_kinds), rules_id  # type: ignore[attr-defined]
