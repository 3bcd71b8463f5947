"""The built-in bots: one contract test over every registered bot, the behaviour each built-in
bot promises, the exact tables behind them, and the example bot of docs/writing-a-bot.md."""

from __future__ import annotations

import itertools
import math
import random
import re
import shutil
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from types import MappingProxyType

import pytest
from arena_bots.bluffer import Bluffer, lifted
from arena_bots.honest import Honest, plain_reroll
from arena_bots.statistician import Statistician, best_central, swaps_for
from hypothesis import given, settings
from hypothesis import strategies as st

import arena
from arena import hands
from arena.bot import BotContext
from arena.hands import Category
from arena.hosts.inline import InlineHost
from arena.hosts.pipe import PipeHost
from arena.odds import probability
from arena.odds.probability import CardPool, Evidence
from arena.plugins import default_registry
from arena.referee import ActionEntry, GameRecord, Player
from arena.rules.actions import Chance
from arena.rules.dice import DICE

DOC = Path(__file__).resolve().parents[1] / "docs" / "writing-a-bot.md"
TABLE_SIZES = {"dice": (2, 3), "dice-cards": (2, 3), "cards": (3, 4)}
LIMIT = arena.Limits().decision


SOLVED_GAMES = {"equilibrium": ((2,), {"dice": 1, "faces": 4, "max_points": 1})}
"""Bots that play only some games (and refuse the others at start): where they are checked."""


def _contract_cases() -> list[tuple[str, str]]:
    return [(spec.name, rules) for spec in default_registry().specs()
            for rules in spec.rules if rules in TABLE_SIZES]


def _actions(record: GameRecord) -> list[tuple[int, str]]:
    return [(entry.seat, str(entry.action)) for entry in record.log
            if isinstance(entry, ActionEntry)]


def _games(rules: str, lineup: list[object], seeds: range,
           options: dict | None = None) -> list[GameRecord]:
    return [arena.play_game(rules, lineup, seed=seed, options=options) for seed in seeds]


# --- the contract every registered bot keeps --------------------------------------------------


@pytest.mark.parametrize(("name", "rules"), _contract_cases())
def test_bot_contract(name: str, rules: str) -> None:
    """Builds, answers legally against random bots, replays under a seed, stays in time."""
    records = []
    sizes, options = SOLVED_GAMES.get(name, (TABLE_SIZES[rules], {}))
    for players, seed in itertools.product(sizes, (11, 12)):
        lineup = [name, *["random"] * (players - 1)]
        if seed % 2:
            lineup.reverse()
        record = arena.play_game(rules, lineup, seed=seed, options=options)
        assert record.faults == (), record.faults
        again = arena.play_game(rules, lineup, seed=seed, options=options)
        assert _actions(record) == _actions(again)
        records.append(record)
    seats = [(r, s) for r in records for s, p in enumerate(r.players) if p.name == name]
    seconds = [e.seconds for r, s in seats for e in r.log
               if isinstance(e, ActionEntry) and e.seat == s]
    assert seconds, f"{name} made no decision in {rules}"
    assert max(seconds) < LIMIT


@pytest.mark.parametrize("rules", list(TABLE_SIZES))
def test_builtin_bots_play_with_straight_over_full(rules: str) -> None:
    """The other category order changes every claim index; no bot may trip over it."""
    lineup = ["statistician", "honest", "bluffer", "random"][: TABLE_SIZES[rules][-1]]
    for record in _games(rules, lineup, range(2), {"straight_over_full": True}):
        assert record.faults == ()


def test_every_rule_set_has_the_core_bots() -> None:
    """random, honest, bluffer and statistician each play all three rule sets."""
    registry = default_registry()
    for name in ("random", "honest", "bluffer", "statistician"):
        assert set(registry.resolve(name).rules) >= {"dice", "dice-cards", "cards"}


def test_builtin_docstrings_say_how_they_play() -> None:
    for name in ("honest", "bluffer", "statistician"):
        doc = default_registry().resolve(name).factory.__doc__ or ""
        assert "How it plays." in doc


# --- honest and bluffer ------------------------------------------------------------------------


def _claims_made(record: GameRecord, seat: int) -> list[tuple[int, int, int | None]]:
    """(claim, lowest legal claim, value of the hand it saw, None for a blind pass) for each
    claim the seat made; in cards the value is the central hand's after its swaps."""
    space = hands.claim_space(hands.hand_kind(record.rules))
    tables = probability.tables_for(space)
    cards = space.kind == hands.CARDS
    seen: int | None = None
    last = -1
    out = []
    for entry in record.log:
        if isinstance(entry, arena.Event):
            event = entry
            if event.kind in ("round", "central"):
                last, seen = -1, None
            elif event.to == seat and "hand" in event.data and record.rules != "cards":
                seen = tables.hand_value(_tokens(event.data["hand"], cards))
            elif event.kind == "hand" and event.to == seat:  # cards: central after the pass
                out[-1] = (out[-1][0], out[-1][1],
                           tables.hand_value(_tokens(event.data["central"], True)))
            if event.kind in ("claim", "pass"):
                last = space.index[event.data["claim"]]
                if event.seat == seat and event.data.get("blind"):
                    out[-1] = (out[-1][0], out[-1][1], None)  # a blind pass knows nothing
        elif isinstance(entry, ActionEntry) and entry.seat == seat and isinstance(
                entry.action, arena.Bid | arena.Pass):
            out.append((space.index[entry.action.claim], last + 1, seen))
    return out


def _tokens(texts: tuple[str, ...], cards: bool) -> tuple[int, ...]:
    return tuple(hands.card_id(t) if cards else hands.rank_of(t) for t in texts)


@pytest.mark.parametrize("rules", ["dice", "dice-cards", "cards"])
def test_honest_never_claims_more_than_it_has(rules: str) -> None:
    """Every honest claim is its hand's value, or the lowest legal claim when it must lie."""
    players = TABLE_SIZES[rules][-1]
    checked = 0
    for record in _games(rules, ["honest", *["random"] * (players - 1)], range(6)):
        for claim, floor, value in _claims_made(record, 0):
            assert value is not None, "honest claimed without knowing its hand"
            assert claim == max(value, floor)
            checked += 1
    assert checked > 20


def test_plain_reroll_keeps_what_pairs_up() -> None:
    tables = probability.dice_tables()
    k, q, nine, ace = 13, 12, 9, 14
    assert plain_reroll((k, k, q, nine, ace), tables, target=40) == (2, 3, 4)
    assert plain_reroll((k, k, q, nine, ace), tables, target=1) == ()  # pair K beats pair 9
    assert plain_reroll((nine, 10, 11, 12, ace), tables, target=60) == (0,)  # four best
    cards = probability.card_tables()
    suited = tuple(hands.card_id(c) for c in ("2h", "7h", "9h", "Kh", "Ac"))
    assert plain_reroll(suited, cards, target=0) == (4,)  # four of a suit


def test_bluffer_claims_well_above_its_hand() -> None:
    """Non-blind bluffer claims sit at least one category above the hand's value."""
    space = hands.claim_space(hands.DICE)
    over = 0
    for record in _games("dice", ["bluffer", "random"], range(6)):
        for claim, floor, value in _claims_made(record, 0):
            if value is not None:
                assert claim >= max(lifted(space, value, 1), floor)
                over += claim > value
    assert over > 10


def _answer_to_three_kings(bot: type[arena.Bot]) -> arena.Action:
    """Seat 0 throws K K Q 9 T and claims pair K; seat 1 looks, rerolls one die and claims
    three K (true one time in six, from seat 0's view). What does seat 0 answer?"""
    options = MappingProxyType(DICE.check_options(None))
    context = BotContext(0, 2, "dice", options, arena.Limits(), random.Random(1))
    player = bot(context)
    player.start(context)
    state = DICE.new_game(2)
    for step in (Chance((13, 13, 12, 9, 10)), arena.Bid(arena.parse_claim("pair K")),
                 arena.Look(), arena.Reroll((4,)), Chance((11,)),
                 arena.Bid(arena.parse_claim("three K"))):
        state = DICE.apply(state, step)
        for event in DICE.events(state):
            if event.to in (None, 0):
                player.notify(event)
    return player.act(DICE.observe(state, 0))


def test_bluffer_lets_unlikely_claims_pass_where_honest_challenges() -> None:
    assert _answer_to_three_kings(Honest) == arena.Challenge()
    assert _answer_to_three_kings(Bluffer) != arena.Challenge()


def test_lifted_climbs_whole_categories() -> None:
    space = hands.claim_space(hands.DICE)
    pair_k = space.index[arena.parse_claim("pair K")]
    assert space.claims[lifted(space, pair_k, 1)] == arena.parse_claim("two-pair T 9")
    assert space.claims[lifted(space, pair_k, 2)] == arena.parse_claim("three 9")
    assert lifted(space, len(space) - 1, 2) == len(space) - 1


# --- statistician -----------------------------------------------------------------------------


FIVE_K = arena.parse_claim("five K")


class FiveKings(arena.Bot):
    """Scripted: looks, rerolls nothing, claims five kings (still leaves five aces to claim)."""

    name = "five-kings"
    rules = ("dice",)

    def act(self, observation: arena.Observation) -> arena.Action:
        low = observation.min_claim
        if observation.decision == "respond":
            return arena.Look() if low is not None and low <= FIVE_K else arena.Challenge()
        if observation.decision == "reroll":
            return arena.Reroll(())
        return arena.Bid(max(FIVE_K, low) if low is not None else FIVE_K)


def test_statistician_challenges_an_impossible_claim() -> None:
    """Five kings claimed on dice it passed and nobody rerolled is a sure lie: it challenges
    (though looking would be legal), and it doubts five kings thrown out of nowhere."""
    thrower = 0
    for record in _games("dice", ["statistician", FiveKings], range(4)):
        log = [e for e in record.log if isinstance(e, ActionEntry)]
        for before, after in itertools.pairwise(log):
            if before.seat == 1 and before.action == arena.Bid(FIVE_K):
                assert after.seat == 0 and after.action == arena.Challenge()
                thrower += isinstance(after.action, arena.Challenge)
    assert thrower >= 8


def _with_threshold(threshold: float) -> Player:
    return Player("statistician", InlineHost(Statistician), "test",
                  options=MappingProxyType({"threshold": threshold}))


def test_threshold_option_changes_behaviour() -> None:
    """threshold 0 never challenges by choice; threshold 1 challenges all but sure claims."""
    decisions: dict[float, Counter[str]] = {}
    for threshold in (0.0, 1.0):
        counts: Counter[str] = Counter()
        for record in _games("dice", [_with_threshold(threshold), "random"], range(4)):
            assert record.faults == ()
            counts.update(type(e.action).__name__ for e in record.log
                          if isinstance(e, ActionEntry) and e.seat == 0)
        decisions[threshold] = counts
    assert decisions[0.0]["Look"] > decisions[1.0]["Look"]
    assert decisions[0.0]["Challenge"] < decisions[1.0]["Challenge"]


@pytest.mark.parametrize("bad", [-0.1, 1.5, "high", True])
def test_bad_threshold_is_a_fault_with_a_message(bad: object) -> None:
    player = Player("statistician", InlineHost(Statistician), "test",
                    options=MappingProxyType({"threshold": bad}))
    record = arena.play_game("dice", [player, "random"], seed=1)
    assert record.faults and "threshold" in record.faults[0].message


def test_statistician_beats_random() -> None:
    """A short fast match: at least 70% of 60 two-player dice games, seats alternating."""
    wins = 0
    for seed in range(60):
        lineup = ["statistician", "random"] if seed % 2 == 0 else ["random", "statistician"]
        record = arena.play_game("dice", lineup, seed=seed)
        wins += record.result.placements[seed % 2] == 1
    assert wins >= 42


def test_statistician_keeps_the_dice_that_make_the_claim() -> None:
    """Holding K K K Q 9 against 'full K Q' to beat, it rerolls the 9 (or the Q and 9)."""
    space = hands.claim_space(hands.DICE)
    from arena_bots.statistician import best_reroll

    from arena.odds.memory import RoundMemory

    memory = RoundMemory(0, space)
    memory.saw((13, 13, 13, 12, 9))
    target = space.index[arena.parse_claim("full K Q")] + 1
    assert best_reroll(memory, target) in ((4,), (3, 4))
    memory.saw((13, 13, 13, 12, 12))
    assert best_reroll(memory, space.index[arena.parse_claim("full K Q")]) == ()


def test_best_central_takes_the_best_five_of_ten() -> None:
    tables = probability.card_tables()
    own = tuple(hands.card_id(c) for c in ("Ah", "Ad", "2c", "7s", "9d"))
    central = tuple(hands.card_id(c) for c in ("Ac", "Kd", "Ks", "3h", "4h"))
    chosen, value = best_central(own, central, tables, keep_private=True)
    assert tables.space.claims[value] == arena.parse_claim("full A K")
    swaps = swaps_for(own, central, chosen)
    after = list(central)
    for mine, middle in swaps:
        after[middle] = own[mine]
    assert frozenset(after) == chosen and len(swaps) == 2


# --- the exact tables -------------------------------------------------------------------------


def test_fresh_distributions_reproduce_the_reference_tables() -> None:
    """RULES.md's tables: 7,776 dice rolls and 2,598,960 five-card hands by category."""
    for tables, total, expected in (
        (probability.dice_tables(), 7776, {Category.FIVE: 6, Category.FOUR: 150,
         Category.FULL: 300, Category.STRAIGHT: 240, Category.THREE: 1200,
         Category.TWO_PAIR: 1800, Category.PAIR: 3600, Category.HIGH: 480}),
        (probability.card_tables(), 2_598_960, {Category.STRAIGHT_FLUSH: 40,
         Category.FOUR: 624, Category.FULL: 3744, Category.FLUSH: 5108,
         Category.STRAIGHT: 10200, Category.THREE: 54912, Category.TWO_PAIR: 123552,
         Category.PAIR: 1098240, Category.HIGH: 1302540}),
    ):
        found: Counter[Category] = Counter()
        for index, p in enumerate(tables.fresh):
            found[tables.space.claims[index].category] += p * total
        assert {c: round(n) for c, n in found.items() if round(n)} == expected
        assert math.isclose(sum(tables.fresh), 1.0)


@pytest.mark.parametrize(("straight_over_full", "dice", "faces"),
                         [(False, 5, 6), (True, 5, 6), (False, 3, 4), (True, 2, 6)])
def test_dice_tables_are_every_ordered_roll_counted_one_by_one(straight_over_full: bool,
                                                                dice: int, faces: int) -> None:
    """The tables count each sorted roll once, weighted by its orderings: the very floats of
    counting every ordered roll (7,776 for 5 dice), and of summing from the end one by one."""
    tables = probability.dice_tables(straight_over_full, dice, faces)
    ranks = tables.space.ranks
    for size in range(dice + 1):
        rolls = list(itertools.product(ranks, repeat=dice - size))
        for kept in itertools.combinations_with_replacement(ranks, size):
            counts = [0] * len(tables.space)
            for roll in rolls:
                counts[tables.value[tuple(sorted(kept + roll))]] += 1
            outcome = tuple(c / len(rolls) for c in counts)
            assert tables.outcome[kept] == outcome
            for table, values in ((tables.reach, outcome), (tables.edge, [
                    p * s for p, s in zip(outcome, tables.strength, strict=True)])):
                sums = [0.0] * (len(values) + 1)
                for i in range(len(values) - 1, -1, -1):
                    sums[i] = sums[i + 1] + values[i]
                assert table[kept] == tuple(sums)


def test_straight_over_full_tables_follow_that_order() -> None:
    tables = probability.dice_tables(True)
    straight = tables.hand_value((9, 10, 11, 12, 13))
    full = tables.hand_value((9, 9, 9, 10, 10))
    assert straight > full
    assert probability.dice_tables(False).hand_value((9, 10, 11, 12, 13)) < \
        probability.dice_tables(False).hand_value((9, 9, 9, 10, 10))


cards_strategy = st.lists(st.integers(0, 51), min_size=8, max_size=14, unique=True)


@settings(max_examples=25, deadline=None)
@given(cards_strategy, st.integers(3, 5), st.integers(0, 308))
def test_card_draws_match_brute_force(seen: list[int], kept_size: int, target: int) -> None:
    """Drawing 0-2 cards onto kept ones: the exact distribution, flushes included."""
    tables = probability.card_tables()
    kept, pool = seen[:kept_size], [c for c in range(52) if c not in seen]
    dist = tables.draw(kept, CardPool.of(pool))
    combos = list(itertools.combinations(pool, 5 - kept_size))
    counts = Counter(tables.space.index[hands.cards_value([*kept, *c])] for c in combos)
    assert all(math.isclose(dist[i], counts[i] / len(combos), abs_tol=1e-12)
               for i in range(len(dist)))
    gain = [1 + i / 1000 for i in range(len(dist))]
    expected = sum(dist[i] * gain[i] for i in range(target, len(dist)))
    assert math.isclose(tables.draw_score(kept, CardPool.of(pool), target, gain), expected)


def test_one_suit_draws_become_flushes() -> None:
    """Four hearts kept, one card drawn from a pool holding three more hearts."""
    tables = probability.card_tables()
    kept = tuple(hands.card_id(c) for c in ("2h", "5h", "9h", "Jh"))
    pool = tuple(hands.card_id(c) for c in ("Ah", "3h", "Kh", "2c", "9s", "4d"))
    dist = tables.draw(kept, CardPool.of(pool))
    flushes = sum(p for i, p in enumerate(dist)
                  if tables.space.claims[i].category == Category.FLUSH)
    assert math.isclose(flushes, 3 / 6)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=6, max_size=6).filter(lambda w: sum(w) > 0),
       st.integers(0, 5))
def test_rerolls_keep_survivor_odds_a_distribution(weights: list[float], count: int) -> None:
    """Odds stay a distribution, at most 5 - count seen tokens survive, and the expected
    number of survivors shrinks by count/5 (the rerolled positions are uniform)."""
    survivors = [w / sum(weights) for w in weights]
    after = probability.after_reroll(survivors, count)
    assert math.isclose(sum(after), 1.0)
    assert all(after[j] == 0 for j in range(6 - count, 6))
    mean = sum(j * p for j, p in enumerate(survivors))
    assert math.isclose(sum(j * p for j, p in enumerate(after)), mean * (5 - count) / 5,
                        abs_tol=1e-12)


def test_after_reroll_is_hypergeometric() -> None:
    after = probability.after_reroll(probability.EXACT, 2)
    assert after[3] == 1.0
    twice = probability.after_reroll(after, 1)
    assert math.isclose(twice[2], 3 / 5) and math.isclose(twice[3], 2 / 5)


def test_dice_belief_of_an_unseen_reroll() -> None:
    """Four kings and a nine seen, one die rerolled unseen: it was the nine one time in five."""
    tables = probability.dice_tables()
    belief = probability.dice_belief(tables, (13, 13, 13, 13, 9),
                                      probability.after_reroll(probability.EXACT, 1))
    five_k = tables.space.index[arena.parse_claim("five K")]
    four_k = tables.space.index[arena.parse_claim("four K")]
    assert math.isclose(belief[five_k], 1 / 5 * 1 / 6)
    assert math.isclose(probability.at_least(belief, four_k), 1 / 5 + 4 / 5 * 1 / 6)


def test_claims_weigh_by_the_claimant_honesty() -> None:
    """The same claim is believed from a proven honest claimant and doubted from a liar."""
    tables = probability.dice_tables()
    claim = tables.space.index[arena.parse_claim("full A K")]
    evidence = [Evidence(1, claim, 0)]
    naive = probability.holds_probability(tables.fresh, claim)
    trusted = probability.holds_probability(tables.fresh, claim, evidence, {1: 4.0})
    doubted = probability.holds_probability(tables.fresh, claim, evidence, {1: -4.0})
    assert naive < doubted < 0.5 < trusted
    honest = probability.honesty_update(0.0, Evidence(1, claim, 0), claim, len(tables.fresh))
    liar = probability.honesty_update(0.0, Evidence(1, claim, 0), 3, len(tables.fresh))
    assert honest > 0 > liar


# --- the example bot of docs/writing-a-bot.md -------------------------------------------------


def test_the_documented_example_bot_plays(tmp_path: Path) -> None:
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert code is not None
    path = tmp_path / "my_bot.py"
    path.write_text(code.group(1))
    assert 25 <= len(code.group(1).splitlines()) <= 40
    for rules in ("dice", "dice-cards"):
        for seed in range(3):
            record = arena.play_game(rules, [str(path), "random"], seed=seed)
            assert record.faults == ()
            assert record.players[0].name == "my-bot"


# --- the rule options: every bot answers every decision they add ------------------------------

OPTIONS = [{"receiver": "loser_chooses"}, {"look_must_reroll": True},
           {"reroll_once_per": "round"}, {"look_must_reroll": True, "reroll_once_per": "round"}]
DICE_RULES = ("dice", "dice-cards")


def _decisions(record: GameRecord, seat: int) -> Counter[str]:
    """What the seat was asked, counted by the kind of its answer."""
    return Counter(type(e.action).__name__ for e in record.log
                   if isinstance(e, ActionEntry) and e.seat == seat)


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("rules", DICE_RULES)
def test_builtin_bots_play_under_every_rule_option(rules: str, options: dict) -> None:
    lineup = ["statistician", "honest", "bluffer", "random"]
    answers: Counter[str] = Counter()
    for record in _games(rules, lineup, range(2), options):
        assert record.faults == ()
        for seat in range(len(lineup)):
            answers += _decisions(record, seat)
    assert answers["Reroll"] > 0
    assert ("receiver" in options) == (answers["Choose"] > 0)


def test_builtin_bots_choose_the_leader_as_receiver() -> None:
    record = arena.play_game("dice", ["honest", "statistician", "bluffer"], seed=4,
                             options={"receiver": "loser_chooses"})
    chosen = [e for e in record.log if isinstance(e, arena.Event) and e.kind == "choose"]
    assert chosen
    points = [0, 0, 0]
    for event in record.log:
        if not isinstance(event, arena.Event):
            continue
        if event.kind == "point":
            points[event.seat] = event.data["points"]
        if event.kind == "choose":
            others = [s for s in range(3) if s != event.seat and points[s] < 5]
            assert points[event.data["receiver"]] == min(points[s] for s in others)


EXAMPLES = Path(__file__).resolve().parents[1] / "bots" / "examples"


@pytest.fixture(scope="module")
def example_hosts() -> Iterator[list[tuple[PipeHost, PipeHost]]]:
    """The example bots (Python, and JavaScript where node is installed), each beside a
    process bot (honest), their processes started once for the eight rule options below: a
    process bot plays game after game, as in a tournament (each start is an interpreter's)."""
    from arena.hosts.pipe import CommandHost, ProcessHost, ProcessLimits

    limits = ProcessLimits()
    commands = [[sys.executable, str(EXAMPLES / "example_bot.py")]]
    if shutil.which("node"):
        commands.append(["node", str(EXAMPLES / "example_bot.js")])
    with ExitStack() as stack:
        yield [(stack.enter_context(CommandHost(command, limits)),
                stack.enter_context(ProcessHost("honest", limits))) for command in commands]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("rules", DICE_RULES)
def test_the_example_bots_and_a_process_bot_play_under_every_rule_option(
        rules: str, options: dict, example_hosts: list[tuple[PipeHost, PipeHost]]) -> None:
    moves = []
    for example, honest in example_hosts:
        record = arena.play_game(rules, [Player("example", example), "random",
                                         Player("honest", honest)],
                                 seed=6, options=options)
        assert record.faults == ()
        assert ("receiver" in options) <= (_decisions(record, 0)["Choose"] > 0)
        moves.append(_actions(record))
    assert all(m == moves[0] for m in moves)
