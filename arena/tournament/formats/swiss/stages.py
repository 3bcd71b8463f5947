"""A Swiss's stages.json: every round's tables, byes, scores and repeats, the standings
after each complete round, and, once the last round is complete, the ranking.

The ranking is the one the standings follow: score, then Buchholz, then the batch Elo
rating over every Swiss game (arena.ratings.summary, order-independent), then name. Exact
scores are written as floats at the standings' decimals. This module never plays a game,
never touches a results folder and never pairs a round
(arena/tournament/formats/swiss/rounds.py does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from arena.ratings.standings import DECIMALS
from arena.ratings.summary import summarise
from arena.tournament.formats.swiss.rounds import Round, Swiss

__all__ = ["swiss_stages"]


def swiss_stages(
    swiss: Swiss, names: Sequence[str], results: Mapping[str, Sequence[int]]
) -> dict[str, Any]:
    """The document for stages.json, so a reader sees why each round was seated as it was
    and how the ranking was decided."""
    played = swiss.rounds_played(results)
    stages = [_round(swiss, names, played[:i], this) for i, this in enumerate(played, 1)]
    document: dict[str, Any] = {"format": "swiss", "stages": stages, "ranking": None}
    if not swiss.finished(played):
        return document
    games = [
        {"id": g.id, "entrants": [names[i] for i in g.seats], "placements": list(results[g.id])}
        for r in played for t in r.tables for g in t.games
    ]
    index = {name: i for i, name in enumerate(names)}
    elo = {index[row.entrant]: round(row.rating, DECIMALS)
           for row in summarise(games, names).elo() if row.rating is not None}
    ranking = [names[i] for i in swiss.ranking(played, elo, names)]
    after = {row["entrant"]: row for row in stages[-1]["standings"]}
    document["ranking"] = ranking
    document["standings"] = [{**after[name], "elo": elo.get(index[name])} for name in ranking]
    return document


def _round(
    swiss: Swiss, names: Sequence[str], so_far: Sequence[Round], this: Round
) -> dict[str, Any]:
    tables = [
        {
            "table": table.number,
            "entrants": [names[i] for i in table.entrants],
            "games": [g.id for g in table.games],
            "scores": [_number(s) for s in table.scores] if table.scores else None,
        }
        for table in this.tables
    ]
    standing = None
    if this.complete:
        standing = [
            {"entrant": names[row.entrant], "score": _number(row.score),
             "buchholz": _number(row.buchholz), "byes": row.byes}
            for row in swiss.standings(so_far)
        ]
    return {"name": this.name, "format": "swiss", "complete": this.complete, "tables": tables,
            "byes": [names[i] for i in this.byes], "repeats": this.repeats,
            "standings": standing}


def _number(value: Fraction) -> float:
    """An exact score as stages.json writes it: a float at the standings' decimals."""
    return round(float(value), DECIMALS)
