"""What the pages show of the standings, read cheaply: a ladder's ranking (ladder.json's
rows), or for a class one row per student's active version with its grade, its score
against each champion and its games, and each student's grades exactly as its version's
grades.json says. Files are read through arena.tournament.safe_read, cached by mtime."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.site.contest.contest import Contest, current
from arena.site.contest.models import Version
from arena.tournament import safe_read
from arena.tournament.results import GRADES

__all__ = ["grades", "leaderboard"]

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
    value = safe_read.json_file(path)
    _CACHE[path] = (status.st_mtime_ns, status.st_size, value)
    return value


def leaderboard(contest: Contest | None = None) -> list[dict[str, Any]]:
    """The leaderboard's rows, best first."""
    contest = contest or current()
    if not contest.graded:
        ladder = _read(contest.results / "ladder.json") or {}
        return list(ladder.get("ranking", []))
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
        folder = contest.results / "versions" / version.player
        for graded in _graded(folder):
            if graded["entrant"] == version.bot.name:
                found.append(_row(graded, version.bot.name, version.player, False,
                                  version.bot.owner.get_username()))
    for graded in _graded(contest.results):
        found.append(_row(graded, graded["entrant"], graded["entrant"], True, ""))
    return found


def _graded(folder: Path) -> list[dict[str, Any]]:
    document = _read(folder / GRADES) or {}
    return list(document.get("graded", []))


def _row(graded: dict[str, Any], student: str, player: str, house: bool,
         owner: str) -> dict[str, Any]:
    return {"student": student, "player": player, "house": house, "owner": owner,
            "reached": graded["reached"], "sentence": graded["sentence"],
            "against": graded["against"]}
