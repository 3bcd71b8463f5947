"""What a worker process forked from arena's fork server finds built (bots/prepared.py calls
`probability.warm_up`): the dice tables and the outcomes a belief reads, under the very key
its bots ask for them by, so no worker builds its own; and the dice rules' index of every
ordered roll, built from the sorted rolls, is the value of each roll."""

from __future__ import annotations

import itertools

import pytest

from arena import hands
from arena.odds import probability
from arena.rules import get_rules

SPACES = ((False, 5, 6), (True, 5, 6), (False, 3, 4), (False, 1, 3))
"""Claim orders and game sizes: the normal one, straight over full, and two reduced games."""


@pytest.mark.parametrize("space", [None, hands.claim_space(hands.DICE, True, 3, 4)],
                         ids=["normal", "reduced"])
def test_after_the_warm_up_a_dice_bot_builds_no_table_of_its_own(
    space: hands.ClaimSpace | None,
) -> None:
    probability.dice_tables.cache_clear()
    probability._nonzero_outcome.cache_clear()
    probability._dice_belief.cache_clear()
    probability.warm_up(space)
    built = (probability.dice_tables.cache_info().misses,
             probability._nonzero_outcome.cache_info().misses)
    asked = space or hands.claim_space(hands.DICE)
    tables = probability.tables_for(asked)  # as a bot's constructor asks for them
    assert isinstance(tables, probability.DiceTables)
    belief = probability.dice_belief(tables, asked.ranks[-1:] * asked.dice, (0.5,) * asked.dice)
    assert len(belief) == len(asked)
    assert (probability.dice_tables.cache_info().misses,
            probability._nonzero_outcome.cache_info().misses) == built


@pytest.mark.parametrize(("straight_over_full", "dice", "faces"), SPACES)
def test_the_dice_index_is_each_ordered_rolls_own_value(
    straight_over_full: bool, dice: int, faces: int,
) -> None:
    space = hands.claim_space(hands.DICE, straight_over_full, dice, faces)
    index = get_rules("dice")._dice_index(space)  # type: ignore[attr-defined]
    rolls = list(itertools.product(space.ranks, repeat=dice))
    assert list(index) == rolls
    assert index == {r: space.index[hands.dice_value(r, straight_over_full)] for r in rolls}
