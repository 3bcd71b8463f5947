"""The Swiss format: its pairing (pure, against brute force), its rounds as a state machine,
real runs into a results folder, and its config errors."""

from __future__ import annotations

import itertools
import json
import random
import re
import shutil
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from cli_support import write_config
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings.render import MD_SWISS_NOTE
from arena.report.html import build_report
from arena.tournament.config import ConfigError
from arena.tournament.config.as_run import config_as_run
from arena.tournament.formats.builtin import default_rounds
from arena.tournament.formats.registry import plan_for
from arena.tournament.formats.swiss.pairing import Pairing, _pair, pair_key, pair_round, table_cost
from arena.tournament.formats.swiss.rounds import Swiss
from arena.tournament.load import load_tournament
from arena.tournament.run import results
from arena.tournament.run.runner import run_tournament

# --- the pairing, pure -------------------------------------------------------------------


@st.composite
def fields(draw: st.DrawFn, most: int = 9) -> tuple[list[int], int, dict, dict]:
    """A standing order, a table size, earlier meetings and byes so far."""
    n = draw(st.integers(2, most))
    seats = draw(st.integers(2, min(3, n)))
    order = draw(st.permutations(range(n)))
    pairs = list(itertools.combinations(range(n), 2))
    met = {pair: draw(st.integers(0, 2)) for pair in pairs if draw(st.booleans())}
    byes = {p: draw(st.integers(0, 2)) for p in range(n)}
    return list(order), seats, met, byes


def _partitions(players: tuple[int, ...], seats: int) -> Iterator[tuple[tuple[int, ...], ...]]:
    """Every seating of `players` at tables of `seats`, in top-down order: the first
    player left opens each table, its mates in order of combinations."""
    if not players:
        yield ()
        return
    first, rest = players[0], players[1:]
    for tail in itertools.combinations(rest, seats - 1):
        left = tuple(p for p in rest if p not in tail)
        for more in _partitions(left, seats):
            yield ((first, *tail), *more)


def _cost(tables: Sequence[Sequence[int]], met: Mapping[tuple[int, int], int]) -> int:
    return sum(table_cost(t, met) for t in tables)


@settings(max_examples=150, deadline=None)
@given(fields())
def test_every_player_is_seated_once_and_the_byes_are_fair(field: tuple) -> None:
    order, seats, met, byes = field
    pairing = pair_round(order, seats, met, byes)
    seated = [p for t in pairing.tables for p in t] + list(pairing.byes)
    assert sorted(seated) == sorted(order)
    assert all(len(t) == seats for t in pairing.tables)
    assert len(pairing.byes) == len(order) % seats
    place = {p: i for i, p in enumerate(order)}
    for table in pairing.tables:
        assert list(table) == sorted(table, key=place.__getitem__)  # standing order
    for got in pairing.byes:  # fewest byes first, then the lowest placed
        for other in set(order) - set(pairing.byes):
            assert (byes[got], -place[got]) < (byes[other], -place[other])


@settings(max_examples=150, deadline=None)
@given(fields())
def test_no_repeat_while_a_repeat_free_pairing_exists(field: tuple) -> None:
    """Against brute force: the fewest repeats there are; with none, the first repeat-free
    pairing in top-down order (the best placed seated with the best placed they have not met)."""
    order, seats, met, byes = field
    pairing = pair_round(order, seats, met, byes)
    players = tuple(p for p in order if p not in pairing.byes)
    every = list(_partitions(players, seats))
    cheapest = min(_cost(p, met) for p in every)
    assert pairing.repeats == _cost(pairing.tables, met) == cheapest
    if cheapest == 0:
        assert pairing.tables == next(p for p in every if _cost(p, met) == 0)


def test_the_pairing_fills_tables_top_down() -> None:
    # 0 and 1 met: 0 takes 2, the best placed it has not met; 1 then takes 3.
    assert pair_round([0, 1, 2, 3], 2, {(0, 1): 1}, {}) == Pairing(((0, 2), (1, 3)), (), 0)
    # A field of 5 at tables of 2: the one bye goes to the lowest placed without one.
    pairing = pair_round([4, 3, 2, 1, 0], 2, {}, {0: 1, 1: 0})
    assert pairing.byes == (1,) and pairing.tables == ((4, 3), (2, 0))
    # Everyone has met everyone: the repeats are unavoidable, and the fewest are taken.
    met = {pair: 1 for pair in itertools.combinations(range(4), 2)} | {(0, 1): 2}
    assert pair_round([0, 1, 2, 3], 2, met, {}) == Pairing(((0, 2), (1, 3)), (), 2)


def test_a_spent_budget_keeps_the_cheapest_pairing_seen() -> None:
    met = {pair_key(a, b): 1 for a in range(8) for b in range(8) if a != b and (a + b) % 2}
    full = pair_round(list(range(8)), 2, met, {})
    short = pair_round(list(range(8)), 2, met, {}, budget=1)
    assert full.repeats == 0 and short.repeats >= full.repeats
    assert short == pair_round(list(range(8)), 2, met, {}, budget=1)  # deterministic


def test_a_pairing_refuses_a_field_it_cannot_seat() -> None:
    with pytest.raises(ValueError, match="cannot fill a table of 3 seats"):
        pair_round([0, 1], 3, {}, {})
    with pytest.raises(ValueError, match="appears twice"):
        pair_round([0, 1, 1], 2, {}, {})


# --- the rounds, a pure state machine ----------------------------------------------------


def _play_out(swiss: Swiss, draw: random.Random) -> tuple[dict[str, tuple[int, ...]], list]:
    """Every round played with random placements, one round at a time, as a run does."""
    results: dict[str, tuple[int, ...]] = {}
    while True:
        played = swiss.rounds_played(results)
        if swiss.finished(played):
            return results, played
        for table in played[-1].tables:
            for game in table.games:
                places = list(range(1, swiss.seats + 1))
                draw.shuffle(places)
                results[game.id] = tuple(places)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 9), st.integers(2, 3), st.integers(1, 6), st.integers(1, 2),
       st.integers(0, 2**32))
def test_a_swiss_seats_everyone_each_round_and_spreads_the_byes(
    n: int, seats: int, rounds: int, games: int, seed: int
) -> None:
    if seats > n:
        return
    swiss = Swiss(tuple(range(n)), seats, games, rounds, seed)
    results, played = _play_out(swiss, random.Random(seed))
    assert len(results) == swiss.total
    ids = [g.id for r in played for t in r.tables for g in t.games]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)  # ids sort in play order
    byes = dict.fromkeys(range(n), 0)
    for r in played:
        assert sorted([p for t in r.tables for p in t.entrants] + list(r.byes)) == list(range(n))
        for p in r.byes:
            byes[p] += 1
        assert max(byes.values()) - min(byes.values()) <= 1  # no second bye while one has none
        for table in r.tables:  # each deal at every rotation: every seat once per deal
            for seat in range(seats):
                assert sorted(g.seats[seat] for g in table.games) == sorted(table.entrants * games)
            assert {g.seed for g in table.games} == {g.seed for g in table.games[::seats]}
    _pair.cache_clear()  # the same rounds computed afresh, not remembered
    again = Swiss(tuple(range(n)), seats, games, rounds, seed).rounds_played(results)
    assert again == played


def test_scores_and_buchholz_follow_the_placements() -> None:
    """Three seats: a game gives 1, 1/2, 0; a round scores the mean; a bye is worth 1 and
    counts as two table mates with the player's own score."""
    swiss = Swiss((0, 1, 2, 3), 3, 1, 1, 5)
    (first,) = swiss.rounds_played({})
    assert first.byes == (3,) and first.tables[0].entrants == (0, 1, 2)
    # 0 wins every rotation; 1 is second twice, 2 once.
    places = {(0, 1, 2): (1, 2, 3), (1, 2, 0): (2, 3, 1), (2, 0, 1): (2, 1, 3)}
    results = {g.id: places[g.seats] for g in first.tables[0].games}
    (done,) = swiss.rounds_played(results)
    assert done.tables[0].scores == (Fraction(1), Fraction(1, 3), Fraction(1, 6))
    rows = {row.entrant: row for row in swiss.standings([done])}
    assert rows[0].buchholz == Fraction(1, 3) + Fraction(1, 6)
    assert rows[3].score == 1 and rows[3].buchholz == 2 and rows[3].byes == 1
    assert [row.entrant for row in swiss.standings([done])] == [3, 0, 1, 2]
    assert swiss.ranking([done], {0: 50.0, 3: -50.0}, "abcd") == (3, 0, 1, 2)


def test_equal_score_and_buchholz_fall_to_elo_then_to_the_name() -> None:
    swiss = Swiss((0, 1), 2, 1, 1, 5)
    games = swiss.rounds_played({})[0].tables[0].games
    played = swiss.rounds_played({games[0].id: (1, 2), games[1].id: (1, 2)})  # one win each
    assert played[0].tables[0].scores == (Fraction(1, 2), Fraction(1, 2))
    assert swiss.ranking(played, {0: -1.0, 1: 1.0}, ["b", "a"]) == (1, 0)
    assert swiss.ranking(played, {0: 1.0, 1: -1.0}, ["b", "a"]) == (0, 1)
    assert swiss.ranking(played, {}, ["b", "a"]) == (1, 0)
    assert swiss.ranking(played, {}, ["a", "b"]) == (0, 1)


def test_the_default_rounds_are_ceil_log2_plus_two() -> None:
    assert [default_rounds(n) for n in (2, 3, 4, 5, 8, 9, 16, 17)] == [3, 4, 4, 5, 5, 6, 6, 7]


# --- real runs ---------------------------------------------------------------------------

COMPARED = ("games.jsonl", *results.DERIVED)


def _swiss(folder: Path, entrants: int, fmt: str, **extra: Any) -> Any:
    """A Swiss of built-in random bots in one-point games, without replays."""
    names = "[random" + "".join(f", {{bot: random, alias: r{i}}}" for i in range(2, entrants + 1))
    lines = ["name: t", "rules: dice", f"entrants: {names}]", f"format: {fmt}",
             "options: {max_points: 1}", "replays: false", "seed: 4"]
    lines += [f"{key}: {value}" for key, value in extra.items()]
    return load_tournament(write_config(folder, "\n".join(lines) + "\n"))


def _recount(out: Path, seats: int) -> dict[str, tuple[Fraction, Fraction]]:
    """Score and Buchholz of each entrant recomputed from games.jsonl and the byes alone."""
    stages = json.loads((out / "stages.json").read_text())
    games = list(results.iter_games(out / results.GAMES))
    score: dict[str, Fraction] = {}
    mates: dict[str, list[str]] = {}
    byes = {name: 0 for s in stages["stages"] for t in s["tables"] for name in t["entrants"]}
    for stage in stages["stages"]:
        points: dict[str, list[Fraction]] = {}
        for game in (g for g in games if g["stage"] == stage["name"]):
            for name, place in zip(game["entrants"], game["placements"], strict=True):
                points.setdefault(name, []).append(Fraction(seats - place, seats - 1))
        for name, got in points.items():
            score[name] = score.get(name, Fraction(0)) + sum(got, Fraction(0)) / len(got)
        for table in stage["tables"]:
            for name in table["entrants"]:
                mates.setdefault(name, []).extend(m for m in table["entrants"] if m != name)
        for name in stage["byes"]:
            score[name] = score.get(name, Fraction(0)) + 1
            byes[name] += 1
    return {name: (score[name], sum((score[m] for m in mates.get(name, ())), Fraction(0))
                   + (seats - 1) * byes[name] * score[name]) for name in score}


@pytest.mark.parametrize(("entrants", "seats", "rounds"), [(5, 2, 3), (7, 3, 2)])
def test_a_swiss_ranks_by_score_then_buchholz_then_elo(
    tmp_path: Path, entrants: int, seats: int, rounds: int
) -> None:
    cfg = _swiss(tmp_path, entrants, f"{{type: swiss, seats: {seats}, rounds: {rounds}}}")
    report = run_tournament(cfg, tmp_path / "out", workers=1)
    out = tmp_path / "out"
    stages = json.loads((out / "stages.json").read_text())
    assert report.total == report.played == rounds * (entrants // seats) * seats
    assert [s["name"] for s in stages["stages"]] == [f"round-{r}" for r in range(1, rounds + 1)]
    byes = [name for s in stages["stages"] for name in s["byes"]]
    assert len(byes) == len(set(byes)) == rounds * (entrants % seats)  # nobody twice
    met: dict[frozenset[str], int] = {}
    for stage in stages["stages"]:  # each round's repeats are its earlier meetings
        pairs = [frozenset(p) for t in stage["tables"]
                 for p in itertools.combinations(t["entrants"], 2)]
        assert stage["repeats"] == sum(met.get(p, 0) for p in pairs)
        for pair in pairs:
            met[pair] = met.get(pair, 0) + 1
    # 5 at tables of 2 can avoid every repeat; 7 at tables of 3 cannot in round 2 (the
    # three of a round-1 table need three tables, and there are two).
    assert [s["repeats"] for s in stages["stages"]] == ([0, 0, 0] if seats == 2 else [0, 1])
    recount = _recount(out, seats)
    elo = {name: row["elo"]["rating"]
           for name, row in json.loads((out / "ratings.json").read_text())["entrants"].items()}
    for row in stages["standings"]:
        assert (row["score"], row["buchholz"]) == pytest.approx(recount[row["entrant"]])
    assert stages["ranking"] == sorted(recount, key=lambda name: (
        -recount[name][0], -recount[name][1], -round(elo[name], 6), name))
    lines = (out / "standings.csv").read_text().splitlines()[1:]
    assert [line.split(",")[1] for line in lines] == stages["ranking"]
    assert report.standings.endswith(MD_SWISS_NOTE + "\n")
    build_report(out, viewer=False)  # the report shows the rounds and the final standings
    page = (out / "report.html").read_text()
    assert '<a href="#rounds">Rounds</a>' in page and 'id="ranked-by">Ranked by Swiss score' in page
    assert (f"<dd>swiss, {seats} seats a table, 1 deal a table a round, each at every seat "
            f"rotation, rounds {rounds}</dd>") in page
    final = page.split("<h3>Final standings</h3>", 1)[1].split("</table>", 1)[0]
    assert re.findall(r'<td><a class="who" href="#entrant=([^"]+)"', final) == stages["ranking"]


def _same_results(a: Path, b: Path) -> None:
    for name in COMPARED:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_one_and_two_workers_and_a_resume_write_the_same_bytes(tmp_path: Path) -> None:
    """Round r + 1 is planned again from the log of rounds 1..r: a log cut anywhere (a
    kill -9 mid-round leaves a torn line) resumes to the same files."""
    cfg = _swiss(tmp_path, 5, "{type: swiss, seats: 2, rounds: 3, games: 2}")
    run_tournament(cfg, tmp_path / "one", workers=1)
    run_tournament(cfg, tmp_path / "two", workers=2)
    _same_results(tmp_path / "one", tmp_path / "two")
    lines = (tmp_path / "one" / results.GAMES).read_bytes().splitlines(keepends=True)
    assert len(lines) == 24
    for keep in (5, 16):  # in round 1; at the end of round 2
        cut = tmp_path / f"cut-{keep}"
        cut.mkdir()
        (cut / results.GAMES).write_bytes(b"".join(lines[:keep]) + b'{"id": "torn')
        shutil.copy(tmp_path / "one" / results.CONFIG, cut / results.CONFIG)
        report = run_tournament(cfg, cut, workers=2, resume=True)
        assert (report.resumed, report.played) == (keep, 24 - keep)
        _same_results(tmp_path / "one", cut)


# --- the config ----------------------------------------------------------------------------


def _error(folder: Path, fmt: str) -> str:
    path = write_config(folder, f"name: t\nrules: dice\nentrants: [random, honest, bluffer]\n"
                                f"format: {fmt}\n")
    with pytest.raises(ConfigError) as caught:
        load_tournament(path)
    return str(caught.value).removeprefix(f"{path}:")


def test_config_errors_are_one_line(tmp_path: Path) -> None:
    assert _error(tmp_path, "{type: swiss, rounds: 0}") == (
        "4: format.rounds: must be at least 1, got 0")
    assert _error(tmp_path, "{type: swiss, rounds: two}") == (
        "4: format.rounds: must be a whole number, got 'two'")
    assert _error(tmp_path, "{type: swiss, rounds: 2.5}") == (
        "4: format.rounds: must be a whole number, got 2.5")
    assert _error(tmp_path, "{type: round-robin, rounds: 3}") == (
        "4: format.rounds: 'rounds' applies only to swiss, not round-robin")
    assert _error(tmp_path, "{type: swiss, seats: 4}") == (
        "4: format.seats: a table of 4 seats needs at least 4 entrants, got 3")


def test_a_swiss_without_rounds_plays_ceil_log2_n_plus_two(tmp_path: Path) -> None:
    cfg = _swiss(tmp_path, 5, "swiss")
    assert (cfg.format.rounds, cfg.format.seats, cfg.format.games) == (5, 2, 1)
    assert plan_for(cfg).total() == 5 * 2 * 2
    assert config_as_run(cfg)["format"] == {"type": "swiss", "seats": 2, "games": 1, "rounds": 5}
