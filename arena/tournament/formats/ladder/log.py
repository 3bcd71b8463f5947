"""A ladder's log of versions (ladder-log.jsonl) and the ladder.json derived from it and the
games, in the schema arena/report/ladder/data.py reads.

It guarantees that ladder.json is a function of the log and games.jsonl only (no clock, no
order of arrival beyond the log's), and that only active versions are ranked while every
version's games stay counted. It must not play games nor write files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.ratings.confidence import gaps
from arena.ratings.summary import summarise
from arena.tournament.config import TournamentConfig
from arena.tournament.run import safe_read

__all__ = ["BATCHES", "FINAL", "LOG", "VOIDED", "batch_of", "batch_starts", "counted",
           "ladder_json", "read_batches", "read_final", "read_log", "standing", "versions_now"]

LOG = "ladder-log.jsonl"
"""The append-only log of versions in a ladder's results folder."""


BATCHES = "ladder-batches.jsonl"
"""The append-only log of batches: each batch's number, the games played before it, and
its tables (so a batch cut by kill -9 is finished as planned)."""

FINAL = "ladder-final.json"
"""The final, once frozen: the top players, the games before it and its planned games."""

VOIDED = "ladder-voided.json"
"""The ids of games the organiser voided (a JSON list): kept in games.jsonl, which only
grows, but left out of the ranking, the derived tables and matchmaking."""


def counted(folder: Path, games: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The games that count: all but those the folder's voided list names."""
    path = folder / VOIDED
    listed = safe_read.json_file(path) if path.exists() else []
    voided = {str(game) for game in listed} if isinstance(listed, list) else set()
    return [dict(g) for g in games if g["id"] not in voided]


def read_batches(folder: Path) -> list[dict[str, Any]]:
    """Every batch logged, batch 1 first."""
    path = folder / BATCHES
    if not path.exists():
        return []
    return _json_lines(path)


def batch_starts(folder: Path) -> list[int]:
    """How many games had been played when each batch began, batch 1 first."""
    return [int(batch["after"]) for batch in read_batches(folder)]


def batch_of(starts: Sequence[int], game: int) -> int:
    """The batch (from 1) of the game at this 0-based line of games.jsonl."""
    return sum(start <= game for start in starts)


def read_log(folder: Path) -> list[dict[str, Any]]:
    """Every event of the log, oldest first (none for a new folder)."""
    path = folder / LOG
    if not path.exists():
        return []
    return _json_lines(path)


def _json_lines(path: Path) -> list[dict[str, Any]]:
    """A JSON-lines file of the folder, read as a stranger's (arena.tournament.run.safe_read):
    a regular file, each line an object of bounded length and depth."""
    with safe_read.open_regular(path) as handle:
        found = []
        for number, line in enumerate(safe_read.lines(handle), 1):
            try:
                found.append(safe_read.json_object(line) if line.strip() else None)
            except safe_read.Unreadable as exc:
                raise safe_read.Unreadable(f"{path}:{number}: {exc}") from None
    return [item for item in found if item is not None]


def versions_now(events: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each entrant's latest accepted event: its current version and status (a rejected
    version never replaces the one before it)."""
    return {str(e["entrant"]): dict(e) for e in events if e["status"] != "rejected"}


def read_final(folder: Path) -> dict[str, Any] | None:
    """The frozen final (its top, the games before it, its planned games), or None."""
    path = folder / FINAL
    return safe_read.json_file(path) if path.exists() else None


def _players(events: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each version's latest event, by player, in the order the versions were made."""
    found: dict[str, dict[str, Any]] = {}
    for event in events:
        found.setdefault(str(event["player"]), {}).update(event)
    return found


def _ranking(summary: Any, games: Sequence[Mapping[str, Any]], active: Sequence[str],
             min_games: int) -> list[dict[str, Any]]:
    fit = {row.entrant: row for row in summary.elo()}
    rows = []
    for player in active:
        mine = [g for g in games if player in g["entrants"]]
        faults = sum(any(g["entrants"][f["seat"]] == player for f in g["faults"]) for g in mine)
        row = fit[player]
        rows.append({"player": player, "entrant": player.rpartition("@")[0],
                     "version": int(player.rpartition("@")[2]), "games": len(mine),
                     "faults": faults, "elo": row.rating, "low": row.low, "high": row.high})
    ranked = sorted((r for r in rows if r["games"] >= min_games and r["elo"] is not None),
                    key=lambda r: (-r["elo"], r["player"]))
    waiting = sorted((r for r in rows if r not in ranked),
                     key=lambda r: (-(r["elo"] or -math.inf), r["player"]))
    for number, row in enumerate(ranked, 1):
        above = ranked[number - 2] if number > 1 else None
        row.update(rank=number, provisional=False,
                   tied=above is not None and above["low"] <= row["high"])
    for row in waiting:
        row.update(rank=None, provisional=True, tied=False)
    return ranked + waiting


def _history(ladder: Sequence[Mapping[str, Any]], names: Sequence[str],
             active: Sequence[str], starts: Sequence[int]) -> list[dict[str, Any]]:
    """Each batch's ratings of the active players from the games before it."""
    history = []
    for number, after in enumerate(starts, 1):
        fit = {r.entrant: r for r in summarise(ladder[:after], names).elo()}
        history.append({"batch": number, "after": after, "ratings": {
            p: None if fit[p].rating is None else [fit[p].rating, fit[p].low, fit[p].high]
            for p in active}})
    return history


def standing(cfg: TournamentConfig, events: Sequence[Mapping[str, Any]],
             games: Sequence[Mapping[str, Any]], top: int) -> tuple[list[dict[str, Any]],
                                                                    list[dict[str, Any]]]:
    """The ranking of the active players over the ladder's games, and the adjacent pairs
    of its top `top` + 1 ranked that the games cannot yet tell apart at 95%."""
    ladder = [g for g in games if g["stage"] == "ladder"]
    versions = _players(events)
    active = [p for p, v in versions.items() if v["status"] == "active"]
    summary = summarise(ladder, sorted({*versions, *(n for g in ladder for n in g["entrants"])}))
    ranking = _ranking(summary, ladder, active, cfg.format.min_games or 0)
    order = [r["player"] for r in ranking if not r["provisional"]][: top + 1]
    unresolved = [{"above": g.above, "below": g.below, "z": round(g.z, 2)}
                  for g in gaps(summary, order) if not g.separated]
    return ranking, unresolved


def _final(final: Mapping[str, Any] | None,
           games: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The final's state: its top, games planned and played, its ranking once complete
    (the standings of the final's games: batch Elo, then win rate, then name)."""
    if final is None:
        return None
    finals = [g for g in games if g["stage"] == "final"]
    complete = len(finals) >= int(final["games"])
    ranking = [row.entrant for row in summarise(finals, final["top"]).standings()]
    return {"top": list(final["top"]), "games": int(final["games"]), "played": len(finals),
            "complete": complete, "ranking": ranking if complete else None}


def ladder_json(cfg: TournamentConfig, events: Sequence[Mapping[str, Any]],
                games: Sequence[Mapping[str, Any]], starts: Sequence[int],
                final: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ladder's summary as the report reads it, after every batch played so far."""
    fmt = cfg.format
    ladder = [g for g in games if g["stage"] == "ladder"]
    versions = _players(events)
    active = [p for p, v in versions.items() if v["status"] == "active"]
    names = sorted({*versions, *(n for g in ladder for n in g["entrants"])})
    top = fmt.band or 4
    ranking, unresolved = standing(cfg, events, games, top)
    rows = [{"entrant": v["entrant"], "version": v["version"], "player": p,
             "digest": v["digest"], "source": v["source"], "status": v["status"],
             "reason": v["reason"] if v["status"] == "rejected" else None,
             "after": min(e["after"] for e in events if e["player"] == p),
             "games": sum(p in g["entrants"] for g in ladder)} for p, v in versions.items()]
    return {"format": "ladder", "rules": cfg.rules, "seats": fmt.seats,
            "min_games": fmt.min_games, "games": len(games), "batches": len(starts),
            "top": top, "ranking": ranking, "unresolved": unresolved,
            "history": _history(ladder, names, active, starts),
            "versions": sorted(rows, key=lambda r: (r["entrant"], r["version"])),
            "final": _final(final, games)}
