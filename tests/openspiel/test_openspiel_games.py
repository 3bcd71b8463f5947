"""arena's rule sets as OpenSpiel games: OpenSpiel's own conformance checks (random
simulations with serialization, checked-in playthroughs replayed to the letter), and what
each seat's strings and tensors reveal: what arena's observation shows it, nothing more."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.needs import require

try:
    import pyspiel

    import arena.openspiel as arena_openspiel
except ImportError:  # pragma: no cover - CI installs open_spiel
    pyspiel = None

PLAYTHROUGHS = Path(__file__).parent / "playthroughs"
"""Written by `generate_playthrough.playthrough(game, None, seed=1)` after `import
arena.openspiel`; regenerate with `generate_playthrough.update_path` on a rules change."""


@pytest.fixture(autouse=True)
def _needs_open_spiel() -> None:
    require(pyspiel, "open_spiel is not installed (pip install -e '.[openspiel]')")


@pytest.mark.parametrize("game", [
    "python_arena_dice",
    "python_arena_dice(players=3,receiver=loser_chooses,max_points=2)",
    "python_arena_dice(reroll_once_per=round,look_must_reroll=True,straight_over_full=True)",
    "python_arena_dice(dice=2,faces=4,max_points=1)",
    "python_arena_dice(dice=1,faces=3,players=3,max_points=2)",
    "python_arena_dice_cards(max_points=2)",
    "python_arena_dice_cards(players=4,max_points=1,reroll_once_per=round)",
    "python_arena_cards",
    "python_arena_cards(players=4,fresh_hand_to=rejecter,accept_reward=0)",
])
def test_random_games_pass_open_spiels_simulation_checks(game: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(game), num_sims=3, serialize=True,
                            verbose=False)


@pytest.mark.parametrize("path", sorted(PLAYTHROUGHS.glob("*.txt")), ids=lambda p: p.stem)
def test_a_checked_in_playthrough_is_played_again_to_the_letter(path: Path) -> None:
    # generate_playthrough is imported here, not at collection: it imports OpenSpiel's
    # mean-field games and scipy.stats (about 1 s of CPU in each xdist worker, most of which
    # never run this test)
    from absl import flags  # the playthrough reads its flags' defaults, as absltest's tests do
    from open_spiel.python.algorithms import generate_playthrough

    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()
    original, again = generate_playthrough.replay(str(path))
    assert again == original


def test_every_game_is_registered_by_the_import_with_arenas_defaults() -> None:
    names = set(pyspiel.registered_names())
    assert set(arena_openspiel.NAMES.values()) <= names
    dice = pyspiel.load_game("python_arena_dice").get_parameters()
    assert dice == {"players": 2, "max_points": 5, "receiver": "left",
                    "look_must_reroll": False, "reroll_once_per": "turn",
                    "straight_over_full": False, "dice": 5, "faces": 6}
    assert pyspiel.load_game("python_arena_cards").get_parameters()["chips"] == 10


def test_a_reduced_game_throws_its_dice_of_its_top_faces() -> None:
    game = pyspiel.load_game("python_arena_dice(dice=2,faces=4,max_points=1)")
    state = game.new_initial_state()
    assert game.max_chance_outcomes() == 4
    assert [state.action_to_string(a) for a, _ in state.chance_outcomes()] == [
        "die J", "die Q", "die K", "die A"]
    state.apply_action(0)
    state.apply_action(3)
    assert not state.is_chance_node()
    assert "hand J A" in state.observation_string(0)
    assert state.information_state_tensor(0)[:1] == [1.0]  # seat 0's tensor, filled


def test_a_bad_option_is_refused_in_arenas_words() -> None:
    with pytest.raises(Exception, match="receiver"):
        pyspiel.load_game("python_arena_dice(receiver=right)")


def _after(game: str, actions: list[int]) -> pyspiel.State:
    state = pyspiel.load_game(game).new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state


def _views(state: pyspiel.State, seat: int) -> tuple[object, ...]:
    return (state.information_state_string(seat), tuple(state.information_state_tensor(seat)),
            state.observation_string(seat), tuple(state.observation_tensor(seat)))


def test_the_dice_under_the_cup_are_seen_by_the_thrower_alone() -> None:
    pair_k = 41  # the thrower claims pair K whatever it threw
    aces = _after("python_arena_dice", [5, 5, 5, 5, 5, pair_k])
    nines = _after("python_arena_dice", [0, 0, 0, 0, 0, pair_k])
    assert _views(aces, 1) == _views(nines, 1)
    assert _views(aces, 0) != _views(nines, 0)
    assert "A A A A A" in aces.information_state_string(0)
    looked = _after("python_arena_dice", [5, 5, 5, 5, 5, pair_k, 1])  # seat 1 looks
    assert "A A A A A" in looked.observation_string(1)
    assert "A A A A A" not in looked.observation_string(0)


def test_a_cards_turn_being_built_is_seen_by_its_player_alone() -> None:
    game = pyspiel.load_game("python_arena_cards")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])  # the deck in order: seat 0 holds
    other = state.clone()
    before = _views(state, 1)
    state.apply_action(2)  # swap own 0 with central 0: not yet passed
    assert state.current_player() == 0
    assert _views(state, 1) == before == _views(other, 1)
    assert _views(state, 0) != _views(other, 0)
    assert "swap 0-0" in state.information_state_string(0)


def test_returns_follow_arenas_places_and_sum_to_zero() -> None:
    for game in ("python_arena_dice(players=3,max_points=1)", "python_arena_cards"):
        state = pyspiel.load_game(game).new_initial_state()
        rng = __import__("random").Random(7)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, _ = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choice(outcomes))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        result = state.arena.rules.result(state.now.game_state)
        returns = state.returns()
        assert sum(returns) == pytest.approx(0)
        best = [s for s, place in enumerate(result.placements) if place == 1]
        assert max(returns) == pytest.approx(returns[best[0]])


def test_every_action_id_is_one_of_arenas_actions_and_back() -> None:
    layout = pyspiel.load_game("python_arena_dice(players=3)").layout
    for action_id in range(layout.size):
        assert layout.id_of(layout.action_of(action_id)) == action_id
    cards = pyspiel.load_game("python_arena_cards").layout
    steps = (2 + 5 * 1 + 3, 2 + 5 * 4 + 0, 27 + 2)  # swap 1-3, swap 4-0, reveal 2
    claim = cards.claim_id(100)
    assert cards.steps_of(cards.pass_of(steps, claim)) == [*steps, claim]
