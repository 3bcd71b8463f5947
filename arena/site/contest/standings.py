"""What the pages show of the standings, read cheaply: a ladder's ranking (ladder.json's
rows), or for a class one row per student's active version with its grade, its score
against each champion and its games, and each student's grades exactly as its version's
grades.json says. Files are read whole through arena.tournament.run.safe_read, cached by
mtime (ladder.json is the ladder's state now, a few KB; each batch's history is another file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.site.contest.contest import Contest, current
from arena.site.contest.models import Version
from arena.tournament.run import safe_read
from arena.tournament.run.results import GRADES

__all__ = ["graded", "grades", "leaderboard", "ranking"]

_CACHE: dict[Path, tuple[int, int, Any]] = {}


def _read(path: Path) -> Any:
    """A results file's JSON, read again only when its mtime or size changed (None: absent)."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    cached = _CACHE.get(path)
    if cached is not None and cached[:2] == (status.st_mtime_ns, status.st_size):
        return cached[2]
    value = safe_read.json_file(path, follow=False)
    _CACHE[path] = (status.st_mtime_ns, status.st_size, value)
    return value


def ranking(contest: Contest) -> list[dict[str, Any]]:
    """A ladder's ranking as ladder.json has it now (empty before the first batch)."""
    ladder = _read(contest.results / "ladder.json") or {}
    rows = ladder.get("ranking", []) if isinstance(ladder, dict) else None
    if not isinstance(rows, list):
        raise safe_read.Unreadable(f"{contest.results / 'ladder.json'}: no ranking")
    return [row for row in rows if isinstance(row, dict)]


def leaderboard(contest: Contest | None = None) -> list[dict[str, Any]]:
    """The leaderboard's rows, best first."""
    contest = contest or current()
    if not contest.graded:
        return ranking(contest)
    rows = []
    for row in grades(contest):
        against = {m["bot"]: m["score"] for m in row["against"]}
        rows.append({"student": row["student"], "player": row["player"],
                     "house": row["house"], "grade": row["reached"], "against": against,
                     "games": sum(m["games"] for m in row["against"])})
    return rows


def grades(contest: Contest | None = None) -> list[dict[str, Any]]:
    """Each student's grade and meetings as its grades.json says: the site's students' active
    versions, then the config's own (house) students."""
    contest = contest or current()
    found = []
    active = (Version.objects.filter(status=Version.Status.ACTIVE, bot__disabled=False)
              .select_related("bot", "bot__owner").order_by("bot__name"))
    for version in active:
        folder = contest.gauntlet(version.player)
        for row in graded(folder):
            if row["entrant"] == version.bot.name:
                found.append(_row(row, version.bot.name, version.player, False,
                                  version.bot.owner.get_username()))
    for row in graded(contest.results):
        found.append(_row(row, row["entrant"], row["entrant"], True, ""))
    return found


def graded(folder: Path) -> list[dict[str, Any]]:
    """The graded rows of a results folder's grades.json (empty before it is written)."""
    document = _read(folder / GRADES) or {}
    rows = document.get("graded", []) if isinstance(document, dict) else []
    return [row for row in rows if isinstance(row, dict)] if isinstance(rows, list) else []



def _row(row: dict[str, Any], student: str, player: str, house: bool,
         owner: str) -> dict[str, Any]:
    return {"student": student, "player": player, "house": house, "owner": owner,
            "reached": row["reached"], "sentence": row["sentence"], "against": row["against"]}
