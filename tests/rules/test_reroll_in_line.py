"""A plain reroll is applied in line (arena.rules.dice_play.apply): it must judge every reroll
as the full check does, legal or not, in every decision of the dice engine."""

from __future__ import annotations

import random

import pytest

from arena.rules import CHANCE, TERMINAL, get_rules
from arena.rules.actions import Reroll
from arena.rules.base import IllegalAction
from arena.rules.playout import random_action

ODD = [(), (0,), (4, 2), (1.0,), (True,), (0, 0), (5,), (-1,), [0, 1], (0, 1, 2, 3, 4),
       (0, 1, 2, 3, 4, 0)]


def _states(rules_id: str, options: dict[str, object] | None = None) -> list[object]:
    """Every decision state of some random games."""
    rules, rng, found = get_rules(rules_id), random.Random(7), []
    for _ in range(30):
        state = rules.new_game(3, options)
        while (seat := rules.to_act(state)) != TERMINAL:
            if seat == CHANCE:
                state = rules.apply(state, rules.chance(state, rng))
                continue
            found.append(state)
            state = rules.apply(state, random_action(rules.observe(state, seat).legal, rng))
    return found


@pytest.mark.parametrize(("rules_id", "options"), [
    ("dice", None), ("dice-cards", None), ("dice", {"reroll_once_per": "round"}),
    ("dice", {"look_must_reroll": True}),
])
def test_every_reroll_is_judged_as_its_legal_says(rules_id: str,
                                                 options: dict[str, object] | None) -> None:
    rules = get_rules(rules_id)
    for state in _states(rules_id, options)[::3]:
        legal = rules.legal(state)
        for positions in ODD:
            action = Reroll(positions)  # type: ignore[arg-type]
            problem = legal.problem(action)
            if problem is None:
                after = rules.apply(state, action)
                assert rules.events(after)[0].kind == "reroll"
            else:
                with pytest.raises(IllegalAction):
                    rules.apply(state, action)
