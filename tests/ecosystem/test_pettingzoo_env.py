"""The PettingZoo AEC environment: PettingZoo's own conformance tests (api_test, seed_test)
with arena bots at any seats, a bot from a file hosted in its own process as everywhere,
the referee's game for a seed, and an illegal action or a bad seat refused in one line."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.needs import require

try:
    from pettingzoo.test import api_test, seed_test

    from arena.pettingzoo import env
except ImportError:  # pragma: no cover - CI installs the test extra
    env = None

FILE_BOT = """
import arena


class Lowest(arena.Bot):
    def act(self, observation):
        return observation.legal_actions()[0]
"""


@pytest.fixture(autouse=True)
def _needs_pettingzoo() -> None:
    require(env, "pettingzoo is not installed (pip install -e '.[pettingzoo]')")
    warnings.filterwarnings("ignore", "Observation", UserWarning)  # a dict with a mask


@pytest.mark.parametrize("table", [
    {"rules": "dice", "opponents": ["statistician"]},
    {"rules": "dice", "players": 3, "opponents": {0: "statistician", 2: "honest"}},
    {"rules": "dice-cards", "players": 2},
    {"rules": "cards", "players": 3, "opponents": ["random"]},
], ids=["dice-statistician", "dice-3-bots-around", "dice-cards-self-play", "cards-random"])
def test_the_environment_passes_pettingzoos_api_and_seed_tests(table: dict[str, Any]) -> None:
    api_test(env(**table), num_cycles=200, verbose_progress=False)
    seed_test(lambda: env(**table), num_cycles=100)


def test_a_bot_from_a_file_plays_a_seat_in_its_own_process(tmp_path: Path) -> None:
    path = tmp_path / "lowest.py"
    path.write_text(FILE_BOT, encoding="utf-8")
    table = env(rules="dice", opponents=[f"{path}:Lowest"])
    try:
        assert type(table.unwrapped.bots[1].host).__name__ == "ProcessHost"
        api_test(table, num_cycles=50, verbose_progress=False)
    finally:
        table.close()


def test_a_seed_plays_the_referees_game_its_first_throw_the_same() -> None:
    import arena
    from arena.rules.actions import Chance

    record = arena.play_game("dice", ["random", "random"], seed=11)
    first = next(entry for entry in record.log if isinstance(entry, Chance))
    table = env(rules="dice", opponents=["statistician"])
    table.reset(seed=11)
    hand = table.unwrapped.rules.observe(table.unwrapped.state_now, 0).hand
    assert hand == tuple("9TJQKA"[face - 9] for face in first.outcome)


def test_an_illegal_action_is_refused_in_one_line() -> None:
    table = env(rules="dice", opponents=["statistician"])
    table.reset(seed=1)
    mask = table.observe("player_0")["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match=r"player_0: action \d+ is not legal now"):
        table.step(illegal)


def test_a_table_without_an_agent_or_with_a_seat_past_the_table_is_refused() -> None:
    with pytest.raises(ValueError, match="leave at least one seat to an agent"):
        env(rules="dice", opponents=["random", "random"])
    with pytest.raises(ValueError, match=r"must name seats 0\.\.1"):
        env(rules="dice", opponents={5: "random"})
