"""The referee seeds its generators by the C seed alone (arena.referee.generator): the same
stream as `random.Random(seed)`, so the same seed still gives the same dice, to the byte."""

from __future__ import annotations

import random

import pytest

from arena.referee import generator


@pytest.mark.parametrize("seed", [0, 1, 2**31, 2**32 - 1, 2**32, 2**62 + 12345, 2**63 - 1])
def test_the_same_stream_as_random_random(seed: int) -> None:
    ours, theirs = generator(seed), random.Random(seed)
    assert ours.getstate() == theirs.getstate()
    assert [ours.random() for _ in range(50)] == [theirs.random() for _ in range(50)]
    assert ours.sample(range(52), 52) == theirs.sample(range(52), 52)
    assert ours.gauss(0, 1) == theirs.gauss(0, 1)
