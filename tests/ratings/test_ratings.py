"""Tests for arena.ratings (games, elo, summary, standings, render): hand-computed cases,
ties, faults, intervals and byte determinism."""

from __future__ import annotations

import csv
import io
import json
import math
import random
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce
from peak_memory import peak

from arena.ratings import render
from arena.ratings.render import crosstable_csv, ratings_json, standings_csv, standings_md
from arena.ratings.standings import FaultCounts, wilson_interval
from arena.ratings.summary import (
    Summary,
    crosstable,
    elo_ratings,
    openskill_ratings,
    standings,
    summarise,
)

Game = dict[str, Any]
ELO_SCALE = 400 / math.log(10)
Z95 = 1.959963984540054


def game(gid: str, entrants: list[str], placements: list[int], faults: Any = ()) -> Game:
    return {"id": gid, "entrants": entrants, "placements": placements, "faults": list(faults)}


def seven_three() -> list[Game]:
    """Ten heads-up games: a beats b seven times, b beats a three times."""
    return [game(f"rr-{i:06d}", ["a", "b"], [1, 2] if i < 7 else [2, 1]) for i in range(10)]


# --- Elo ---------------------------------------------------------------------------------


def test_elo_without_prior_matches_closed_form() -> None:
    a, b, idle = elo_ratings(seven_three(), ["a", "b", "idle"], prior_draws=0)
    assert a.rating is not None and b.rating is not None
    assert a.rating - b.rating == pytest.approx(400 * math.log10(7 / 3), abs=1e-6)
    assert a.rating + b.rating == pytest.approx(0, abs=1e-9)
    # Fisher information of the difference is n p (1 - p) = 2.1; each half carries a quarter.
    half_width = Z95 * math.sqrt(1 / (4 * 2.1)) * ELO_SCALE
    assert a.high - a.rating == pytest.approx(half_width, rel=1e-6)
    assert a.low < a.rating < a.high
    assert b.low < b.rating < b.high
    assert (idle.games, idle.rating, idle.low, idle.high) == (0, None, None, None)


def test_elo_prior_shrinks_toward_zero_but_keeps_sign() -> None:
    a, b = elo_ratings(seven_three(), ["a", "b"])
    assert a.rating is not None and b.rating is not None
    assert 0 < a.rating < 400 * math.log10(7 / 3) / 2
    assert b.rating == pytest.approx(-a.rating)


def test_elo_all_wins_is_finite_with_prior_and_refused_without() -> None:
    sweep = [game(f"g{i}", ["a", "b"], [1, 2]) for i in range(5)]
    a, b = elo_ratings(sweep, ["a", "b"])
    assert a.rating is not None and math.isfinite(a.rating) and a.rating > 100
    assert b.rating == pytest.approx(-a.rating)
    with pytest.raises(ValueError, match="prior"):
        elo_ratings(sweep, ["a", "b"], prior_draws=0)


def test_elo_draws_count_half_and_all_draws_rate_equal() -> None:
    draws = [game(f"g{i}", ["a", "b", "c"], [1, 1, 1]) for i in range(4)]
    ratings = elo_ratings(draws, ["a", "b", "c"], prior_draws=0)
    assert [r.rating for r in ratings] == pytest.approx([0, 0, 0], abs=1e-9)
    # One win and one draw for a: score 1.5 of 2, so a's odds are 3 to 1.
    mixed = [game("g1", ["a", "b"], [1, 2]), game("g2", ["a", "b"], [1, 1])]
    a, b = elo_ratings(mixed, ["a", "b"], prior_draws=0)
    assert a.rating - b.rating == pytest.approx(400 * math.log10(3), abs=1e-6)


def test_elo_fit_matches_scores_in_a_three_way_field() -> None:
    games = [
        game("g1", ["a", "b", "c"], [1, 2, 3]),
        game("g2", ["a", "b", "c"], [2, 1, 3]),
        game("g3", ["a", "b", "c"], [3, 2, 1]),
        game("g4", ["c", "a"], [2, 1]),
    ]
    ratings = {r.entrant: r.rating for r in elo_ratings(games, ["a", "b", "c"], prior_draws=0)}
    table = crosstable(games, ["a", "b", "c"])
    # At the maximum, each entrant's expected pairwise score equals its actual score.
    for name in "abc":
        actual = sum(r.above + r.ties / 2 for r in table if r.entrant == name)
        expected = sum(
            r.games / (1 + 10 ** ((ratings[r.opponent] - ratings[name]) / 400))
            for r in table
            if r.entrant == name
        )
        assert expected == pytest.approx(actual, abs=1e-8)
    assert sum(ratings.values()) == pytest.approx(0, abs=1e-9)


def _whole_rows(matrix: list[list[float]], right: list[list[float]]) -> list[list[float]]:
    """Gauss-Jordan with partial pivoting reworking whole rows: the textbook form."""
    size = len(matrix)
    rows = [matrix[i] + right[i] for i in range(size)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        rows[col] = [cell / rows[col][col] for cell in rows[col]]
        for r in range(size):
            if r != col and rows[r][col] != 0:
                factor = rows[r][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [row[size:] for row in rows]


@pytest.mark.parametrize("size", [1, 2, 5, 40])
def test_elo_solver_gives_the_bits_of_whole_row_elimination(size: int) -> None:
    """The fit's solver skips columns it never reads again: its ratings and covariance are
    the very floats whole-row elimination gives, signed zeros and all (same-bytes results)."""
    from arena.ratings.elo import _gauss_jordan

    rng = random.Random(size)
    for _ in range(5):
        matrix = [[rng.choice([0.0, -0.0, 1.0, rng.uniform(-3, 3)]) for _ in range(size)]
                  for _ in range(size)]
        for i in range(size):
            matrix[i][i] += rng.choice([-8.0, 8.0])
        width = rng.choice([1, size])
        right = [[rng.choice([0.0, -0.0, rng.uniform(-1, 1)]) for _ in range(width)]
                 for _ in range(size)]
        got, want = _gauss_jordan(matrix, right), _whole_rows(matrix, right)
        assert [[math.copysign(1, x) * abs(x) for x in row] for row in got] == want
        assert [[math.copysign(1, x) for x in row] for row in got] == \
            [[math.copysign(1, x) for x in row] for row in want]


# --- OpenSkill ---------------------------------------------------------------------------


def test_openskill_follows_id_order_whatever_the_input_order() -> None:
    games = [
        game("rr-000002", ["c", "a", "b"], [1, 2, 3]),
        game("rr-000001", ["a", "b", "c"], [1, 3, 2]),
        game("rr-000003", ["b", "c"], [1, 1]),
    ]
    model = PlackettLuce()
    current = {n: model.rating(name=n) for n in "abc"}
    for g in sorted(games, key=lambda g: g["id"]):
        rated = model.rate([[current[n]] for n in g["entrants"]], ranks=g["placements"])
        current.update({n: team[0] for n, team in zip(g["entrants"], rated, strict=True)})
    ours = {r.entrant: r for r in openskill_ratings(games, ["a", "b", "c", "d"])}
    for n in "abc":
        assert ours[n].mu == pytest.approx(current[n].mu, rel=1e-12)
        assert ours[n].sigma == pytest.approx(current[n].sigma, rel=1e-12)
        assert ours[n].ordinal == pytest.approx(current[n].mu - 3 * current[n].sigma)
        assert ours[n].low == pytest.approx(current[n].mu - Z95 * current[n].sigma)
    assert (ours["d"].games, ours["d"].mu, ours["d"].sigma) == (0, 25.0, 25 / 3)


def test_openskill_ties_rate_equal_and_winner_rises() -> None:
    a, b, c = openskill_ratings([game("g1", ["a", "b", "c"], [1, 2, 2])], ["a", "b", "c"])
    assert a.mu > 25 > b.mu
    assert (b.mu, b.sigma) == (c.mu, c.sigma)


@pytest.mark.parametrize(
    ("games", "entrants", "message"),
    [
        ([game("g1", ["a", "a"], [1, 2])], ["a"], "twice at one table"),
        ([game("g1", ["a", "x"], [1, 2])], ["a"], "unknown"),
        ([game("g1", ["a", "b"], [1])], ["a", "b"], "placement"),
        ([game("g1", ["a", "b"], [1, 2])] * 2, ["a", "b"], "appears twice"),
        ([game("g1", ["a", "b"], [1, 2], [{"seat": 0, "kind": "slow"}])], ["a", "b"], "fault"),
        ([game("g1", ["a", "b"], [1, 2], [{"seat": 2, "kind": "crash"}])], ["a", "b"], "fault"),
        ([], ["a", "a"], "unique"),
    ],
)
def test_bad_results_are_refused(games: list[Game], entrants: list[str], message: str) -> None:
    for compute in (openskill_ratings, elo_ratings, standings, crosstable):
        with pytest.raises(ValueError, match=message):
            compute(games, entrants)


# --- standings and crosstable --------------------------------------------------------------


def test_wilson_interval_known_values() -> None:
    assert wilson_interval(7, 10, z=1.96) == pytest.approx((0.3968, 0.8922), abs=1e-4)
    assert wilson_interval(5, 10, z=1.96) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(0, 10, z=1.96) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(10, 10, z=1.96) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson_interval(7, 10) == pytest.approx((0.3968, 0.8922), abs=2e-4)
    with pytest.raises(ValueError):
        wilson_interval(0, 0)


def test_standings_ranks_counts_wins_and_faults() -> None:
    faults = [
        {"seat": 1, "kind": "timeout", "message": "slow"},
        {"seat": 1, "kind": "timeout", "message": "slow again"},
        {"seat": 2, "kind": "illegal", "message": "low claim"},
    ]
    games = [
        *seven_three(),
        game("rr-000100", ["b", "a", "c"], [1, 1, 3], faults),  # shared first: both win
    ]
    rows = standings(games, ["c", "idle", "b", "a"])
    assert [r.entrant for r in rows] == ["a", "b", "c", "idle"]
    assert [r.rank for r in rows] == [1, 2, 3, None]
    a, b, c, idle = rows
    assert (a.games, a.wins, b.wins, c.wins) == (11, 8, 4, 0)
    assert a.win_rate == pytest.approx(8 / 11)
    assert (a.win_low, a.win_high) == pytest.approx(wilson_interval(8, 11))
    assert c.mean_placement == 3.0
    assert b.mean_placement == pytest.approx((7 * 2 + 3 + 1) / 11)
    assert a.faults == FaultCounts(timeout=2)
    assert c.faults == FaultCounts(illegal=1)
    assert b.faults.total == 0
    assert a.rating is not None and b.rating is not None and a.rating > b.rating
    assert a.elo is not None and a.elo_low is not None and a.elo_low < a.elo < a.elo_high
    assert (idle.games, idle.wins, idle.win_rate, idle.rating, idle.elo) == (0, 0, None, None, None)


def test_standings_equal_ratings_fall_back_to_name() -> None:
    tied = [game(f"g{i}", ["zed", "amy"], [1, 1]) for i in range(3)]
    assert [r.entrant for r in standings(tied, ["zed", "amy"])] == ["amy", "zed"]


def test_crosstable_counts_every_ordered_pair() -> None:
    games = [
        game("g1", ["a", "b", "c"], [1, 2, 2]),
        game("g2", ["a", "b", "c"], [3, 1, 2]),
        game("g3", ["a", "b"], [2, 1]),
    ]
    rows = {(r.entrant, r.opponent): r for r in crosstable(games, ["a", "b", "c", "d"])}
    assert len(rows) == 12
    ab, bc = rows[("a", "b")], rows[("b", "c")]
    assert (ab.games, ab.above, ab.below, ab.ties) == (3, 1, 2, 0)
    assert (bc.games, bc.above, bc.below, bc.ties) == (2, 1, 0, 1)
    assert (rows[("a", "d")].games, rows[("d", "c")].games) == (0, 0)
    for (x, y), row in rows.items():
        mirror = rows[(y, x)]
        assert (row.games, row.above, row.ties) == (mirror.games, mirror.below, mirror.ties)
        assert row.above + row.below + row.ties == row.games


# --- renderers ---------------------------------------------------------------------------


def test_ratings_json_is_sorted_rounded_and_ends_in_newline() -> None:
    entrants = ["b", "a", "idle"]
    text = ratings_json(
        openskill_ratings(seven_three(), entrants), elo_ratings(seven_three(), entrants)
    )
    assert text.endswith("}\n")
    document = json.loads(text)
    assert list(document["entrants"]) == ["a", "b", "idle"]
    assert document["entrants"]["idle"]["elo"] is None
    assert document["entrants"]["a"]["elo"]["rating"] == pytest.approx(69.54739, abs=1e-6)
    assert text == json.dumps(document, sort_keys=True, indent=2) + "\n"
    assert "-0.0," not in text


def test_standings_md_is_an_aligned_table() -> None:
    rows = standings(seven_three(), ["a", "b", "idle"])
    lines = standings_md(rows).splitlines()
    table = lines[:5]
    assert len({len(line) for line in table}) == 1
    assert all(line.startswith("| ") and line.endswith(" |") for line in table)
    assert set(table[1]) <= set("|-: ")
    assert "| 1   | a " not in table[2] and table[2].startswith("|   1 | a ")
    assert "70.0% (40-89)" in table[2] and "+70 ±113" in table[2]
    assert table[4].startswith("|   - | idle ")


def test_standings_csv_and_crosstable_csv_layout() -> None:
    rows = standings(seven_three(), ["a", "b", "idle"])
    lines = standings_csv(rows).split("\n")
    assert lines[0].startswith("rank,entrant,games,wins,win_rate,")
    assert lines[0].endswith(",timeout,crash,illegal,protocol,tied")
    assert lines[1].startswith("1,a,10,7,0.700000,") and lines[1].endswith(",0")
    assert lines[3] == ",idle,0,0,,,,,,,,,,,0,0,0,0,"
    assert lines[-1] == ""
    cross = crosstable_csv(crosstable(seven_three(), ["a", "b"]))
    assert cross == "entrant,opponent,games,above,below,ties\na,b,10,7,3,0\nb,a,10,3,7,0\n"


NAMES = ["honest", "random", "statistician", "bluffer"]


@st.composite
def results(draw: st.DrawFn) -> list[Game]:
    count = draw(st.integers(min_value=0, max_value=12))
    games = []
    for i in range(count):
        seats = draw(st.permutations(NAMES).map(lambda p: p[: draw(st.integers(2, 4))]))
        places = draw(st.lists(st.integers(1, 3), min_size=len(seats), max_size=len(seats)))
        faults = draw(
            st.lists(
                st.fixed_dictionaries(
                    {
                        "seat": st.integers(0, len(seats) - 1),
                        "kind": st.sampled_from(["timeout", "crash", "illegal", "protocol"]),
                    }
                ),
                max_size=2,
            )
        )
        games.append(game(f"rr-{i:06d}", list(seats), places, faults))
    return games


def render_all(games: list[Game]) -> str:
    rows = standings(games, NAMES)
    return "".join(
        (
            ratings_json(openskill_ratings(games, NAMES), elo_ratings(games, NAMES)),
            standings_csv(rows),
            standings_md(rows),
            crosstable_csv(crosstable(games, NAMES)),
        )
    )


@settings(max_examples=25, deadline=None)
@given(data=st.data(), games=results())
def test_output_bytes_do_not_depend_on_finishing_order(
    data: st.DataObject, games: list[Game]
) -> None:
    shuffled = data.draw(st.permutations(games))
    assert render_all(list(shuffled)) == render_all(games)


@settings(max_examples=25, deadline=None)
@given(games=results())
def test_elo_is_centred_and_inside_its_interval(games: list[Game]) -> None:
    fitted = [r for r in elo_ratings(games, NAMES) if r.rating is not None]
    assert sum(r.rating for r in fitted if r.rating is not None) == pytest.approx(0, abs=1e-6)
    for r in fitted:
        assert r.low is not None and r.high is not None
        assert r.low < r.rating < r.high


# --- one pass in id order, whatever order the games come in ---------------------------------

FIELD = ["honest", "random", "statistician", "bluffer", "idle"]
KINDS = ["timeout", "crash", "illegal", "protocol"]
# `render_field` over field_games(400). Made by the implementation before the one-pass
# Summary (it parsed and sorted every game in memory), and remade when the standings came to
# rank by Elo with tie marks (issue 11; ratings.json and crosstable.csv kept their bytes,
# checked then against the old code): the bytes must not change. Kept as text (it was a
# sha256, b071acb0...), so a failure shows which number moved.
FIELD_TABLES = Path(__file__).parents[1] / "fixtures" / "field-400-tables.txt"


def field_games(count: int, seed: int = 7) -> list[Game]:
    """Games of 2 to 4 seats among four of FIELD (idle never plays): ties, faults, ids in order."""
    rng = random.Random(seed)
    games = []
    for i in range(1, count + 1):
        seats = rng.sample(FIELD[:4], rng.randint(2, 4))
        places = [rng.randint(1, len(seats)) for _ in seats]
        faults = [
            {"seat": rng.randrange(len(seats)), "kind": rng.choice(KINDS), "message": "m"}
            for _ in range(rng.choice([0, 0, 0, 1, 2]))
        ]
        games.append(game(f"rr-{i:06d}", seats, places, faults))
    return games


class Reread:
    """Games that can be read again, as results.GameFile can; counts the passes made."""

    def __init__(self, make: Callable[[], Iterator[Game]]) -> None:
        self.make = make
        self.passes = 0

    def __iter__(self) -> Iterator[Game]:
        self.passes += 1
        return self.make()


def render_field(source: Callable[[], Iterable[Game]]) -> str:
    """Every derived table, each function given its own `source()`."""
    rows = standings(source(), FIELD)
    return "".join(
        (
            ratings_json(openskill_ratings(source(), FIELD), elo_ratings(source(), FIELD)),
            standings_csv(rows),
            standings_md(rows),
            crosstable_csv(crosstable(source(), FIELD)),
        )
    )


def two_runs(games: list[Game]) -> list[Game]:
    """The shape of an elimination's log: the later ids (its seeding, rr-...) come first."""
    return games[len(games) // 2 :] + games[: len(games) // 2]


def shuffled(games: list[Game], seed: int = 1) -> list[Game]:
    out = list(games)
    random.Random(seed).shuffle(out)
    return out


@pytest.mark.parametrize(
    "shape",
    ["generator in id order", "list in id order", "two runs, read again", "shuffled list"],
)
def test_every_order_gives_the_bytes_of_sorting_every_game(shape: str) -> None:
    games = field_games(400)
    sources: dict[str, Callable[[], Iterable[Game]]] = {
        "generator in id order": lambda: iter(games),
        "list in id order": lambda: games,
        "two runs, read again": lambda: Reread(lambda: iter(two_runs(games))),
        "shuffled list": lambda: shuffled(games),
    }
    text = render_field(sources[shape])
    assert text == FIELD_TABLES.read_text(encoding="utf-8")


@settings(max_examples=25, deadline=None)
@given(data=st.data(), games=results())
def test_streaming_merging_and_sorting_agree(data: st.DataObject, games: list[Game]) -> None:
    mixed = list(data.draw(st.permutations(games)))
    streamed = render_all_from(lambda: iter(games))
    assert render_all_from(lambda: mixed) == streamed
    assert render_all_from(lambda: Reread(lambda: iter(two_runs(games)))) == streamed


def render_all_from(source: Callable[[], Iterable[Game]]) -> str:
    rows = standings(source(), NAMES)
    return "".join(
        (
            ratings_json(openskill_ratings(source(), NAMES), elo_ratings(source(), NAMES)),
            standings_csv(rows),
            standings_md(rows),
            crosstable_csv(crosstable(source(), NAMES)),
        )
    )


def test_games_in_id_order_are_read_once_and_others_again() -> None:
    games = field_games(60)
    in_order = Reread(lambda: iter(games))
    summarise(in_order, FIELD)
    assert in_order.passes == 1
    for out_of_order in (two_runs(games), shuffled(games)):
        again = Reread(out_of_order.__iter__)
        assert summarise(again, FIELD).standings() == standings(games, FIELD)
        assert again.passes > 1


def test_one_summary_gives_what_each_function_gives() -> None:
    games = field_games(120)
    summary = summarise(iter(games), FIELD)
    assert summary.standings() == standings(games, FIELD)
    assert summary.openskill() == openskill_ratings(games, FIELD)
    assert summary.elo() == elo_ratings(games, FIELD)
    assert summary.elo(prior_draws=0.5) == elo_ratings(games, FIELD, prior_draws=0.5)
    assert summary.crosstable() == crosstable(games, FIELD)
    unrated = summarise(iter(games), FIELD, rate=False)
    assert unrated.crosstable() == summary.crosstable()
    with pytest.raises(ValueError, match="without OpenSkill"):
        unrated.openskill()


def test_a_generator_out_of_id_order_is_refused_not_misrated() -> None:
    games = field_games(5)
    for compute in (openskill_ratings, elo_ratings, standings, crosstable):
        with pytest.raises(ValueError, match=r"rr-000001 comes after game rr-000005.*id order"):
            compute(iter([games[4], *games[:4]]), FIELD)
    summary = Summary(FIELD)
    summary.add(games[1])
    with pytest.raises(ValueError, match="out of id order"):
        summary.add(games[0])


def test_an_elo_fit_is_kept_until_the_next_game() -> None:
    games = field_games(5)
    summary = summarise(games[:4], FIELD)
    first, flat = summary.elo(), summary.elo(0.0)
    assert summary.standings() == standings(games[:4], FIELD)
    assert summary.elo() is first and summary.elo(0.0) is flat  # the same fit, not a new one
    assert first == elo_ratings(games[:4], FIELD) and flat != first
    summary.add(games[4])
    again = summary.elo()
    assert again is not first and again == elo_ratings(games, FIELD) != first
    assert summary.elo() is again


@pytest.mark.parametrize(
    "order",
    [
        ["rr-1", "rr-2", "rr-2", "rr-3"],  # in order: the copy comes right after
        ["rr-3", "rr-2", "rr-1", "rr-2"],  # out of order, many runs: sorted in memory
        ["rr-2", "rr-3", "rr-1", "rr-2"],  # two runs: merged
    ],
)
def test_a_game_twice_is_refused_in_any_order(order: list[str]) -> None:
    games = [game(gid, ["a", "b"], [1, 2]) for gid in order]
    for source in (games, Reread(lambda: iter(games))):
        with pytest.raises(ValueError, match="rr-2 appears twice"):
            standings(source, ["a", "b"])


def _many(count: int, prefix: str = "rr") -> Iterator[Game]:
    """`count` games made on the fly, ids in order, with faults: nothing holds them."""
    names = ["a", "b", "c", "d"]
    for i in range(count):
        seats = [names[(i + k) % 4] for k in range(3)]
        faults = [{"seat": i % 3, "kind": "timeout", "message": "slow"}] if i % 7 == 0 else []
        yield game(f"{prefix}-{i:06d}", seats, [1 + (i + k) % 3 for k in range(3)], faults)



def test_a_generator_in_id_order_is_rated_without_holding_its_games() -> None:
    count, names = 4000, ["a", "b", "c", "d"]
    standings(_many(20), names)  # first use: the rating library sets itself up
    streamed = peak(lambda: standings(_many(count), names))
    held = peak(lambda: list(_many(count)))  # what holding the raw games alone costs
    assert held > 1_500_000
    assert streamed < held / 4


def test_an_elimination_log_is_merged_without_holding_its_games() -> None:
    count, names = 4000, ["a", "b", "c", "d"]

    def log() -> Iterator[Game]:  # seeding rr-... first, then the knockout el-...
        yield from _many(count // 2, "rr")
        yield from _many(count // 2, "el")

    crosstable(Reread(log), names)
    merged = peak(lambda: crosstable(Reread(log), names))
    held = peak(lambda: list(log()))
    assert held > 1_500_000
    assert merged < held / 4  # sorting the two runs in memory would hold every game


# --- the order of the standings -----------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(games=results())
def test_the_standings_never_rank_a_lower_elo_above_a_higher_one(games: list[Game]) -> None:
    ranked = [row for row in standings(games, NAMES) if row.rank is not None]
    elos = [round(row.elo or 0.0, 6) for row in ranked]
    assert elos == sorted(elos, reverse=True)


def test_the_order_does_not_depend_on_when_games_were_played() -> None:
    """OpenSkill, game by game, favours the recent winner; the batch Elo fit does not."""
    early = [game(f"g{i:03d}", ["a", "b"], [1, 2]) for i in range(12)]
    late = [game(f"g{i:03d}", ["a", "b"], [2, 1]) for i in range(12, 22)]
    rows = standings(early + late, ["a", "b"])
    assert [r.entrant for r in rows] == ["a", "b"]
    assert rows[0].wins == 12 and rows[0].elo is not None and rows[1].elo is not None
    assert rows[0].elo > rows[1].elo


def tied_tables() -> list[Game]:
    """Four seats, shared places: x and y always share first, z is third, w fourth."""
    seatings = (["x", "y", "z", "w"], ["w", "z", "y", "x"], ["y", "w", "x", "z"])
    places = {"x": 1, "y": 1, "z": 3, "w": 4}
    return [
        game(f"g{i:03d}", list(seats), [places[name] for name in seats])
        for i, seats in enumerate(seatings * 20)
    ]


def test_shared_places_at_big_tables_rate_equal_and_are_marked_tied() -> None:
    rows = standings(tied_tables(), ["w", "z", "y", "x"])
    assert [(r.rank, r.entrant, r.tied) for r in rows] == [
        (1, "x", False), (2, "y", True), (3, "z", False), (4, "w", False),
    ]  # fmt: skip
    x, y, z, w = rows
    assert x.elo == pytest.approx(y.elo) and (x.wins, y.wins, z.wins) == (60, 60, 0)
    assert z.elo is not None and w.elo is not None and y.elo is not None
    assert y.elo > z.elo > w.elo
    table = standings_md(rows).splitlines()
    assert table[2].startswith("|   1 | x ") and table[3].startswith("|  ~2 | y ")
    assert table[-1] == render.MD_NOTE
    assert [line.rsplit(",", 1)[1] for line in standings_csv(rows).splitlines()] == [
        "tied", "0", "1", "0", "0",
    ]  # fmt: skip


def test_a_table_where_everyone_ties_ranks_by_name_all_tied_below_the_first() -> None:
    games = [game(f"g{i}", ["c", "a", "b"], [1, 1, 1]) for i in range(5)]
    rows = standings(games, ["c", "a", "b"])
    assert [(r.rank, r.entrant, r.tied, r.wins) for r in rows] == [
        (1, "a", False, 5), (2, "b", True, 5), (3, "c", True, 5),
    ]  # fmt: skip


def test_clearly_separated_entrants_are_not_marked_tied() -> None:
    games = [game(f"g{i:03d}", ["a", "b"], [1, 2] if i % 10 else [2, 1]) for i in range(200)]
    assert [r.tied for r in standings(games, ["a", "b"])] == [False, False]


def test_a_given_ranking_orders_the_standings_and_keeps_the_ratings_as_columns() -> None:
    rows = standings(seven_three(), ["a", "b", "idle"], ranking=["b", "a"])
    assert [(r.rank, r.entrant) for r in rows] == [(1, "b"), (2, "a"), (None, "idle")]
    assert rows[1].elo is not None and rows[0].elo is not None and rows[1].elo > rows[0].elo
    text = standings_md(rows, bracket=True)
    assert text.splitlines()[-1] == render.MD_BRACKET_NOTE
    with pytest.raises(ValueError, match="unknown entrants"):
        standings(seven_three(), ["a", "b"], ranking=["a", "zed"])


def test_a_gauntlet_ranks_its_challengers_and_lists_its_champions_apart() -> None:
    """Champions never play each other: they are not ranked among themselves nor above the
    challengers their games rated lower, but listed after them, as the config names them."""
    games = []
    for i, (champion, challenger) in enumerate(
        [(c, x) for c in ("boss", "honest") for x in ("ana", "bo")] * 5
    ):
        won = challenger == "ana" and champion == "honest" and i % 2 == 0
        games.append(game(f"gt-{i:06d}", [champion, challenger], [2, 1] if won else [1, 2]))
    rows = standings(games, ["honest", "boss", "ana", "bo"], champions=["honest", "boss"])
    assert [(r.rank, r.entrant, r.tied) for r in rows] == [
        (1, "ana", False), (2, "bo", False), (None, "honest", False), (None, "boss", False)]
    assert all(r.elo is not None for r in rows)
    lines = standings_md(rows, champions=["honest", "boss"]).splitlines()
    assert lines[2].startswith("|   1 | ana ") and lines[3].startswith("|   2 | bo ")
    assert lines[4:7] == ["", render.MD_NOTE, ""]
    assert lines[7] == render.MD_CHAMPIONS_NOTE
    assert lines[8] == ""
    assert lines[9].startswith("|   # | entrant ") and lines[10].startswith("| --: | ---")
    assert lines[11].startswith("|   - | honest ") and lines[12].startswith("|   - | boss ")
    assert len(lines) == 13
    assert [line.split(",")[:2] for line in standings_csv(rows).splitlines()[1:]] == [
        ["1", "ana"], ["2", "bo"], ["", "honest"], ["", "boss"]]


def test_the_terminal_table_stays_within_120_columns_with_faults() -> None:
    names = ["statistician-bold", "bluffer-doubtful", "honest", "random"]
    rng = random.Random(3)
    games = []
    for i in range(3000):
        seats = rng.sample(names, 4)
        kinds = rng.sample(KINDS, 2)
        faults = [{"seat": s, "kind": k, "message": "m"} for s, k in enumerate(kinds)]
        games.append(game(f"rr-{i:06d}", seats, rng.sample([1, 2, 3, 4], 4), faults))
    text = standings_md(standings(games, names))
    assert max(len(line) for line in text.splitlines()) <= 120
    assert "mixed" in text


def test_entrants_that_faulted_in_every_game_are_named_with_their_commonest_fault() -> None:
    def crash(seat: int, message: str) -> dict[str, Any]:
        return {"seat": seat, "kind": "crash", "message": message}

    games = [
        game("g1", ["a", "b", "c"], [1, 2, 3], [crash(1, "boom\n  at line 3"), crash(2, "x")]),
        game("g2", ["b", "c"], [2, 1], [crash(0, "boom at line 3"), crash(0, "late")]),
        game("g3", ["b", "a", "c"], [3, 1, 2], [crash(0, "late")]),
        game("g4", ["b", "a"], [2, 1], [crash(0, "late")]),
    ]
    summary = summarise(games, ["a", "b", "c"])
    assert summary.always_faulted() == (("b", 4, "crash: late"),)
    assert summarise(games[:1], ["a", "b", "c"]).always_faulted() == (
        ("b", 1, "crash: boom at line 3"), ("c", 1, "crash: x"),
    )  # fmt: skip


def test_a_long_commonest_fault_is_cut_at_a_word_with_an_ellipsis() -> None:
    message = " ".join(f"word{i:03d}" for i in range(60))  # 479 characters
    games = [game("g1", ["a", "b"], [1, 2], [{"seat": 1, "kind": "crash", "message": message}])]
    ((_, _, fault),) = summarise(games, ["a", "b"]).always_faulted()
    assert fault.endswith("…") and len(fault) <= 200
    assert f"crash: {message}".startswith(fault[:-1])
    assert fault[:-1].split()[-1] in message.split()


def test_names_a_spreadsheet_would_run_are_quoted_in_every_csv_and_numbers_are_not() -> None:
    """An attack: an entrant named `=1+2+cmd|x!A1` or `@evil` made a formula cell of
    standings.csv and crosstable.csv (OWASP, "CSV injection")."""
    names = ["=1+2+cmd|x!A1", "@evil", "+x", "-x", "\tx", "\rx", "'x", "plain"]
    games = [game(f"g{i}", [names[i], names[i + 1]], [1, 2]) for i in range(len(names) - 1)]
    standings_text = standings_csv(standings(games, names))
    cross_text = crosstable_csv(crosstable(games, names))
    quoted = {"'" + name for name in names if name != "plain"} | {"plain"}
    for text, columns in ((standings_text, ("entrant",)), (cross_text, ("entrant", "opponent"))):
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
        for column in columns:
            assert {row[column] for row in rows} == quoted
            assert [render.sheet_text(row[column]) for row in rows] == [
                row[column][1:] if row[column] != "plain" else "plain" for row in rows]
        cells = [cell for row in rows for key, cell in row.items() if key not in columns]
        assert not [cell for cell in cells if cell.startswith(("'", "=", "@", "+", "\t", "\r"))]
    elo = [row["elo"] for row in csv.DictReader(io.StringIO(standings_text, newline=""))]
    assert any(cell.startswith("-") and float(cell) < 0 for cell in elo), "a number stays"


def test_every_name_comes_back_from_its_sheet_cell() -> None:
    for name in ["=a", "@a", "+a", "-a", "\ta", "\ra", "'a", "''=a", "a", "", "a=b"]:
        assert render.sheet_text(render.sheet_cell(name)) == name
