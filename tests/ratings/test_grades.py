"""The grade rule (arena/ratings/grades.py) on small scripted results: cumulative grades,
a lower grade not beaten, level placements, no games against a grade's bot, the interval
(Wilson over the pairs of a deal, else over the games), the sentence, grades.json and
grades.csv."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

import pytest

from arena.compare.estimates import wilson_interval
from arena.ratings.grades import Grading, grade, grades_csv, grades_json, sentence

GRADES = (("pass", "honest"), ("merit", "statistician"), ("distinction", "boss"))
_ids = iter(range(1, 1_000_000))


def pairs(entrant: str, bot: str, wins: int, splits: int, losses: int) -> Iterator[dict[str, Any]]:
    """Duplicate pairs as a gauntlet plays them: one deal, seats swapped; a pair won both
    times, split, or lost both times."""
    for outcome in [2] * wins + [1] * splits + [0] * losses:
        seed = next(_ids)
        first, second = (1 if outcome >= 1 else 2), (1 if outcome == 2 else 2)
        yield {"id": f"gt-{seed}-1", "seed": seed, "entrants": [entrant, bot],
               "placements": [first, 3 - first]}
        yield {"id": f"gt-{seed}-2", "seed": seed, "entrants": [bot, entrant],
               "placements": [3 - second, second]}


def single(entrant: str, bot: str, placements: tuple[int, int]) -> dict[str, Any]:
    """One game of its own deal, as a round robin plays it."""
    seed = next(_ids)
    return {"id": f"rr-{seed}", "seed": seed, "entrants": [entrant, bot],
            "placements": list(placements)}


def reached(games: list[dict[str, Any]], graded: tuple[str, ...] = ("ana",)) -> list[str | None]:
    return [g.reached for g in grade(games, GRADES, graded)]


def test_grades_are_cumulative_lowest_first() -> None:
    games = [*pairs("ana", "honest", 40, 10, 0), *pairs("ana", "statistician", 30, 20, 5),
             *pairs("ana", "boss", 5, 30, 15)]
    (found,) = grade(games, GRADES, ("ana",))
    assert found.reached == "merit"
    assert [m.beat for m in found.meetings] == [True, True, False]
    assert [(m.games, m.pairs) for m in found.meetings] == [(100, 50), (110, 55), (100, 50)]
    assert found.meetings[1].score == wilson_interval(40, 55)  # 30 pairs won, 20 split


def test_a_higher_bot_beaten_counts_for_nothing_without_the_lower_one() -> None:
    games = [*pairs("ana", "honest", 10, 30, 10), *pairs("ana", "statistician", 40, 10, 0),
             *pairs("ana", "boss", 40, 10, 0)]
    (found,) = grade(games, GRADES, ("ana",))
    assert found.reached is None
    assert [m.beat for m in found.meetings] == [False, True, True]


def test_beating_every_bot_reaches_the_top_grade_and_beating_none_no_grade() -> None:
    games = [game for _, bot in GRADES for game in pairs("ana", bot, 30, 5, 0)]
    games += [game for _, bot in GRADES for game in pairs("bo", bot, 0, 5, 30)]
    assert reached(games, ("ana", "bo")) == ["distinction", None]


def test_an_even_score_or_level_places_beat_no_one() -> None:
    even = list(pairs("ana", "honest", 20, 0, 20))  # exactly one half: not above it
    level = [single("bo", "honest", (1, 1)) for _ in range(50)]  # each a half point
    (ana, bo) = grade(even + level, GRADES, ("ana", "bo"))
    assert ana.meetings[0].score.value == 0.5 and not ana.meetings[0].beat
    assert bo.meetings[0].score == wilson_interval(25, 50) and not bo.meetings[0].beat
    assert (ana.reached, bo.reached) == (None, None)


def test_no_games_against_a_grade_bot_is_not_beating_it() -> None:
    games = list(pairs("ana", "honest", 40, 0, 0))  # never met statistician or boss
    (found,) = grade(games, GRADES, ("ana",))
    assert found.reached == "pass"
    assert [(m.games, m.beat) for m in found.meetings] == [(80, True), (0, False), (0, False)]
    assert sentence(found).endswith("; did not beat statistician (no games) and boss (no games)")
    (nobody,) = grade([], GRADES, ("cleo",))
    assert sentence(nobody) == ("cleo reached no grade: did not beat honest (no games), "
                                "statistician (no games) and boss (no games)")


def test_games_of_their_own_deal_are_read_per_game_with_wilson() -> None:
    games = [single("ana", "honest", (1, 2)) for _ in range(70)]
    games += [single("ana", "honest", (2, 1)) for _ in range(30)]
    (found,) = grade(games, GRADES, ("ana",))
    meeting = found.meetings[0]
    assert (meeting.games, meeting.pairs, meeting.score) == (100, 0, wilson_interval(70, 100))
    assert meeting.beat


def test_the_grade_bots_and_other_entrants_games_do_not_count() -> None:
    games = [single("honest", "boss", (1, 2)), single("ana", "random", (1, 2)),
             *pairs("ana", "honest", 30, 0, 0)]
    (found,) = grade(games, GRADES, ("ana",))
    assert [m.games for m in found.meetings] == [60, 0, 0]


def test_the_sentence_says_the_grade_and_each_bot_in_one_line() -> None:
    games = [*pairs("ana", "honest", 40, 10, 0), *pairs("ana", "statistician", 30, 20, 5),
             *pairs("ana", "boss", 5, 30, 15)]
    (found,) = grade(games, GRADES, ("ana",))
    assert sentence(found) == (
        "ana reached merit: beat honest (90% of 100 games, 95% interval 79-96%) and "
        "statistician (73% of 110, 60-83%); did not beat boss (40% of 100, 28-54%)")


@pytest.mark.parametrize("order", [False, True])
def test_grades_json_is_the_same_bytes_for_the_same_games(order: bool) -> None:
    games = [*pairs("ana", "honest", 40, 10, 0), *pairs("bo", "honest", 1, 2, 3)]
    found = grade(reversed(games) if order else games, GRADES, ("ana", "bo"))
    text = grades_json(found, GRADES)
    assert text == grades_json(grade(games, GRADES, ("ana", "bo")), GRADES)
    document = json.loads(text)
    assert document["grades"][0] == {"grade": "pass", "bot": "honest"}
    assert [g["entrant"] for g in document["graded"]] == ["ana", "bo"]
    ana = document["graded"][0]
    assert (ana["reached"], ana["sentence"]) == ("pass", sentence(found[0]))
    score = found[0].meetings[0].score
    assert ana["against"][0] == {
        "grade": "pass", "bot": "honest", "games": 100, "pairs": 50, "beat": True,
        "score": round(score.value, 6), "low": round(score.lower, 6),
        "high": round(score.upper, 6)}
    assert isinstance(found[0], Grading)


def test_pairs_that_all_end_alike_still_give_an_interval_not_a_point() -> None:
    """Wilson's interval over the pairs: 0 of 80 pairs is not a measured 0-0%, nor an even
    split of every deal a measured 50-50%."""
    games = [*pairs("ana", "honest", 0, 0, 80), *pairs("ana", "statistician", 0, 20, 0),
             *pairs("ana", "boss", 3, 0, 0)]
    (found,) = grade(games, GRADES, ("ana",))
    assert [m.score for m in found.meetings] == [
        wilson_interval(0, 80), wilson_interval(10, 20), wilson_interval(3, 3)]
    assert sentence(found) == (
        "ana reached no grade: did not beat honest (0% of 160 games, 95% interval 0-5%), "
        "statistician (50% of 40, 30-70%) and boss (100% of 6, 44-100%)")


def test_grades_csv_is_a_row_per_graded_entrant_as_grades_json_says() -> None:
    games = [*pairs("ana", "honest", 40, 10, 0), *pairs("ana", "statistician", 30, 20, 5),
             *pairs("bo", "honest", 1, 2, 3)]
    found = grade(games, GRADES, ("ana", "bo"))
    text = grades_csv(found, GRADES)
    assert text.splitlines()[0] == (
        "entrant,reached,score vs honest,low vs honest,high vs honest,games vs honest,"
        "beat honest,score vs statistician,low vs statistician,high vs statistician,"
        "games vs statistician,beat statistician,score vs boss,low vs boss,high vs boss,"
        "games vs boss,beat boss,sentence")
    rows = list(csv.DictReader(io.StringIO(text)))
    document = json.loads(grades_json(found, GRADES))
    assert [(r["entrant"], r["reached"], r["sentence"]) for r in rows] == [
        (g["entrant"], g["reached"] or "", g["sentence"]) for g in document["graded"]]
    for row, graded in zip(rows, document["graded"], strict=True):
        for against in graded["against"]:
            bot = against["bot"]
            assert [float(row[f"{k} vs {bot}"]) for k in ("score", "low", "high")] == [
                against[k] for k in ("score", "low", "high")]
            assert row[f"games vs {bot}"] == str(against["games"])
            assert row[f"beat {bot}"] == ("yes" if against["beat"] else "no")
    assert rows[1]["reached"] == "" and rows[1]["games vs boss"] == "0"
    assert all(len(row[f"low vs {bot}"].split(".")[1]) == 6 for row in rows for bot in
               ("honest", "statistician", "boss"))
    assert text == grades_csv(grade(reversed(games), GRADES, ("ana", "bo")), GRADES)


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r", "'"])
def test_grades_csv_never_gives_a_spreadsheet_a_formula(start: str) -> None:
    """A grade's name is the teacher's free text: one a spreadsheet would run as a formula
    (or a quote, so every name reads back) gets a leading quote, in the header and cells."""
    grades = ((f"{start}HYPERLINK(1)", "honest"),)
    found = grade(pairs("ana", "honest", 40, 10, 0), grades, ("ana",))
    rows = list(csv.reader(io.StringIO(grades_csv(found, grades), newline="")))
    assert rows[1][1] == f"'{start}HYPERLINK(1)"
    assert rows[1][-1].startswith("ana reached ")
    assert len(rows) == 2 and all(not cell.startswith(("=", "+", "-", "@", "\t", "\r"))
                                  for row in rows for cell in row)
