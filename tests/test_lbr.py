"""The local best response to `boss` (arena.lbr): it never gains more than the exact best
response where that is known, its belief always holds the true hand, and a seed gives one
figure."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, ClassVar

import pytest
from arena_bots.boss import Boss
from arena_bots.statistician import Statistician

import arena
from arena import lbr
from arena.hands import rank_of

ONE_ROUND_1X4 = {"dice": 1, "faces": 4, "max_points": 1}


def exact_exploitability(dice: int, faces: int) -> float:
    """boss's exact exploitability in a one-round reduced game, in points a round (half the
    benchmark's utility), as benchmarks/exploitability.py computes it."""
    pytest.importorskip("pyspiel")
    from arena.openspiel import solve

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "exploitability.py"
    spec = importlib.util.spec_from_file_location("exploitability", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    game = solve.reduced_game(dice, faces)
    tree = solve.build_tree(game)
    return solve.exploitability(tree, solve.load(tree), bench.bot_policy(game, Boss)) / 2


@pytest.mark.parametrize("size", [(1, 4), (2, 2)])
def test_the_local_best_response_gains_no_more_than_the_exact_best_response(
        size: tuple[int, int]) -> None:
    exact = exact_exploitability(*size)
    options = {"dice": size[0], "faces": size[1], "max_points": 1}
    found = lbr.measure(Boss, Statistician, games=60, seed=0, options=options)
    assert found.rounds == 120
    assert found.points - found.half_width <= exact  # a lower bound, up to sampling error
    if exact > 0.05:
        assert found.points - found.half_width > 0  # and it finds some of what boss gives


def test_a_seed_gives_one_figure() -> None:
    first = lbr.measure(Boss, Statistician, games=6, seed=7, options=ONE_ROUND_1X4)
    second = lbr.measure(Boss, Statistician, games=6, seed=7, options=ONE_ROUND_1X4)
    assert first.pairs == second.pairs


class Watched(lbr.LocalBestResponse):
    """The local best response, writing down the hands its belief holds at each response."""

    beliefs: ClassVar[list[set[tuple[int, ...]]]] = []

    def act(self, observation: arena.Observation) -> arena.Action:
        if observation.decision == "respond":
            worlds = self._replay(self.steps, keep_all=True)
            self.beliefs.append({tuple(sorted(w.state.hand)) for w in worlds if w.weight > 0})
        return super().act(observation)


def test_the_belief_always_holds_the_hand_under_the_cup() -> None:
    truth: list[tuple[int, ...]] = []
    state: dict[str, Any] = {}

    def watch(event: arena.Event) -> None:
        if event.kind in ("roll", "see") and event.to is not None:
            state["hand"] = tuple(sorted(rank_of(t) for t in event.data["hand"]))
        if event.kind == "claim" and event.seat == 1:  # boss claimed: lbr responds next
            truth.append(state["hand"])

    Watched.beliefs = []
    record = arena.play_game(
        "dice", [lambda c: Watched(c, Boss, Statistician, rollouts=4), Boss], seed=3,
        limits=arena.Limits(decision=600.0), spectator=watch)
    assert record.faults == ()
    assert len(Watched.beliefs) == len(truth) >= 5
    assert all(hand in belief for hand, belief in zip(truth, Watched.beliefs, strict=True))
    assert any(len(belief) > 1 for belief in Watched.beliefs)  # it did not peek


@pytest.mark.parametrize(("rules", "players"), [("dice", 3), ("dice-cards", 2)])
def test_the_local_best_response_refuses_what_it_cannot_play(rules: str, players: int) -> None:
    seats: list[object] = [Boss] * players
    seats[0] = lambda c: lbr.LocalBestResponse(c, Boss, Statistician)
    record = arena.play_game(rules, seats)
    assert "two-player dice only" in record.faults[0].message


class Mixed(Statistician):
    """A mixed bot: it challenges a quarter of the claims it would look at, by its generator,
    and says so through `strategy`."""

    name = "mixed"

    def strategy(self, observation: arena.Observation) -> dict[arena.Action, float]:
        if observation.decision == "respond" and observation.legal.can_claim():
            return {arena.Challenge(): 0.25, arena.Look(): 0.75}
        return {super().act(observation): 1.0}

    def act(self, observation: arena.Observation) -> arena.Action:
        strategy = self.strategy(observation)
        action: arena.Action = self.rng.choices(list(strategy), list(strategy.values()))[0]
        return action


class MixedInPairs(Mixed):
    """The same, saying its strategy as `boss` does: pairs of action and probability."""

    name = "mixed-in-pairs"

    def strategy(self, observation: arena.Observation) -> list[tuple[arena.Action, float]]:
        return list(super().strategy(observation).items())

    def act(self, observation: arena.Observation) -> arena.Action:
        pairs = self.strategy(observation)
        action: arena.Action = self.rng.choices([a for a, _ in pairs], [p for _, p in pairs])[0]
        return action


@pytest.mark.parametrize("mixed", [Mixed, MixedInPairs])
def test_a_mixed_opponent_is_read_through_its_strategy(mixed: type[Mixed]) -> None:
    found = lbr.measure(mixed, Statistician, games=4, seed=2,
                        options={"dice": 2, "faces": 4, "max_points": 2})
    assert found.rounds >= 12  # every action of the mixed bot had a history to explain it
