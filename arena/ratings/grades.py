"""Grades: which of a config's `grades` each graded entrant reached, from games.jsonl.

A graded entrant *beat* a grade's bot when its head-to-head score against it (1 a game
placed above it, 1/2 placed level, 0 below) is above one half with 95% confidence: the
lower end of the score's interval is above 0.5. Games that share a seed share a deal (a
gauntlet's rotation set, seats swapped); when every deal between the two is such a pair,
the interval is Wilson's over the pairs (n = pairs, each scoring its two games' mean: the
two halves of a deal are not independent, and a pair's score, bounded in [0, 1], varies no
more than a coin's of the same mean, so the interval stays honest when every pair ended
alike, where a variance read from the pairs would be 0 and the interval a point), else
Wilson's over the games (a round robin deals each game afresh). Grades are cumulative,
lowest first: a grade is reached when its bot and every lower grade's bot were beaten. No
game against a bot is no win against it.

It must stay pure: no file I/O, no clocks, no randomness, and no statistics of its own
(they are arena.compare.estimates'); it returns text, the tournament layer writes files.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.compare.estimates import Estimate, wilson_interval
from arena.ratings.render import sheet
from arena.ratings.standings import DECIMALS

__all__ = ["Deals", "Grading", "Meeting", "grade", "grades_csv", "grades_json", "grades_sheet",
           "sentence"]

INTERVAL = 0.95


@dataclass(frozen=True, slots=True)
class Meeting:
    """A graded entrant's head-to-head result against one grade's bot."""

    grade: str
    bot: str
    games: int
    pairs: int
    """Duplicate pairs the interval was read from; 0 when it was read per game (Wilson)."""
    score: Estimate

    @property
    def beat(self) -> bool:
        """Whether the games put its score above one half at 95%."""
        return self.games > 0 and self.score.lower > 0.5


@dataclass(frozen=True, slots=True)
class Grading:
    """A graded entrant, the highest grade it reached (None: none) and every meeting."""

    entrant: str
    reached: str | None
    meetings: tuple[Meeting, ...]


def grade(games: Iterable[Mapping[str, Any]], grades: Sequence[tuple[str, str]],
          graded: Sequence[str]) -> tuple[Grading, ...]:
    """Each graded entrant's grade, in the order given, from one pass over the games."""
    deals = Deals(grades, graded)
    for game in games:
        deals.add(game)
    return deals.gradings()


class Deals:
    """The graded entrants' head-to-head points, fed one game at a time (by the pass that
    also feeds the standings' totals, so the grades cost no pass of their own)."""

    def __init__(self, grades: Sequence[tuple[str, str]], graded: Sequence[str]) -> None:
        self.grades, self.graded = tuple(grades), tuple(graded)
        self._bots, self._students = {bot for _, bot in grades}, set(graded)
        self._deals: dict[tuple[str, str], dict[object, list[float]]] = {}
        """(graded entrant, bot) -> deal -> the entrant's head-to-head points in each game."""

    def add(self, game: Mapping[str, Any]) -> None:
        """Count one game's meetings of a graded entrant and a grade's bot."""
        places = dict(zip(game["entrants"], game["placements"], strict=True))
        deal = game.get("seed", game["id"])
        for entrant in self._students & places.keys():
            for bot in self._bots & places.keys():
                mine, theirs = places[entrant], places[bot]
                points = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
                self._deals.setdefault((entrant, bot), {}).setdefault(deal, []).append(points)

    def gradings(self) -> tuple[Grading, ...]:
        """Each graded entrant's grade, in the order given, from the games fed so far."""
        found = []
        for entrant in self.graded:
            meetings = tuple(_meeting(name, bot, self._deals.get((entrant, bot), {}))
                             for name, bot in self.grades)
            found.append(Grading(entrant, _reached(meetings), meetings))
        return tuple(found)


def _meeting(name: str, bot: str, deals: Mapping[object, list[float]]) -> Meeting:
    """The score against one bot: over duplicate pairs when every deal is one, else games."""
    points = [p for deal in deals.values() for p in deal]
    if deals and all(len(deal) == 2 for deal in deals.values()):
        score = wilson_interval(sum(points) / 2, len(deals))
        return Meeting(name, bot, len(points), len(deals), score)
    return Meeting(name, bot, len(points), 0, wilson_interval(sum(points), len(points)))


def _reached(meetings: Sequence[Meeting]) -> str | None:
    """The highest grade whose bot and every lower grade's bot were beaten."""
    reached = None
    for meeting in meetings:
        if not meeting.beat:
            break
        reached = meeting.grade
    return reached


# --- as text ------------------------------------------------------------------------------


def sentence(grading: Grading) -> str:
    """One line a student can read: the grade reached, and how it did against each bot."""
    reached = grading.reached or "no grade"
    runs: list[tuple[bool, list[str]]] = []
    first = True
    for meeting in grading.meetings:
        said = f"{meeting.bot} ({_result(meeting, first)})"
        first = first and meeting.games == 0
        if runs and runs[-1][0] == meeting.beat:
            runs[-1][1].append(said)
        else:
            runs.append((meeting.beat, [said]))
    parts = [("beat " if beat else "did not beat ") + _listed(said) for beat, said in runs]
    return f"{grading.entrant} reached {reached}: {'; '.join(parts)}"


def _result(meeting: Meeting, first: bool) -> str:
    """`71% of 200 games, 95% interval 64-77%` the first time, `71% of 200, 64-77%` after."""
    if meeting.games == 0:
        return "no games"
    score = meeting.score
    ends = f"{_percent(score.lower)}-{_percent(score.upper)}%"
    if first:
        return f"{_percent(score.value)}% of {meeting.games} games, 95% interval {ends}"
    return f"{_percent(score.value)}% of {meeting.games}, {ends}"


def _percent(value: float) -> str:
    return f"{100 * value:.0f}"


def _listed(items: Sequence[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def grades_json(gradings: Sequence[Grading], grades: Sequence[tuple[str, str]]) -> str:
    """grades.json: the grades lowest first, each graded entrant's grade, sentence and
    meetings; sorted keys, 6 decimals, so the same games always give the same bytes."""
    document = {
        "interval": INTERVAL,
        "grades": [{"grade": name, "bot": bot} for name, bot in grades],
        "graded": [{"entrant": g.entrant, "reached": g.reached, "sentence": sentence(g),
                    "against": [_meeting_json(m) for m in g.meetings]} for g in gradings],
    }
    return json.dumps(document, sort_keys=True, indent=2, allow_nan=False) + "\n"


def _meeting_json(meeting: Meeting) -> dict[str, Any]:
    score = meeting.score
    return {"grade": meeting.grade, "bot": meeting.bot, "games": meeting.games,
            "pairs": meeting.pairs, "beat": meeting.beat,
            "score": _rounded(score.value), "low": _rounded(score.lower),
            "high": _rounded(score.upper)}


def grades_csv(gradings: Sequence[Grading], grades: Sequence[tuple[str, str]]) -> str:
    """grades.csv: a teacher's gradebook, a row per graded entrant in config order with its
    grade (empty: none), each grade's bot's score, interval, games and beat, and the
    sentence; grades.json's figures (written with all their decimals, never as 6.2e-05),
    and never a cell a spreadsheet would run."""
    return grades_sheet(json.loads(grades_json(gradings, grades)))


def grades_sheet(document: Mapping[str, Any], students: Mapping[str, str] | None = None) -> str:
    """grades.csv from grades.json's document (or several merged: a class site's versions),
    so a gradebook says exactly what the JSON says, in the same columns; with `students`
    (entrant -> the student's name, a class site's) a first column names each one's student."""
    bots = [str(grade["bot"]) for grade in document["grades"]]
    named = ["student"] if students is not None else []
    header = [*named, "entrant", "reached"]
    for bot in bots:
        header += [f"score vs {bot}", f"low vs {bot}", f"high vs {bot}", f"games vs {bot}",
                   f"beat {bot}"]
    rows = []
    for graded in document["graded"]:
        row = [*([students.get(str(graded["entrant"]), "")] if students is not None else []),
               str(graded["entrant"]), graded["reached"] or ""]
        for meeting in graded["against"]:
            row += [*(f"{float(meeting[k]):.{DECIMALS}f}" for k in ("score", "low", "high")),
                    str(meeting["games"]), "yes" if meeting["beat"] else "no"]
        rows.append([*row, str(graded["sentence"])])
    return sheet([*header, "sentence"], rows, (*named, "entrant", "reached", "sentence"))


def _rounded(value: float) -> float:
    # Adding 0.0 turns -0.0 into 0.0, so a sign of zero never changes the bytes.
    return round(value, DECIMALS) + 0.0
