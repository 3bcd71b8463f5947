"""What a worker process forked from arena's fork server finds built (bots/prepared.py calls
`probability.warm_up`): the dice tables and the outcomes a belief reads, under the very key
its bots ask for them by, so no worker builds its own."""

from __future__ import annotations

import pytest

from arena import hands
from arena.odds import probability


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
