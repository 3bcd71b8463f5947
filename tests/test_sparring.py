"""The `sparring` bot and its trainer: outcome-sampling MCCFR on an abstraction of full `dice`.
The abstraction must cover every position a seat can meet, and each abstract action must
be a legal action there; the trainer must write the same table for the same seed."""

from __future__ import annotations

import random
from pathlib import Path

from arena_bots.sparring import ACTIONS, BUCKETS, bucket, concrete, situation, table
from arena_bots.sparring_train import Trainer, main, matched
from hypothesis import given, settings
from hypothesis import strategies as st

import arena
from arena.odds.memory import RoundMemory, space_of
from arena.referee import ActionEntry
from arena.rules import CHANCE, get_rules

SHIPPED = Path(__file__).resolve().parents[1] / "bots" / "sparring.json.gz"


def _positions(seed: int, players: int, options: dict[str, object]) -> int:
    """Play a game of random legal actions; at every decision, check the abstraction there.
    Returns how many decisions were checked."""
    rules, rng = get_rules("dice"), random.Random(seed)
    state = rules.new_game(players, options)
    space = space_of("dice", rules.check_options(options))
    memories = [RoundMemory(seat, space) for seat in range(players)]
    checked = 0
    while not rules.is_over(state):
        seat = rules.to_act(state)
        if seat == CHANCE:
            action: object = rules.chance(state, rng)
        else:
            observation = rules.observe(state, seat)
            key, names = situation(observation, memories[seat])
            if key is None:
                assert names in (("challenge",), ("choose",))
            else:
                assert names == ACTIONS[key[0]], key
            for name in names:
                chosen = concrete(name, observation, memories[seat])
                assert observation.is_legal(chosen), (key, name, chosen, observation.legal)
            checked += 1
            action = rng.choice(observation.legal_actions())
        state = rules.apply(state, action)
        for event in rules.events(state):
            for s, memory in enumerate(memories):
                if event.to is None or event.to == s:
                    memory.notify(event)
    return checked


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3]),
       options=st.fixed_dictionaries({
           "straight_over_full": st.booleans(), "look_must_reroll": st.booleans(),
           "reroll_once_per": st.sampled_from(["turn", "round"]),
           "receiver": st.sampled_from(["left", "loser_chooses"]),
           "max_points": st.sampled_from([1, 2])}))
def test_every_position_has_a_key_and_every_abstract_action_is_legal(
        seed: int, players: int, options: dict[str, object]) -> None:
    assert _positions(seed, players, options) > 0


def test_claim_buckets_cover_the_ladder_in_order() -> None:
    found = [bucket(i) for i in range(72)]
    assert found == sorted(found) and found[0] == 0 and found[-1] == len(BUCKETS) - 1


def test_regret_matching_plays_positive_regret_only() -> None:
    assert matched([3.0, -1.0, 1.0]) == [0.75, 0.0, 0.25]
    assert matched([-1.0, 0.0]) == [0.5, 0.5]


def _trained(seed: int, iterations: int) -> dict[str, object]:
    trainer = Trainer(seed)
    trainer.run(iterations)
    return trainer.table(seed)


def test_the_trainer_is_deterministic_for_a_seed(tmp_path: Path) -> None:
    first, again, other = _trained(3, 300), _trained(3, 300), _trained(4, 300)
    assert first == again
    assert first["policy"] != other["policy"]  # the seed matters: the check can fail
    outputs = [tmp_path / "a.json.gz", tmp_path / "b.json.gz"]
    for out in outputs:
        assert main(["--iterations", "200", "--every", "100", "--seed", "5",
                     "--out", str(out)]) == 0
    assert outputs[0].read_bytes() == outputs[1].read_bytes()


def test_the_trainer_learns_weights_for_the_situations_it_meets() -> None:
    trained = _trained(1, 500)
    policy = trained["policy"]
    assert isinstance(policy, dict) and policy
    for key, weights in policy.items():
        assert len(weights) == len(ACTIONS[key[0]])
        assert abs(sum(weights) - 1) < 0.01


def test_the_shipped_table_is_small_and_says_how_it_was_made() -> None:
    assert SHIPPED.stat().st_size < 1_000_000
    data = table()
    assert data["iterations"] > 0 and "seed" in data
    assert data["actions"] == {k: list(v) for k, v in ACTIONS.items()}
    for key, weights in data["policy"].items():
        assert len(weights) == len(ACTIONS[key[0]])


def test_sparring_plays_full_dice_through_the_referee() -> None:
    for seed in range(6):
        seats = ["sparring", "boss"] if seed % 2 else ["honest", "sparring"]
        record = arena.play_game("dice", seats, seed=seed)
        assert record.faults == ()
        assert sorted(record.result.placements) == [1, 2]


def test_sparring_plays_the_heaviest_action_unless_mixed() -> None:
    """Purified, its answers do not depend on its generator; mixed, they do (somewhere)."""
    def answers(lineup: list[str], seed: int) -> list[str]:
        record = arena.play_game("dice", lineup, seed=seed)
        return [str(e.action) for e in record.log
                if isinstance(e, ActionEntry) and e.seat == 0]

    pure = [answers(["sparring", "honest"], seed) for seed in range(8)]
    assert pure == [answers(["sparring", "honest"], seed) for seed in range(8)]
    mixed = [answers(["sparring?mixed=true", "honest"], seed) for seed in range(8)]
    assert mixed != pure


def test_sparring_refuses_a_mixed_option_that_is_not_a_boolean() -> None:
    record = arena.play_game("dice", ["sparring?mixed=0.5", "honest"], seed=1)
    (fault,) = record.faults
    assert "option mixed must be true or false" in fault.message
