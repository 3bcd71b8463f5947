"""`boss`: it beats the statistician, and its mirror of a two-player opponent bluffs where the
opponent would believe and claims true where the opponent would challenge."""

from __future__ import annotations

import functools
import random
from typing import Any

import pytest
from arena_bots.boss import DOUBT, NEAR_ODDS, Boss, draw
from arena_bots.mirror import EVEN, Mirror
from click.testing import CliRunner

import arena
from arena import hands
from arena.cli.main import cli
from arena.odds import probability
from arena.odds.memory import RoundMemory
from arena.referee import ActionEntry
from tests.test_bots import _claims_made

DICE = hands.claim_space(hands.DICE)
OPTIONS = [{"receiver": "loser_chooses"}, {"look_must_reroll": True},
           {"reroll_once_per": "round"}, {"look_must_reroll": True, "reroll_once_per": "round"},
           {"straight_over_full": True}]


def _above_statistician(rules: str, games: int, third: str | None = None) -> int:
    """Games (fixed seeds, seats rotated) in which boss placed above the statistician."""
    won = 0
    for seed in range(games):
        table = ["boss", "statistician", *([third] if third else [])]
        turn = seed % len(table)
        lineup = table[turn:] + table[:turn]
        record = arena.play_game(rules, lineup, seed=seed)
        assert record.faults == ()
        places = record.result.placements
        won += places[lineup.index("boss")] < places[lineup.index("statistician")]
    return won


@pytest.mark.parametrize(("rules", "games", "third", "least"),
                         [("dice", 40, None, 36), ("dice-cards", 30, None, 24),
                          ("cards", 36, "honest", 21)])
def test_boss_places_above_the_statistician(rules: str, games: int, third: str | None,
                                            least: int) -> None:
    """Fixed seeds (boss draws its mixed play with the seeded rng): a margin well beyond the
    statistician's own (the statistician against itself places above its twin in about half)."""
    assert _above_statistician(rules, games, third) >= least


def test_compare_says_boss_is_better_than_the_statistician() -> None:
    result = CliRunner().invoke(cli, ["compare", "boss", "statistician", "--rules", "dice",
                                      "--seed", "1", "-q", "--workers", "1"])
    assert result.exit_code == 0
    assert result.output.startswith("better: boss is better than statistician: ")


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("rules", ["dice", "dice-cards"])
def test_boss_plays_two_players_under_every_rule_option(rules: str, options: dict) -> None:
    for seed in range(2):
        record = arena.play_game(rules, ["boss", "statistician"], seed=seed, options=options)
        assert record.faults == ()


def _mirror(trust: float, proved: str | None = "trusting") -> Mirror:
    """Boss in seat 0, its opponent in seat 1 trusting boss's claims by `trust` (log-odds),
    after three answers that only the `proved` model of it predicted."""
    mirror = Mirror(1, 0, DICE)
    mirror.view.honesty.log_odds[0] = trust
    for model in mirror.record if proved else ():
        mirror.record[model] = [3, 0] if model == proved else [0, 3]
    return mirror


def _thrown(dice: str) -> tuple[RoundMemory, int]:
    """Boss's memory of a fresh throw it alone has seen, and the throw's value."""
    memory = RoundMemory(0, DICE)
    memory.saw(tuple(map(hands.rank_of, dice.split())))
    assert memory.known is not None
    return memory, memory.tables.hand_value(memory.known)


def test_a_trusting_opponent_is_told_a_bluff() -> None:
    memory, value = _thrown("9 T J K A")  # high card: nothing to claim
    mirror = _mirror(trust=4.0)
    claim = mirror.best_claim(memory, value, floor=0)
    assert claim > value
    mirror.predict(claim, floor=0)
    assert mirror.predicted == {"trusting": False, "ignoring": True}


def test_a_distrusting_opponent_is_told_the_truth_it_will_challenge() -> None:
    memory, value = _thrown("K K K A A")  # a full house: unlikely from a fresh throw
    mirror = _mirror(trust=-4.0)
    assert mirror.believed(0, reads_claims=True)[value] < EVEN
    assert mirror.best_claim(memory, value, floor=0) == value


def test_no_bluff_before_an_answer_has_proved_a_model() -> None:
    memory, value = _thrown("9 T J K A")
    mirror = _mirror(trust=4.0, proved=None)
    assert mirror.model() is None and not mirror.fits()
    assert mirror.best_claim(memory, value, floor=0) == value


def test_answers_the_trusting_model_misses_switch_the_model() -> None:
    mirror = _mirror(trust=4.0)
    assert mirror.model() == "trusting"
    for _ in range(4):
        mirror.predicted = {"trusting": False, "ignoring": True}
        mirror._answered(challenged=True)
    assert mirror.model() == "ignoring"
    assert mirror.fits()


def test_an_opponent_no_model_predicts_ends_the_bluffing() -> None:
    mirror = _mirror(trust=4.0)
    for _ in range(4):
        mirror.predicted = {"trusting": False, "ignoring": False}
        mirror._answered(challenged=True)
    assert not mirror.fits()


@pytest.mark.parametrize("rules", ["dice", "dice-cards"])
def test_at_a_table_of_three_boss_claims_as_the_statistician(rules: str) -> None:
    """No mirror without two players: its true value when legal, else the lowest claim."""
    claims = []
    for seed in range(3):
        record = arena.play_game(rules, ["boss", "statistician", "honest"], seed=seed)
        claims += [(c, f, v) for c, f, v in _claims_made(record, 0) if v is not None]
    assert len(claims) > 10
    assert all(claim == max(value, floor) for claim, floor, value in claims)


def test_boss_mixes_with_its_own_rng_so_a_seed_replays_the_game() -> None:
    """Boss draws from its mixed strategy with the context's seeded rng: same seed, same game;
    another seed, other draws."""
    games = [[entry.action for entry in arena.play_game("dice", ["boss", "statistician"],
                                                         seed=seed).log
              if isinstance(entry, ActionEntry) and entry.seat == 0] for seed in (5, 5, 6)]
    assert games[0] == games[1]
    assert games[0] != games[2]


def test_a_bluff_is_as_frequent_as_a_challenger_can_bear() -> None:
    """From a fresh throw of 5 dice, every claim above the lowest is bluffed so that among the
    hands claiming it, the share of bluffs is the chance that the receiver, accepting, beats
    it: challenging it then gains nothing."""
    from arena_bots import indifference

    from arena.odds import probability

    fresh = probability.dice_tables(False).fresh
    beat = indifference.beating(False, 5, 6)
    rates = indifference.bluff_rates(fresh, beat)
    checked = 0
    for claim in range(1, len(fresh)):
        if 0 < rates[claim] < 1:
            bluffs = rates[claim] * sum(fresh[:claim])
            share = bluffs / (bluffs + fresh[claim])
            assert share == pytest.approx(indifference.beaten(beat, claim))
            checked += 1
    assert checked > 30


Met = tuple[arena.Observation, dict[str, Any], list[tuple[arena.Action, float]], arena.Action]


@functools.cache
def _strategies(seeds: range, opponent: str) -> tuple[Met, ...]:
    """Every decision boss met in two-player dice games: what it saw, what it knew then (its
    chance that a claim to answer holds; for a claim, its true one and the receiver's view),
    its mixed strategy there and what it drew. Played once a process: three tests read the
    same six games."""
    met: list[Met] = []

    class Watched(Boss):
        """boss, writing down each mixed strategy it drew from."""

        def strategy(self, observation: arena.Observation) -> list[tuple[arena.Action, float]]:
            self.mixed = super().strategy(observation)
            memory, legal = self.round, observation.legal
            assert memory is not None and self.mirror is not None
            self.knew: dict[str, Any] = {"fits": self.mirror.fits()}
            if legal.decision == "respond" and legal.can_claim():
                self.knew["holds"] = memory.holds(self._claim(observation))
            if legal.decision == "claim" and memory.known is not None:
                self.knew["truth"] = max(memory.tables.hand_value(memory.known),
                                         legal.min_index)
                self.knew["belief"] = self.mirror.view.belief()
            return self.mixed

        def act(self, observation: arena.Observation) -> arena.Action:
            action = super().act(observation)
            met.append((observation, self.knew, self.mixed, action))
            return action

    for seed in seeds:
        arena.play_game("dice", [Watched, opponent] if seed % 2 else [opponent, Watched],
                        seed=seed)
    return tuple(met)  # cached: the tests share it, none may change it


def test_boss_strategy_is_a_distribution_and_its_draws_come_from_it() -> None:
    """At every decision the mixed strategy's chances are positive and sum to 1, and the
    action boss plays is one of them."""
    met = _strategies(range(6), "random")
    assert len(met) > 100
    for _, _, mixed, action in met:
        assert all(chance > 0 for _, chance in mixed)
        assert sum(chance for _, chance in mixed) == pytest.approx(1.0)
        assert action in [choice for choice, _ in mixed]


@pytest.mark.parametrize("points", [0.1, 0.35, 0.6, 0.99])
def test_a_draw_follows_the_chances(points: float) -> None:
    """`draw` takes the action whose share of [0, 1) holds the rng's number."""
    choices = [(arena.Challenge(), 0.3), (arena.Look(), 0.7)]

    class Fixed(random.Random):
        def random(self) -> float:
            return points

    assert draw(choices, Fixed()) == (arena.Challenge() if points < 0.3 else arena.Look())
    assert draw([(arena.Look(), 1.0)], Fixed()) == arena.Look()


def test_boss_challenges_purely_where_its_odds_are_decisive() -> None:
    """Against random's claims (no mirror ever fits it): a claim boss's own odds make near
    certain is never challenged, one they make near impossible always is; it mixes only
    near its threshold."""
    decided = 0
    for _, knew, strategy, _ in _strategies(range(6), "random"):
        if "holds" in knew and not knew["fits"] and abs(knew["holds"] - DOUBT["dice"]) > NEAR_ODDS:
            decided += 1
            assert strategy == [(arena.Challenge() if knew["holds"] < DOUBT["dice"]
                                 else arena.Look(), 1.0)]
    assert decided > 20


def test_boss_never_bluffs_a_claim_the_receiver_almost_surely_challenges() -> None:
    """Every claim boss may make above its true one is, by the receiver's own odds, likely
    enough to hold, and not one the receiver would beat anyway."""
    from arena_bots import indifference

    bluffs = 0
    beat = indifference.beating(False, 5, 6)
    for _, knew, strategy, _ in _strategies(range(6), "random"):
        if "truth" not in knew or knew["fits"]:
            continue
        truth, belief = knew["truth"], knew["belief"]
        for action, _ in strategy:
            assert isinstance(action, arena.Bid)
            claim = probability.claim_index(DICE, action.claim)
            if claim > truth:
                bluffs += 1
                assert sum(belief[claim:]) >= indifference.BELIEVED
                assert indifference.beaten(beat, claim) <= indifference.BEATEN
    assert bluffs > 0


def test_sound_mix_keeps_the_indifference_rates_of_the_bluffs_it_keeps() -> None:
    """The bluffs kept are at `claim_mix`'s rates; what the dropped ones had goes to the
    true claim."""
    from arena_bots import indifference

    fresh = probability.dice_tables(False, 1, 4).fresh
    beat = indifference.beating(False, 1, 4)
    for truth in range(len(fresh)):
        full = indifference.claim_mix(fresh, truth, 0, beat)
        sound = indifference.sound_mix(fresh, truth, 0, beat)
        assert sum(sound.values()) == pytest.approx(1.0)
        assert all(sound[claim] == full[claim] for claim in sound if claim != truth)
        assert sound[truth] >= full.get(truth, 0.0)


def _chances_term_by_term(prior: list[float], floor: int,
                          beat: tuple[tuple[float, ...], ...]) -> tuple[list[float], list[float]]:
    """`challenge_chances` and `claim_worth` as their docstrings say them, one hand and one
    claim at a time: the reference the list-at-a-time code must match bit for bit."""
    import math

    from arena_bots import indifference

    size = len(prior)
    rates = indifference.bluff_rates(prior, beat)
    mixes = [indifference._mix(rates, max(x, floor)) if prior[x] > 0 else {} for x in range(size)]
    best, chances = [-math.inf] * size, []
    for claim in range(floor, size):
        weight = [p * mixes[x].get(claim, 0.0) for x, p in enumerate(prior)]
        if sum(weight) <= 0:
            weight = list(prior)
        total = sum(weight)
        challenge = sum((1 if x < claim else -1) * w for x, w in enumerate(weight)) / total
        accept = sum((2 * beat[x][claim + 1] - 1) * w for x, w in enumerate(weight)) / total
        bluffs = [x for x, w in enumerate(weight[:claim]) if w > 0 and best[x] > -math.inf]
        if abs(challenge - accept) > indifference.NEAR or not bluffs:
            chance = 1.0 if challenge >= accept else 0.0
        else:
            believed = [1 - 2 * beat[x][claim + 1] for x in bluffs]
            chance = max(0.0, min(1.0, max((b - best[x]) / (b + 1) if b > -1 else 1.0
                                           for x, b in zip(bluffs, believed, strict=True))))
        chances.append(chance)
        for x, p in enumerate(prior):
            if p > 0:
                worth = (1 if x >= claim else -1) * chance + (1 - chance) * (
                    1 - 2 * beat[x][claim + 1])
                best[x] = max(best[x], worth)
    worth = [max((1 if value >= claim else -1) * q + (1 - q) * (1 - 2 * beat[value][claim + 1])
                 for claim, q in enumerate(chances, floor)) for value in range(size)]
    return chances, worth


def test_boss_s_challenge_chances_and_claim_worths_are_the_term_by_term_sums_bit_for_bit() -> None:
    """The fast list-at-a-time code adds the same terms in the same order: the same floats to
    the last bit (a result file would change with the last bit of a chance), on the fresh
    throw's prior and on priors with hands ruled out, from every floor."""
    import struct

    from arena_bots import indifference

    fresh = list(probability.dice_tables(False).fresh)
    rng = random.Random(3)
    for straight_over_full in (False, True):
        beat = indifference.beating(straight_over_full, 5, 6)
        for sparse in range(3):
            prior = [p if not sparse or rng.random() < 0.5 else 0.0 for p in fresh]
            prior = [p / sum(prior) for p in prior]
            for floor in range(0, len(prior), 13):
                chances, worth = _chances_term_by_term(prior, floor, beat)
                fast = indifference.challenge_chances(prior, floor, beat)
                fast_worth = indifference.claim_worth(prior, floor, beat)
                assert [struct.pack("<d", c) for c in fast] == [
                    struct.pack("<d", c) for c in chances]
                assert [struct.pack("<d", w) for w in fast_worth] == [
                    struct.pack("<d", w) for w in worth]
