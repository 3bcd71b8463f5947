"""The teacher's grades: every student's bots against the class's graded bots, exactly as
each version's grades.json says, and the same as a CSV for the school's gradebook (arena
run's grades.csv columns, written by arena's one CSV writer, so no cell runs as a formula).

Staff only: anyone else gets 404, as for a page that does not exist. In a ladder there are
no grades, and the page says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from arena.ratings.grades import grades_sheet
from arena.site.contest import standings
from arena.site.contest.contest import Contest, current
from arena.site.contest.models import Bot, Version
from arena.tournament.run import safe_read

__all__ = ["Graded", "class_grades", "grades_csv", "grades_page"]



@dataclass(frozen=True, slots=True)
class Graded:
    """A student's bot: its version graded (None: none active yet) and its grades.json row
    (None: not graded yet, or its file unreadable)."""

    student: User
    bot: Bot | None
    version: Version | None
    row: Mapping[str, Any] | None


def _staff(request: HttpRequest) -> None:
    """404 for anyone but the staff: the grades are the teacher's."""
    if not (request.user.is_authenticated and request.user.is_staff):
        raise Http404("no such page")


def version_grades(contest: Contest, version: Version) -> Mapping[str, Any] | None:
    """The version's row of its own gauntlet's grades.json (Contest.gauntlet), None when it
    has none yet or it cannot be read."""
    try:
        graded = standings.graded(contest.gauntlet(version.entrant))
    except safe_read.Unreadable:
        return None
    named = [row for row in graded if row.get("entrant") in (version.entrant, version.bot.name)]
    if len(named) == 1:
        return named[0]
    return graded[0] if len(graded) == 1 else None


def class_grades(contest: Contest) -> list[Graded]:
    """A row per student and bot (a student without a bot too), by name, each bot's active
    version graded."""
    rows = []
    students = User.objects.filter(is_staff=False).order_by("username")
    for student in students.prefetch_related("bots__versions"):
        bots = sorted(student.bots.all(), key=lambda b: b.key)
        if not bots:
            rows.append(Graded(student, None, None, None))
        for bot in bots:
            active = [v for v in bot.versions.all() if v.status == Version.Status.ACTIVE]
            version = max(active, key=lambda v: v.number) if active else None
            row = version_grades(contest, version) if version is not None else None
            rows.append(Graded(student, bot, version, row))
    return rows


def _document(contest: Contest, rows: list[Graded]) -> dict[str, Any]:
    """One grades.json document of every graded version, for the gradebook."""
    return {"grades": [{"grade": name, "bot": bot} for name, bot in contest.config.grades],
            "graded": [g.row for g in rows if g.row is not None]}


def grades_page(request: HttpRequest) -> HttpResponse:
    """Every student's grade against the graded bots (a ladder has none)."""
    _staff(request)
    contest = current()
    rows = class_grades(contest) if contest.graded else []
    return render(request, "contest/grades.html", {"rows": rows, "grades": contest.config.grades})


def grades_csv(request: HttpRequest) -> HttpResponse:
    """The gradebook as CSV: the student, then arena run's grades.csv columns, a row per
    graded version."""
    _staff(request)
    contest = current()
    if not contest.graded:
        raise Http404("no grades in this contest")
    rows = class_grades(contest)
    students = {g.bot.name: g.student.get_username() for g in rows if g.bot is not None}
    text = grades_sheet(_document(contest, rows), students)
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="grades.csv"'
    return response
