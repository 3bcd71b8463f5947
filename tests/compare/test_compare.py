"""Tests for `arena compare`: the seating plan, paired scores, verdicts and exit statuses."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from arena_bots.random_bot import RandomBot
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import arena
from arena import hands
from arena.cli.main import cli
from arena.compare.groups import Entrant, GroupResult, Setup, group_seed, plan_group, seat_score
from arena.compare.players import build_player, default_field
from arena.compare.run import run_compare
from arena.compare.samples import Summary
from arena.compare.sprt import sprt_paired
from arena.compare.verdict import Bounds, Tally, summary_dict
from arena.entrants import EntrantError
from arena.plugins import Registry
from arena.rules.actions import Bid, Challenge, Look, Reroll


class Doubter(arena.Bot):
    """Claims what it holds, rerolls its singles, challenges claims in the top of the space."""

    name = "doubter"
    rules = ("dice",)
    options = {"doubt": 0.3}  # noqa: RUF012 - the Bot API declares options as a class mapping

    def act(self, observation: arena.Observation) -> arena.Action:
        """Play honestly; doubt high claims."""
        legal = observation.legal
        if observation.decision == "respond":
            high = legal.space.index[observation.claim] >= self.settings["doubt"] * len(legal.space)
            return Challenge() if high or not legal.can_claim() else Look()
        if observation.decision == "reroll":
            counts = Counter(observation.hand)
            return Reroll(tuple(i for i, d in enumerate(observation.hand) if counts[d] < 2))
        held = hands.value(" ".join(observation.hand))
        return Bid(held if legal.space.index[held] >= legal.min_index else legal.min_claim)


class Unlucky(RandomBot):
    """The random bot's strategy on a different random stream: same strength, other luck."""

    name = "unlucky"

    def __init__(self, context: arena.BotContext) -> None:
        super().__init__(context)
        self.rng = random.Random(context.rng.random())


class Crasher(arena.Bot):
    """Raises at every decision: forfeits every game it plays."""

    name = "crasher"

    def act(self, observation: arena.Observation) -> arena.Action:
        """Fail."""
        raise RuntimeError("no idea")


DOUBTER = f"{Path(__file__)}:Doubter"
CRASHER = f"{Path(__file__)}:Crasher"
UNLUCKY = f"{Path(__file__)}:Unlucky"


def trusted(ref: str) -> Entrant:
    """A test bot run inline (as `--trust`): these tests are about the statistics."""
    return Entrant(ref, mode="inline")


WIDE = Bounds(0.0, 60.0)  # wide bounds: decisions within a few hundred games


def run(*args: str) -> tuple[int, str]:
    """Run `arena compare ARGS` and return the exit status and stdout."""
    result = CliRunner().invoke(cli, ["compare", *args], catch_exceptions=False)
    return result.exit_code, result.output


# --- entrants ----------------------------------------------------------------------------


def test_entrant_reads_bot_options_as_yaml_scalars() -> None:
    entrant = Entrant.parse("statistician?threshold=0.3&bold=true&name=x")
    assert entrant == Entrant("statistician", (("bold", True), ("name", "x"), ("threshold", 0.3)))
    assert entrant.label == "statistician?bold=True&name=x&threshold=0.3"
    assert Entrant.parse("random").label == "random"


@pytest.mark.parametrize("text", ["", "?a=1", "random?a", "random?=1"])
def test_entrant_rejects_malformed_references(text: str) -> None:
    with pytest.raises(EntrantError):
        Entrant.parse(text)


def test_bot_options_reach_the_bot() -> None:
    player = build_player(Entrant.parse(f"{DOUBTER}?doubt=0.7"))
    assert dict(player.options) == {"doubt": 0.7}
    assert player.name.endswith("?doubt=0.7")


def test_default_field_cycles_the_installed_mix() -> None:
    registry = Registry()
    registry.register(RandomBot, "test")
    assert default_field("dice", 4, registry) == (Entrant("random"),) * 3
    registry.register(Doubter, "test")
    registry.register(Crasher, "test", name="honest")
    assert default_field("dice", 4, registry) == (
        Entrant("honest"), Entrant("random"), Entrant("honest"))


# --- the seating plan ----------------------------------------------------------------------


def test_two_seats_play_a_pair_with_seats_swapped_on_one_seed() -> None:
    cand, base = Entrant("a"), Entrant("b")
    first, second = plan_group(Setup(cand, base), 5)
    assert first.seats == (cand, base) and second.seats == (base, cand)
    assert (first.candidate_seat, first.baseline_seat) == (0, 1)
    assert (second.candidate_seat, second.baseline_seat) == (1, 0)
    assert first.seed == second.seed == group_seed(Setup(cand, base), 5)
    assert group_seed(Setup(cand, base), 6) != first.seed


def test_more_seats_rotate_the_table_and_pair_each_rotation() -> None:
    cand, base = Entrant("a"), Entrant("b")
    field = (Entrant("x"), Entrant("y"), Entrant("z"))
    setup = Setup(cand, base, seats=4, field=field)
    tables = plan_group(setup, 0)
    assert len(tables) == setup.group_games == 8
    assert len({t.seed for t in tables}) == 1
    for s in range(4):
        with_cand, with_base = tables[2 * s], tables[2 * s + 1]
        assert with_cand.candidate_seat == with_base.baseline_seat == s
        assert with_cand.seats[s] == cand and with_base.seats[s] == base
        others = [i for i in range(4) if i != s]
        assert [with_cand.seats[i] for i in others] == [with_base.seats[i] for i in others]
        # the field follows the tested seat in order: neighbours stay the same
        assert tuple(with_cand.seats[(s + 1 + i) % 4] for i in range(3)) == field


def test_unpaired_play_gives_every_game_its_own_seed() -> None:
    setup = Setup(Entrant("a"), Entrant("b"), seats=3, field=(Entrant("x"),) * 2,
                  duplicate=False)
    assert len({t.seed for t in plan_group(setup, 0)}) == 6


@given(st.lists(st.integers(1, 6), min_size=2, max_size=6))
def test_seat_scores_share_out_one_point_per_pair_of_seats(places: list[int]) -> None:
    scores = [seat_score(tuple(places), seat) for seat in range(len(places))]
    assert all(0 <= s <= 1 for s in scores)
    assert sum(scores) == pytest.approx(len(places) / 2)
    best, worst = min(places), max(places)
    for seat, place in enumerate(places):
        if place == best and places.count(best) == 1:
            assert scores[seat] == 1
        if place == worst and places.count(worst) == 1:
            assert scores[seat] == 0


def test_pair_points_fill_the_pentanomial_cells() -> None:
    tally = Tally()
    for diff in (-1.0, -0.5, 0.0, 0.0, 0.5, 1.0, 1.0):
        tally = tally.add(GroupResult(0, diff, 2))
    assert tally.pentanomial == (1, 1, 2, 1, 2)
    assert (tally.groups, tally.games, tally.summary.n) == (7, 14, 7)


# --- verdicts ------------------------------------------------------------------------------


def test_strong_bot_is_better_than_random_and_random_is_worse() -> None:
    better = run_compare(Setup(trusted(DOUBTER), Entrant("random")), WIDE, 400)
    worse = run_compare(Setup(Entrant("random"), trusted(DOUBTER)), WIDE, 400)
    assert better.verdict == "better" and worse.verdict == "worse"
    assert better.score.lower > 0.5 > worse.score.upper
    assert better.elo.value > 0 > worse.elo.value
    assert better.los > 0.95
    assert worse.los < 0.05


def test_faults_are_counted_and_lose() -> None:
    state = run_compare(Setup(trusted(CRASHER), Entrant("random")), WIDE, 400)
    assert state.verdict == "worse"
    assert state.tally.candidate_faults == state.tally.games  # it plays every game of a pair
    assert state.tally.baseline_faults == 0


def test_swapping_candidate_and_baseline_mirrors_the_two_tests() -> None:
    ab = run_compare(Setup(trusted(UNLUCKY), Entrant("random")), WIDE, 60)
    ba = run_compare(Setup(Entrant("random"), trusted(UNLUCKY)), WIDE, 60)
    assert ab.tally.pentanomial == ba.tally.pentanomial[::-1]
    assert ab.better.sprt.llr == pytest.approx(ba.worse.sprt.llr)
    assert ab.worse.sprt.llr == pytest.approx(ba.better.sprt.llr)


@pytest.mark.parametrize("seed", range(1, 6))
def test_same_strength_is_never_declared_worse(seed: int) -> None:
    setup = Setup(trusted(UNLUCKY), Entrant("random"), seed=seed)
    state = run_compare(setup, Bounds(0.0, 60.0, 0.01, 0.05), 1000)
    assert state.verdict != "worse"
    assert state.worse.sprt.verdict != "H1"


def test_a_bot_against_itself_is_the_same_at_any_table() -> None:
    field = (Entrant("random"),)
    state = run_compare(Setup(Entrant("random"), Entrant("random"), seats=3,
                              field=field * 2), Bounds(0.0, 120.0), 3000)
    assert state.verdict == "same"
    assert state.tally.summary.total == 0  # duplicate play: identical bots, identical games


def test_more_seats_use_the_paired_test() -> None:
    setup = Setup(trusted(UNLUCKY), trusted(DOUBTER), seats=3,
                  field=(Entrant("random"), trusted(UNLUCKY)))
    state = run_compare(setup, WIDE, 600)
    assert state.verdict == "worse"
    assert state.difference.upper < 0
    assert state.worse.sprt.llr == pytest.approx(
        sprt_paired(
            Summary(state.tally.summary.n, -state.tally.summary.total,
                    state.tally.summary.total_squares),
            *WIDE.group_t_values()).llr)


def test_the_verdict_does_not_depend_on_the_number_of_workers() -> None:
    setup = Setup(trusted(DOUBTER), Entrant.parse(f"{DOUBTER}?doubt=0.4").trusted(), seed=3)
    one = run_compare(setup, WIDE, 200, workers=1)
    two = run_compare(setup, WIDE, 200, workers=2)
    assert summary_dict(one) == summary_dict(two)
    assert one.tally.groups > 10


# --- the command ---------------------------------------------------------------------------


def test_command_exits_0_for_better_with_the_full_report() -> None:
    status, out = run(DOUBTER, "random", "--trust", "--elo1", "60", "--workers", "1")
    assert status == 0
    lines = dict(line.split(None, 1) for line in out.splitlines())
    games = lines["games"].split()[0]
    assert re.fullmatch(  # a measured estimate, or past the cap said to be beyond the scale
        rf"better: {re.escape(DOUBTER)} is better than random: 95% confident it is stronger "
        rf"\(estimate (\+[0-9.]+ normalized Elo|above \+1200 normalized Elo, beyond the scale)\);"
        rf" {games} games", lines["verdict"]), lines["verdict"]
    assert lines["better?"].endswith(": better")
    assert re.match(r"(\+|above \+1200 \(beyond the scale\))", lines["nElo"])
    assert re.search(r"normalized Elo, the tests' unit \(logistic Elo (\+|above \+)",
                     lines["nElo"])  # normalized Elo first, logistic after
    assert {"candidate", "baseline", "rules", "games", "pairs", "score", "nElo", "LOS",
            "tests", "worse?"} <= set(lines)


def test_command_exits_1_for_worse() -> None:
    status, out = run("random", DOUBTER, "--trust", "--elo1", "60", "--workers", "1", "--quiet")
    assert status == 1
    assert out.startswith(f"worse: random is worse than {DOUBTER}: 95% confident it is weaker ")


def test_require_better_fails_on_same() -> None:
    args = ("random", "random", "--elo1", "60", "--workers", "1", "-q")
    assert run(*args)[0] == 0
    status, out = run(*args, "--require-better")
    assert status == 1 and out.startswith(
        "same: no difference found between random and random: 95% confident they are less "
        "than 60 normalized Elo apart (estimate ")


def test_command_exits_3_when_the_game_limit_comes_first() -> None:
    status, out = run(UNLUCKY, "random", "--trust", "--games", "20", "--workers", "1", "-q")
    assert status == 3
    assert out.startswith("inconclusive: undecided at the game limit: after 20 games neither "
                          f"test could tell whether {UNLUCKY} is better or worse than random")


@pytest.mark.parametrize("args, message", [
    (("nosuchbot", "random"), "unknown bot 'nosuchbot'"),
    (("random", "random", "--option", "max_points=0"), "max_points"),
    (("random", "random", "--field", "random"), "--field is for 3 or more seats"),
    (("random", "random", "--seats", "3", "--field", "random,random,random"), "3 bots"),
    (("random", "random", "--rules", "cards", "--seats", "2"), "3-6 players"),
    (("random", "random", "--elo0", "5", "--elo1", "5"), "elo0 < elo1"),
    (("random", "random", "--elo1", "900"), "elo bounds too far"),
    (("random", "random", "--alpha", "0"), "alpha"),
    (("random", "random", "--games", "1"), "less than one group"),
    ((f"{DOUBTER}?nerve=1", "random"), "unknown option 'nerve'"),
    ((DOUBTER, "random", "--rules", "cards"), "does not play 'cards'"),
    (("random", "random", "--time-limit", "0"), "--time-limit"),
    (("random", "random", "--rules", "poker"), "unknown rule set 'poker'"),
])
def test_usage_errors_exit_2_with_one_line(args: tuple[str, ...], message: str) -> None:
    result = CliRunner().invoke(cli, ["compare", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_json_summary_keys() -> None:
    status, out = run(DOUBTER, "random", "--trust", "--elo1", "60", "--workers", "1", "--json")
    data = json.loads(out)
    assert status == data["exit_status"] == 0
    assert set(data) == {
        "candidate", "baseline", "rules", "options", "seats", "field", "seed", "games",
        "groups", "max_games", "score", "elo", "nelo", "los", "bounds", "better", "worse",
        "faults", "verdict", "exit_status", "pentanomial",
    }
    assert data["verdict"] == "better" and data["better"]["verdict"] == "H1"
    assert set(data["score"]) == {"value", "lower", "upper"}
    assert data["games"] == 2 * data["groups"] == 2 * sum(data["pentanomial"])


def test_json_for_more_seats_has_the_difference_and_the_default_field() -> None:
    status, out = run("random", "random", "--seats", "3", "--elo1", "60", "--workers", "1",
                      "--json", "--games", "24")
    data = json.loads(out)
    assert status == 3
    assert "difference" in data and "pentanomial" not in data
    assert len(data["field"]) == 2 and data["games"] == 24


def test_a_command_bot_can_be_compared_and_leaves_no_process() -> None:
    """`cmd:PROGRAM ARGS` compares a bot in any language; its process ends with the run."""
    import sys
    from pathlib import Path

    from arena.compare.groups import Entrant, Setup
    from arena.compare.run import run_compare
    from arena.compare.verdict import Bounds
    from arena.hosts.process_tree import leftovers

    example = Path(__file__).resolve().parents[2] / "bots" / "examples" / "example_bot.py"
    setup = Setup(Entrant(f"cmd:{sys.executable} {example}"), Entrant("random"), seed=2)
    result = run_compare(setup, Bounds(elo0=0, elo1=100), max_games=8, workers=1)
    assert result.tally.games == 8
    assert result.tally.candidate_faults == 0
    assert leftovers() == []
