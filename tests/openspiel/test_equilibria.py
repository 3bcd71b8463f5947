"""The reduced `dice` games solved exactly: CFR+ in C++ against a sequence-form LP, the
shipped tables' exploitability, and the `equilibrium` bot that plays them."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("pyspiel")

from arena_bots.equilibrium import sizes, table

import arena
from arena.openspiel import solve


def test_cfr_plus_on_the_smallest_game_reaches_the_lp_value() -> None:
    game = solve.reduced_game(1, 3)
    tree = solve.build_tree(game)
    policy, nash_conv, _ = solve.solve(tree, 1000)
    assert nash_conv < 1e-3
    value = solve.lp_value(game)
    assert abs(value - 4 / 9) < 1e-9  # the thrower's edge in 1 die of Q K A
    assert abs(solve.policy_value(game, policy) - value) < 1e-3


def test_the_lp_oracle_knows_a_game_with_a_known_value() -> None:
    import pyspiel

    kuhn = pyspiel.load_game("kuhn_poker")
    assert abs(solve.lp_value(kuhn) + 1 / 18) < 1e-9  # Kuhn poker: -1/18 for the first player


@pytest.mark.parametrize("size", [(1, 3), (2, 2), (1, 4)])
def test_the_shipped_tables_are_an_equilibrium(size: tuple[int, int]) -> None:
    tree = solve.build_tree(solve.reduced_game(*size))
    efg = solve.load(tree)
    shipped = {k: [(int(a), p) for a, p in v] for k, v in table(*size).items()}
    assert set(shipped) == set(tree.actions)
    assert solve.exploitability(tree, efg, shipped) < 1e-3


def test_every_solved_size_is_shipped() -> None:
    assert set(sizes()) == set(solve.SIZES)


@pytest.mark.parametrize("size", solve.SIZES)
def test_equilibrium_plays_its_sizes_through_the_referee(size: tuple[int, int]) -> None:
    options = {"dice": size[0], "faces": size[1], "max_points": 1}
    for seed in range(20):
        seats = ["equilibrium", "boss"] if seed % 2 else ["statistician", "equilibrium"]
        record = arena.play_game("dice", seats, seed=seed, options=options)
        assert record.faults == ()
        assert sorted(record.result.placements) == [1, 2]


@pytest.mark.parametrize("options", [{"dice": 2, "faces": 4, "max_points": 1},
                                     {"dice": 1, "faces": 3, "max_points": 2},
                                     {"dice": 1, "faces": 3, "max_points": 1,
                                      "receiver": "loser_chooses"},
                                     {}])
def test_equilibrium_refuses_a_game_it_was_not_solved_for(options: dict[str, object]) -> None:
    record = arena.play_game("dice", ["equilibrium", "boss"], options=options)
    (fault,) = record.faults
    assert fault.seat == 0 and "while starting" in fault.message
    assert "plays only the solved one-round 2-player dice games" in fault.message
    assert "1x3" in fault.message


def _benchmark() -> Any:
    """benchmarks/exploitability.py as a module."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "exploitability.py"
    spec = importlib.util.spec_from_file_location("exploitability", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


@pytest.mark.parametrize("size", [(1, 3), (2, 2), (1, 4)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_boss_is_hard_to_exploit_in_the_reduced_games(size: tuple[int, int]) -> None:
    """Issue 36's goal, by OpenSpiel's exact best response against boss's mixed policy (the
    same code path as in full games: a deterministic boss was 0.148 at 1x3, 0.203 at 1x4)."""
    from arena_bots.boss import Boss

    game = solve.reduced_game(*size)
    tree = solve.build_tree(game)
    policy = _benchmark().bot_policy(game, Boss)
    assert solve.exploitability(tree, solve.load(tree), policy) <= 0.05


def test_the_benchmark_asks_boss_what_boss_plays_in_a_game() -> None:
    from arena_bots.boss import Boss

    bench = _benchmark()
    game = solve.reduced_game(1, 4)
    policy = bench.bot_policy(game, Boss)
    played: list[tuple[str, list[tuple[arena.Action, float]], arena.Action]] = []

    class Watched(Boss):
        """boss, writing down each information state, its mixed strategy there, and what it
        drew from it."""

        name = "watched"

        def __init__(self, context: arena.BotContext) -> None:
            super().__init__(context)
            self.seen = [f"seat {context.seat}"]

        def notify(self, event: arena.Event) -> None:
            super().notify(event)
            self.seen.append(str(event))

        def strategy(self, observation: arena.Observation) -> list[tuple[arena.Action, float]]:
            self.mixed = super().strategy(observation)
            return self.mixed

        def act(self, observation: arena.Observation) -> arena.Action:
            action = super().act(observation)
            played.append(("\n".join(self.seen), self.mixed, action))
            return action

    for seed in range(40):
        seats: list[object] = [Watched, "random"] if seed % 2 else ["random", Watched]
        arena.play_game("dice", seats, seed=seed, options={"dice": 1, "faces": 4,
                                                           "max_points": 1})
    assert len(played) > 40
    for key, mixed, action in played:
        asked = dict(policy[key])
        assert asked == {game.layout.id_of(a): p for a, p in mixed}
        assert asked[game.layout.id_of(action)] > 0
    assert any(len(mixed) > 1 for _, mixed, _ in played)  # boss does mix


def test_boss_challenges_an_opening_bluff_as_often_as_the_equilibrium() -> None:
    """1 die of 5 faces: the rate at which boss challenges each opening claim (so that a
    bluff gains nothing over the best lower claim) is the solved equilibrium's."""
    from arena_bots.boss import Boss

    game = solve.reduced_game(1, 5)
    policy = _benchmark().bot_policy(game, Boss, decisions=2)  # the opening and its answer
    solved = table(1, 5)
    opening = [key for key in policy if key.count("\n") == 2 and key.startswith("seat 1")]
    assert len(opening) == 5
    for key in opening:
        ours, theirs = dict(policy[key]), dict(solved[key])
        assert abs(ours.get(0, 0.0) - theirs.get(0, 0.0)) < 0.02, key
