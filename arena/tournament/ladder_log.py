"""A ladder's log of versions (ladder-log.jsonl) and the ladder.json derived from it and the
games, in the schema arena/report/ladder_file.py reads.

It guarantees that ladder.json is a function of the log and games.jsonl only (no clock, no
order of arrival beyond the log's), and that only active versions are ranked while every
version's games stay counted. It must not play games nor write files.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.ratings.confidence import gaps
from arena.ratings.summary import summarise
from arena.tournament.config import TournamentConfig

__all__ = ["BATCHES", "LOG", "batch_of", "batch_starts", "ladder_json", "read_log",
           "versions_now"]

LOG = "ladder-log.jsonl"
"""The append-only log of versions in a ladder's results folder."""


BATCHES = "ladder-batches.jsonl"
"""The append-only log of batches: each batch's number and the games played before it."""


def batch_starts(folder: Path) -> list[int]:
    """How many games had been played when each batch began, batch 1 first."""
    path = folder / BATCHES
    if not path.exists():
        return []
    return [json.loads(line)["after"] for line in path.read_text("utf-8").splitlines() if line]


def batch_of(starts: Sequence[int], game: int) -> int:
    """The batch (from 1) of the game at this 0-based line of games.jsonl."""
    return sum(start <= game for start in starts)


def read_log(folder: Path) -> list[dict[str, Any]]:
    """Every event of the log, oldest first (none for a new folder)."""
    path = folder / LOG
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def versions_now(events: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each entrant's latest event: its current version and status."""
    return {str(e["entrant"]): dict(e) for e in events}


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


def ladder_json(cfg: TournamentConfig, events: Sequence[Mapping[str, Any]],
                games: Sequence[Mapping[str, Any]], starts: Sequence[int]) -> dict[str, Any]:
    """The ladder's summary as the report reads it, after every batch played so far."""
    fmt = cfg.format
    ladder = [g for g in games if g["stage"] == "ladder"]
    versions = _players(events)
    active = [p for p, v in versions.items() if v["status"] == "active"]
    names = sorted({*versions, *(n for g in ladder for n in g["entrants"])})
    summary = summarise(ladder, names)
    ranking = _ranking(summary, ladder, active, fmt.min_games or 0)
    top = fmt.band or 4
    order = [r["player"] for r in ranking if not r["provisional"]][: top + 1]
    unresolved = [{"above": g.above, "below": g.below, "z": round(g.z, 2)}
                  for g in gaps(summary, order) if not g.separated]
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
            "final": None}
