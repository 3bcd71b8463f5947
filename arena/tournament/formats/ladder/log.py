"""A ladder's log of versions (ladder-log.jsonl) and the ladder.json derived from it and the
games, in the schema arena/report/ladder/data.py reads.

It guarantees that ladder.json is a function of the log and games.jsonl only (no clock, no
order of arrival beyond the log's), through the season's running state
(arena/tournament/formats/ladder/state.py), and that only active versions are ranked while every
version's games stay counted; ladder.json holds the state now (small, read whole), and each
batch's ratings are a line of ladder-history.jsonl, written once. It must not play games
nor write files.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from arena.ratings.elo import Z95
from arena.ratings.summary import summarise
from arena.tournament.config import TournamentConfig
from arena.tournament.errors import TournamentError
from arena.tournament.formats.ladder.state import LadderState
from arena.tournament.run import safe_read

__all__ = ["BATCHES", "FINAL", "HISTORY", "LOG", "VOIDED", "batch_starts", "counted",
           "frozen_final", "history_line", "ladder_json", "last_batch", "last_rated",
           "read_batches", "read_final", "read_log", "standing", "versions_now", "voided"]

LOG = "ladder-log.jsonl"
"""The append-only log of versions in a ladder's results folder."""


BATCHES = "ladder-batches.jsonl"
"""The append-only log of batches: each batch's number, the games played before it, and
its tables (so a batch cut by kill -9 is finished as planned)."""

HISTORY = "ladder-history.jsonl"
"""The append-only history of ratings: a line per batch, the active players' ratings from
the games before it, written once as the batch begins (never recomputed)."""

FINAL = "ladder-final.json"
"""The final, once frozen: the top players, the games before it and its planned games."""

VOIDED = "ladder-voided.json"
"""The ids of games the organiser voided (a JSON list): kept in games.jsonl, which only
grows, but left out of the ranking, the derived tables and matchmaking."""


def voided(folder: Path) -> set[str]:
    """The ids of the games the folder's voided list names."""
    path = folder / VOIDED
    listed = safe_read.json_file(path) if path.exists() else []
    return {str(game) for game in listed} if isinstance(listed, list) else set()


def counted(folder: Path, games: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The games that count: all but those the folder's voided list names."""
    left_out = voided(folder)
    return [dict(g) for g in games if g["id"] not in left_out]


def read_batches(folder: Path) -> list[dict[str, Any]]:
    """Every batch logged, batch 1 first."""
    path = folder / BATCHES
    if not path.exists():
        return []
    return _json_lines(path)


def batch_starts(folder: Path) -> list[int]:
    """How many games had been played when each batch began, batch 1 first."""
    return [int(batch["after"]) for batch in read_batches(folder)]


def last_rated(folder: Path) -> dict[str, Any] | None:
    """ladder-history.jsonl's last line (the ratings the next fit starts from), read from
    the file's end: a run's start does not read the season's history."""
    return _last_line(folder / HISTORY)


def last_batch(folder: Path) -> dict[str, Any] | None:
    """ladder-batches.jsonl's last line (a batch a kill may have cut), read from its end."""
    return _last_line(folder / BATCHES)


def _last_line(path: Path) -> dict[str, Any] | None:
    """A JSON-lines file's last line, read from the file's end (None: no file, or empty)."""
    if not path.exists():
        return None
    with safe_read.open_regular(path) as handle:
        size = handle.seek(0, 2)
        handle.seek(max(0, size - safe_read.LINE_BYTES))
        tail = handle.read().rstrip(b"\n").rpartition(b"\n")[2]
    try:
        return safe_read.json_object(tail) if tail.strip() else None
    except safe_read.Unreadable as exc:
        raise safe_read.Unreadable(f"{path}: its last line: {exc}") from None


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


def frozen_final(folder: Path, final: int | None) -> dict[str, Any] | None:
    """The final already frozen in the folder, refused where the flags ask for another."""
    frozen = read_final(folder)
    if frozen is None:
        return None
    size = len(frozen["top"])
    if final is None:
        raise TournamentError(f"{folder}: the season's final of the top {size} is frozen; "
                              f"no more ladder games: run --final {size} to finish or show it")
    if final != size:
        raise TournamentError(f"{folder}: the final of the top {size} is frozen already; "
                              f"--final {final} cannot change it (run --final {size})")
    return frozen


def _players(events: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each version's latest event, by player, in the order the versions were made."""
    found: dict[str, dict[str, Any]] = {}
    for event in events:
        found.setdefault(str(event["player"]), {}).update(event)
    return found


def _ranking(state: LadderState, active: Sequence[str],
             min_games: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for player in active:
        fit = state.rating(player)
        rows.append({"player": player, "entrant": player.rpartition("@")[0],
                     "version": int(player.rpartition("@")[2]),
                     "games": state.games.get(player, 0), "faults": state.faulted.get(player, 0),
                     "elo": fit.rating, "low": fit.low, "high": fit.high})
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


def history_line(state: LadderState, batch: int, active: Sequence[str]) -> str:
    """The history's line of a batch about to be played: the active players' ratings from
    the games before it (those it was planned from), computed once, never again."""
    ratings = {p: None if (r := state.rating(p)).rating is None else [r.rating, r.low, r.high]
               for p in sorted(active)}
    return json.dumps({"batch": batch, "after": state.logged, "ratings": ratings},
                      sort_keys=True, separators=(",", ":"))


def standing(cfg: TournamentConfig, events: Sequence[Mapping[str, Any]], state: LadderState,
             top: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ranking of the active players over the ladder's games, and the adjacent pairs
    of its top `top` + 1 ranked that the games cannot yet tell apart at 95%."""
    versions = _players(events)
    active = [p for p, v in versions.items() if v["status"] == "active"]
    ranking = _ranking(state, active, cfg.format.min_games or 0)
    order = [r["player"] for r in ranking if not r["provisional"]][: top + 1]
    fit = state.fit()
    unresolved = []
    for above, below in pairwise(order):
        difference = (state.rating(above).rating or 0.0) - (state.rating(below).rating or 0.0)
        error = math.sqrt(max(fit.covariance(above, above) + fit.covariance(below, below)
                              - 2 * fit.covariance(above, below), 0.0))
        z = difference / error if error > 0 else 0.0
        if z < Z95:
            unresolved.append({"above": above, "below": below, "z": round(z, 2)})
    return ranking, unresolved


def _final(final: Mapping[str, Any] | None,
           finals: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The final's state: its top, games planned and played, its ranking once complete
    (the standings of the final's games: batch Elo, then win rate, then name)."""
    if final is None:
        return None
    complete = len(finals) >= int(final["games"])
    ranking = [row.entrant for row in summarise(finals, final["top"]).standings()]
    return {"top": list(final["top"]), "games": int(final["games"]), "played": len(finals),
            "complete": complete, "ranking": ranking if complete else None}


def ladder_json(cfg: TournamentConfig, events: Sequence[Mapping[str, Any]],
                state: LadderState, final: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ladder's state as the report and the site read it: the ranking now, every
    version, the final (each batch's ratings are ladder-history.jsonl's)."""
    fmt = cfg.format
    versions = _players(events)
    top = fmt.band or 4
    ranking, unresolved = standing(cfg, events, state, top)
    rows = [{"entrant": v["entrant"], "version": v["version"], "player": p,
             "digest": v["digest"], "source": v["source"], "status": v["status"],
             "reason": v["reason"] if v["status"] == "rejected" else None,
             "after": min(e["after"] for e in events if e["player"] == p),
             "games": state.games.get(p, 0)} for p, v in versions.items()]
    return {"format": "ladder", "rules": cfg.rules, "seats": fmt.seats,
            "min_games": fmt.min_games, "games": state.counted, "batches": state.batches,
            "top": top, "ranking": ranking, "unresolved": unresolved,
            "versions": sorted(rows, key=lambda r: (r["entrant"], r["version"])),
            "final": _final(final, state.finals)}
