"""Tests for the schedules (arena.tournament.formats.schedule, gauntlet, elimination): counts,
balance guarantees, brackets, stages, ids and seeds."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.seeds import derive_seed
from arena.tournament.formats import schedule
from arena.tournament.formats.elimination import Elimination, elimination_2, elimination_k
from arena.tournament.formats.gauntlet import gauntlet
from arena.tournament.formats.schedule import (
    GameSpec,
    balanced_tables,
    round_robin,
    round_robin_count,
)

ROOT = 20240601


# ---------------------------------------------------------------------------- helpers


def assert_ids_and_seeds(specs: Sequence[GameSpec], root: int = ROOT) -> None:
    """Ids unique and sorted in schedule order; seeds derived from id (or group) alone."""
    ids = [g.id for g in specs]
    assert len(set(ids)) == len(ids)
    assert ids == sorted(ids)
    for g in specs:
        assert g.seed == derive_seed(root, g.group if g.group is not None else g.id)
        assert len(set(g.seats)) == len(g.seats)


def pair_meetings(specs: Sequence[GameSpec], n: int) -> list[int]:
    meetings = Counter(p for g in specs for p in itertools.combinations(sorted(g.seats), 2))
    return [meetings[p] for p in itertools.combinations(range(n), 2)]


def placements_by_score(seats: tuple[int, ...], score: dict[int, int]) -> tuple[int, ...]:
    """Competition placements (ties share) from a score per entrant, higher is better."""
    return tuple(1 + sum(score[o] > score[e] for o in seats) for e in seats)


def seed_favourite(seats: tuple[int, ...]) -> tuple[int, ...]:
    """The lower entrant index always places better (index = seed in these tests)."""
    return placements_by_score(seats, {e: -e for e in seats})


def play_out(e: Elimination, decide=seed_favourite) -> Elimination:
    while e.pending():
        e = e.record({g.id: decide(g.seats) for g in e.pending()})
    return e


# ---------------------------------------------------------------------------- round robin


@pytest.mark.parametrize(("n", "k", "games"), [(2, 2, 1), (4, 2, 3), (5, 3, 2), (6, 4, 1)])
def test_round_robin_plays_every_subset_at_every_cyclic_rotation_games_times(n, k, games):
    specs = round_robin(n, k, games, ROOT)
    assert len(specs) == math.comb(n, k) * k * games == round_robin_count(n, k, games)
    expected = {
        subset[r:] + subset[:r] for subset in itertools.combinations(range(n), k) for r in range(k)
    }
    assert Counter(g.seats for g in specs) == dict.fromkeys(expected, games)
    assert {g.stage for g in specs} == {"main"}
    assert_ids_and_seeds(specs)


def test_round_robin_all_rotations_is_every_permutation():
    specs = round_robin(4, 3, 2, ROOT, rotations="all")
    assert len(specs) == math.comb(4, 3) * 6 * 2 == round_robin_count(4, 3, 2, "all")
    expected = {p for s in itertools.combinations(range(4), 3) for p in itertools.permutations(s)}
    assert Counter(g.seats for g in specs) == dict.fromkeys(expected, 2)


def test_round_robin_repetition_is_the_outer_loop_and_a_rotation_set_shares_a_table():
    specs = round_robin(4, 2, 2, ROOT)
    half = len(specs) // 2
    assert [g.seats for g in specs[:half]] == [g.seats for g in specs[half:]]
    by_table = {}
    for g in specs:
        by_table.setdefault(g.table, set()).add(frozenset(g.seats))
    assert len(by_table) == math.comb(4, 2) * 2
    assert all(len(sets) == 1 for sets in by_table.values())


def test_round_robin_under_the_cap_is_the_full_round_robin():
    full = round_robin(5, 3, 1, ROOT)
    assert round_robin(5, 3, 1, ROOT, cap=len(full)) == full


def test_round_robin_over_the_cap_gives_exactly_cap_balanced_tables():
    capped = round_robin(10, 4, 1, ROOT, cap=50)
    assert capped == balanced_tables(10, 4, 50, ROOT)
    assert len(capped) == 50


def test_round_robin_count_does_not_build_a_huge_schedule():
    assert round_robin_count(100, 6, 1) == math.comb(100, 6) * 6
    assert len(round_robin(100, 6, 1, ROOT, cap=200)) == 200


# ---------------------------------------------------------------------------- balanced tables


def assert_balanced(specs: Sequence[GameSpec], n: int, k: int, total: int) -> None:
    assert len(specs) == total
    assert all(len(g.seats) == k and len(set(g.seats)) == k for g in specs)
    played = Counter(e for g in specs for e in g.seats)
    counts = [played[e] for e in range(n)]
    assert min(counts) == total * k // n
    assert max(counts) == -(-total * k // n)  # equal exactly when n divides total * k
    seated = Counter((e, s) for g in specs for s, e in enumerate(g.seats))
    for e in range(n):
        for s in range(k):
            assert total // n <= seated[e, s] <= -(-total // n)


# (n, k, total, the most max - min pair meetings may differ): measured, with a little room.
BALANCED_CASES = [
    (6, 2, 20, 1),
    (10, 2, 30, 1),
    (10, 2, 77, 2),
    (7, 3, 50, 1),
    (10, 4, 50, 2),
    (10, 4, 333, 3),
    (9, 5, 101, 3),
    (20, 4, 300, 3),
    (30, 6, 500, 7),
    (12, 6, 200, 5),  # the last 8 games (offsets 0, 2, .., 10) seat each parity together
]


@pytest.mark.parametrize(("n", "k", "total", "spread"), BALANCED_CASES)
def test_balanced_tables_guarantees(n, k, total, spread):
    specs = balanced_tables(n, k, total, ROOT)
    assert_balanced(specs, n, k, total)
    meetings = pair_meetings(specs, n)
    assert max(meetings) - min(meetings) <= spread
    assert_ids_and_seeds(specs)


def test_balanced_tables_beat_a_random_seating_on_pair_balance():
    n, k, total = 10, 4, 333
    rng = random.Random(1)
    shuffled = [
        GameSpec(g.id, g.stage, g.table, tuple(rng.sample(range(n), k)), g.seed)
        for g in balanced_tables(n, k, total, ROOT)
    ]
    ours, theirs = pair_meetings(balanced_tables(n, k, total, ROOT), n), pair_meetings(shuffled, n)
    assert max(ours) - min(ours) < max(theirs) - min(theirs)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 14), st.integers(2, 6), st.integers(1, 90), st.integers(0, 2**32))
def test_balanced_tables_guarantees_hold_for_any_size(n, k, total, seed):
    k = min(k, n)
    assert_balanced(balanced_tables(n, k, total, seed), n, k, total)


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 40), st.integers(2, 5), st.integers(1, 40), st.integers(0, 2**32),
       st.integers(0, 3))
def test_a_sparse_block_is_dealt_as_the_plain_loops_deal_it(n, k, count, seed, spread):
    """The block dealer's two ways (plain loops for dense blocks, C-level maps for sparse
    ones) place every entrant alike, whatever meetings came before: a schedule never
    depends on which way its size picked."""
    k = min(k, n)
    rng = random.Random(seed)
    meetings = [[0] * n for _ in range(n)]
    for a, b in itertools.combinations(range(n), 2):
        meetings[a][b] = meetings[b][a] = rng.randint(0, spread)
    rows = schedule._block_rows(n, schedule._spread_offsets(n, k), min(count, n))
    partners = schedule._position_partners(rows, n)
    plain = schedule._greedy_sigma(partners, meetings, random.Random(seed))
    sparse = schedule._greedy_sigma(partners, meetings, random.Random(seed), sparse=True)
    assert sparse == plain
    schedule._improve_by_swaps(plain, partners, meetings)
    schedule._improve_sparse(sparse, partners, meetings)
    assert sparse == plain


def test_balanced_tables_are_deterministic_and_depend_on_the_seed():
    assert balanced_tables(9, 3, 40, ROOT) == balanced_tables(9, 3, 40, ROOT)
    a = [g.seats for g in balanced_tables(9, 3, 40, ROOT)]
    b = [g.seats for g in balanced_tables(9, 3, 40, ROOT + 1)]
    assert a != b


def test_balanced_table_seeds_come_from_the_id_alone():
    short, long = balanced_tables(8, 3, 20, ROOT), balanced_tables(8, 3, 30, ROOT)
    assert [g.seed for g in short] == [g.seed for g in long[:20]]


# ---------------------------------------------------------------------------- gauntlet


def test_gauntlet_two_seats_is_each_champion_against_each_challenger_both_ways():
    specs = gauntlet([0, 3], 5, 2, 2, ROOT)
    expected = {(c, x) for c in (0, 3) for x in (1, 2, 4)}
    expected |= {(x, c) for c, x in expected}
    assert Counter(g.seats for g in specs) == dict.fromkeys(expected, 2)
    assert_ids_and_seeds(specs)


@pytest.mark.parametrize(
    ("champions", "n", "k", "games"), [([0], 8, 3, 2), ([1, 5], 9, 4, 1), ([2], 7, 6, 1)]
)
def test_gauntlet_every_challenger_faces_every_champion_equally(champions, n, k, games):
    specs = gauntlet(champions, n, k, games, ROOT)
    challengers = [e for e in range(n) if e not in champions]
    groups: dict[str, list[GameSpec]] = {}
    for g in specs:
        groups.setdefault(g.group, []).append(g)
    faced = Counter()
    for games_of_set in groups.values():
        first = games_of_set[0].seats
        assert [g.seats for g in games_of_set] == [first[r:] + first[:r] for r in range(k)]
        assert len({g.seed for g in games_of_set}) == 1
        assert first[0] in champions and not set(first[1:]) & set(champions)
        faced.update((first[0], x) for x in first[1:])
    m = len(challengers)
    assert faced == dict.fromkeys(
        itertools.product(champions, challengers), games * (k - 1) // math.gcd(m, k - 1)
    )
    assert_ids_and_seeds(specs)


def test_gauntlet_champion_sits_in_every_seat_equally():
    specs = gauntlet([2], 7, 3, 2, ROOT)
    seats = Counter(g.seats.index(2) for g in specs)
    assert len(set(seats.values())) == 1 and len(seats) == 3


# ---------------------------------------------------------------------------- elimination_2


def first_round(n: int) -> tuple[list[tuple[int, tuple[int, ...]]], tuple[int, ...]]:
    stage = elimination_2(list(range(n)), 1, ROOT).stages()[0]
    return [(t.number, t.entrants) for t in stage.tables], stage.byes


def test_bracket_of_eight_is_standard_seeding():
    assert first_round(8) == ([(1, (0, 7)), (2, (3, 4)), (3, (1, 6)), (4, (2, 5))], ())
    done = play_out(elimination_2(list(range(8)), 1, ROOT))
    names = [s.name for s in done.stages()]
    assert names == ["round-1", "round-2", "final"]
    semis = done.stages()[1]
    assert [t.entrants for t in semis.tables] == [(0, 3), (1, 2)]
    assert done.stages()[2].tables[0].entrants == (0, 1)


def test_bracket_of_five_gives_byes_to_the_top_three():
    assert first_round(5) == ([(2, (3, 4))], (0, 1, 2))
    done = play_out(elimination_2(list(range(5)), 1, ROOT))
    assert [t.entrants for t in done.stages()[1].tables] == [(0, 3), (1, 2)]
    assert done.stages()[0].advanced == (0, 1, 2, 3) and done.stages()[0].eliminated == (4,)


def test_bracket_of_six_gives_byes_to_the_top_two():
    assert first_round(6) == ([(2, (3, 4)), (4, (2, 5))], (0, 1))
    upset = play_out(elimination_2(list(range(6)), 1, ROOT), lambda s: seed_favourite(s)[::-1])
    # The lower seed wins every match: 4 beats 3 and 5 beats 2, then they beat the byes.
    assert [t.entrants for t in upset.stages()[1].tables] == [(0, 4), (1, 5)]
    assert upset.stages()[-1].tables[0].entrants == (4, 5)
    assert upset.ranking() == (5, 4, 0, 1, 2, 3)


def test_bracket_uses_entrant_order_as_seeds():
    order = [7, 2, 9, 4, 0]
    stage = elimination_2(order, 1, ROOT).stages()[0]
    assert [t.entrants for t in stage.tables] == [(4, 0)] and stage.byes == (7, 2, 9)


def test_two_entrants_play_only_a_final():
    done = play_out(elimination_2([3, 1], 3, ROOT))  # entrant 1 wins every game
    assert [s.name for s in done.stages()] == ["final"]
    assert done.ranking() == (1, 3)


def test_match_seats_alternate_starting_with_the_higher_seed():
    match = elimination_2(list(range(2)), 4, ROOT).pending()
    assert [g.seats for g in match] == [(0, 1), (1, 0), (0, 1), (1, 0)]


def test_match_goes_to_more_game_wins():
    e = elimination_2([0, 1], 3, ROOT)
    games = e.pending()
    # Seat order alternates, so placements are by seat: entrant 1 wins games 1 and 2.
    done = e.record({games[0].id: (2, 1), games[1].id: (1, 2), games[2].id: (1, 2)})
    assert done.finished and done.ranking() == (1, 0)


def test_even_match_goes_to_the_higher_seed():
    e = elimination_2([5, 2], 4, ROOT)
    results = {g.id: (1, 2) for g in e.pending()}  # seat 0 wins; seats alternate: 2-2
    assert e.record(results).ranking() == (5, 2)
    drawn = {g.id: (1, 1) for g in e.pending()}  # every game shared first place
    assert e.record(drawn).ranking() == (5, 2)


def play_matches(e: Elimination, upper_wins: dict[int, int]) -> Elimination:
    """Play each match with the higher seed winning upper_wins[it] games (default: all)."""
    while e.pending():
        results = {}
        for table in e.stages()[-1].tables:
            upper = table.entrants[0]
            for i, game in enumerate(table.games):
                won = i < upper_wins.get(upper, e.games)
                results[game.id] = (1, 2) if (game.seats[0] == upper) == won else (2, 1)
        e = e.record(results)
    return e


def test_twelve_entrants_losers_of_a_round_are_ordered_by_the_match_they_lost():
    e = elimination_2(list(range(12)), 3, ROOT)
    assert first_round(12) == ([(2, (7, 8)), (4, (4, 11)), (6, (6, 9)), (8, (5, 10))], (0, 3, 1, 2))
    # Round 1: seeds 5 and 7 (entrants 4 and 6) lose 0-3, seeds 6 and 8 lose 1-2.
    done = play_matches(e, {4: 0, 5: 1, 6: 0, 7: 1})
    ranking = done.ranking()
    assert ranking[:4] == (0, 1, 2, 3)  # the byes' favourites win every later match
    # Round 2's losers won no game of it: those who won more games before go first.
    assert ranking[4:8] == (9, 11, 8, 10)
    # Round 1's losers: one game won beats none, whatever the seed.
    assert ranking[8:] == (5, 7, 4, 6)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 24), st.integers(2, 5), st.integers(1, 3), st.integers(0, 2**32))
def test_no_scoreless_entrant_places_above_one_who_scored_in_the_same_or_a_later_round(
    n, k, games, luck
):
    rng = random.Random(luck)
    order = rng.sample(range(n), n)
    bracket = k == 2 or n <= k
    e = elimination_2(order, games, ROOT) if bracket else elimination_k(order, k, 1, games, ROOT)
    done = play_out(
        e, lambda seats: placements_by_score(seats, {s: rng.randrange(3) for s in seats})
    )
    out_at = {x: s.number for s in done.stages() for x in s.eliminated}
    out_at.update(dict.fromkeys(done.stages()[-1].advanced, len(done.stages()) + 1))
    # A game gives each seat (seats - place) points: a win, at a match of two.
    scored = Counter()
    for stage in done.stages():
        for table in stage.tables:
            scored.update(dict(zip(table.ranking, table.points, strict=True)))
    ranking = done.ranking()
    for i, x in enumerate(ranking):
        for y in ranking[i + 1 :]:
            assert out_at[x] >= out_at[y]  # a later round ranks higher
            assert scored[x] > 0 or scored[y] == 0 or out_at[x] > out_at[y], (x, y)


# ---------------------------------------------------------------------------- elimination_k


def test_ten_entrants_at_tables_of_four_advancing_two():
    e = elimination_k(list(range(10)), 4, 2, 2, ROOT)
    first = e.stages()[0]
    assert first.name == "stage-1"
    assert [t.entrants for t in first.tables] == [(0, 5, 6), (1, 4, 7), (2, 3, 8, 9)]
    done = play_out(e)
    stages = done.stages()
    assert [s.name for s in stages] == ["stage-1", "stage-2", "final"]
    assert stages[0].advanced == (0, 1, 2, 3, 4, 5) and stages[0].eliminated == (6, 7, 8, 9)
    assert [t.entrants for t in stages[1].tables] == [(0, 3, 4), (1, 2, 5)]
    assert stages[1].advanced == (0, 1, 2, 3) and stages[1].eliminated == (4, 5)
    assert stages[2].tables[0].entrants == (0, 1, 2, 3)
    assert stages[2].advanced == (0,) and stages[2].eliminated == (1, 2, 3)
    # Stage 1's 8 took a point a game as third of four; 6 and 7 were last of three: none.
    assert done.ranking() == (0, 1, 2, 3, 4, 5, 8, 6, 7, 9)


def test_table_games_rotate_the_seats():
    e = elimination_k(list(range(3)), 3, 1, 4, ROOT)
    assert [g.seats for g in e.pending()] == [(0, 1, 2), (1, 2, 0), (2, 0, 1), (0, 1, 2)]


def test_table_ranks_by_points_then_first_places_then_seed():
    e = elimination_k([0, 1, 2], 3, 1, 2, ROOT)
    g1, g2 = e.pending()  # seats (0, 1, 2) then (1, 2, 0)
    # Points (3 - place): 0 gets 2+0, 1 gets 1+1, 2 gets 0+2: all 2. Firsts: 0 and 2 have one.
    done = e.record({g1.id: (1, 2, 3), g2.id: (2, 1, 3)})
    assert done.stages()[0].tables[0].ranking == (0, 2, 1)
    tied = e.record({g1.id: (1, 1, 1), g2.id: (1, 1, 1)})
    assert tied.stages()[0].tables[0].ranking == (0, 1, 2)


def test_few_entrants_play_only_a_final_table():
    e = elimination_k([4, 2, 0], 4, 2, 1, ROOT)
    assert [s.name for s in e.stages()] == ["final"]
    assert e.pending()[0].seats == (4, 2, 0)


def test_a_table_of_one_is_a_bye():
    stage = elimination_k([0, 1, 2], 2, 1, 1, ROOT).stages()[0]
    assert [t.entrants for t in stage.tables] == [(1, 2)] and stage.byes == (0,)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 24),
    st.integers(2, 6),
    st.integers(1, 5),
    st.integers(1, 3),
    st.integers(0, 2**32),
    st.booleans(),
)
def test_any_elimination_runs_to_a_final(n, k, advance, games, luck, bracket):
    k, advance = min(k, n), min(advance, min(k, n) - 1)
    order = random.Random(luck).sample(range(n), n)
    e = (
        elimination_2(order, games, ROOT)
        if bracket
        else elimination_k(order, k, advance, games, ROOT)
    )
    rng = random.Random(luck)
    done = play_out(
        e, lambda seats: placements_by_score(seats, {s: rng.randrange(3) for s in seats})
    )
    stages = done.stages()
    assert done.finished and done.pending() == []
    assert stages[-1].name == "final" and len(stages[-1].tables) == 1
    assert len(stages[-1].tables[0].entrants) <= (2 if bracket else k)
    in_play = set(order)
    for stage in stages:
        playing = {x for t in stage.tables for x in t.entrants} | set(stage.byes)
        assert playing == in_play
        assert set(stage.advanced) | set(stage.eliminated) == in_play
        assert not set(stage.advanced) & set(stage.eliminated) and stage.eliminated
        in_play = set(stage.advanced)
    assert sorted(done.ranking()) == sorted(order)
    assert done.ranking()[0] == stages[-1].advanced[0]
    all_games = [g for s in stages for t in s.tables for g in t.games]
    assert_ids_and_seeds(all_games)
    # Resuming from the whole log at once rebuilds the same state.
    assert e.record(dict(done.results)) == done


# ---------------------------------------------------------------------------- elimination state


def test_pending_shrinks_as_results_arrive_and_state_is_a_value():
    e = elimination_k(list(range(6)), 3, 1, 2, ROOT)
    first = e.pending()
    partial = e.record({first[0].id: (1, 2, 3)})
    assert partial.pending() == first[1:]
    assert e.pending() == first  # recording never changes the old state
    assert partial == e.record({first[0].id: [1, 2, 3]})


def test_later_stage_seeds_do_not_depend_on_who_advanced():
    e = elimination_2(list(range(4)), 2, ROOT)
    favourites = play_out(e)
    upsets = play_out(e, lambda s: seed_favourite(s)[::-1])
    final_a, final_b = favourites.stages()[-1].tables[0], upsets.stages()[-1].tables[0]
    assert final_a.entrants != final_b.entrants
    assert [(g.id, g.seed) for g in final_a.games] == [(g.id, g.seed) for g in final_b.games]


def test_same_settings_and_results_give_the_same_games():
    a = play_out(elimination_k(list(range(9)), 3, 1, 2, ROOT))
    b = play_out(elimination_k(list(range(9)), 3, 1, 2, ROOT))
    assert a == b and a.stages() == b.stages()


def test_record_rejects_unknown_ids_conflicts_and_bad_placements():
    e = elimination_2(list(range(4)), 1, ROOT)
    game = e.pending()[0]
    with pytest.raises(ValueError, match="el-s09"):
        e.record({"el-s09-m001-g01": (1, 2)})
    done = e.record({game.id: (1, 2)})
    assert done.record({game.id: (1, 2)}) == done
    with pytest.raises(ValueError, match="differs"):
        done.record({game.id: (2, 1)})
    for bad in [(1,), (1, 3), (0, 1), (1, 2, 2)]:
        with pytest.raises(ValueError, match=game.id):
            e.record({game.id: bad})


def test_ranking_before_the_end_is_an_error():
    with pytest.raises(ValueError, match="not finished"):
        elimination_2(list(range(4)), 1, ROOT).ranking()


# ---------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: round_robin(3, 4, 1, ROOT), "seats=4"),
        (lambda: round_robin(4, 2, 0, ROOT), "games=0"),
        (lambda: round_robin(4, 1, 1, ROOT), "seats=1"),
        (lambda: round_robin(4, 2, 1, ROOT, cap=0), "cap=0"),
        (lambda: round_robin(4, 2, 1, ROOT, rotations="some"), "rotations='some'"),
        (lambda: balanced_tables(4, 2, 0, ROOT), "total=0"),
        (lambda: gauntlet([0], 3, 4, 1, ROOT), "seats=4"),
        (lambda: gauntlet([0, 1, 2], 4, 3, 1, ROOT), "seats=3"),
        (lambda: gauntlet([5], 4, 2, 1, ROOT), "5"),
        (lambda: gauntlet([1, 1], 4, 2, 1, ROOT), r"\[1, 1\]"),
        (lambda: gauntlet([], 4, 2, 1, ROOT), "champions"),
        (lambda: elimination_2([0], 1, ROOT), r"\[0\]"),
        (lambda: elimination_2([0, 1, 0], 1, ROOT), r"\[0, 1, 0\]"),
        (lambda: elimination_2([0, 1], 0, ROOT), "games=0"),
        (lambda: elimination_k(list(range(6)), 3, 3, 1, ROOT), "advance=3"),
        (lambda: elimination_k(list(range(6)), 3, 0, 1, ROOT), "advance=0"),
        (lambda: elimination_k(list(range(6)), 1, 0, 1, ROOT), "seats=1"),
    ],
)
def test_bad_settings_raise_value_error_naming_the_value(call, message):
    with pytest.raises(ValueError, match=message):
        call()
