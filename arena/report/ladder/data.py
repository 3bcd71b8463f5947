"""A ladder's ladder.json as the report reads it: its ranking (provisional players last),
the pairs not yet separated, every version with its status, and the final; and
ladder-history.jsonl's ratings of every batch; checked and made into small frozen values
(the contract of issue 17, section 3).

This module guarantees that every value the page shows comes from these files as written:
it ranks, rates and reorders nothing. It must not read files (arena/report/folder.py reads
them and hands their JSON here) nor write markup (arena/report/ladder/sections.py draws
these).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "HISTORY",
    "LADDER",
    "FinalResult",
    "LadderView",
    "Point",
    "Standing",
    "Unresolved",
    "Version",
    "label",
    "read_ladder",
]

LADDER = "ladder.json"
"""The ladder's derived summary in its results folder (written by the ladder's runner)."""
HISTORY = "ladder-history.jsonl"
"""Each batch's ratings, a line a batch, appended as it begins (the ladder's runner's)."""


def label(player: str) -> str:
    """A player as people say it: `alice@2` is `alice v2` (no entrant name holds an `@`)."""
    entrant, at, version = player.rpartition("@")
    return f"{entrant} v{version}" if at else player


@dataclass(frozen=True, slots=True)
class Standing:
    """One active player's row of the ranking; `rank` is None while it is provisional."""

    rank: int | None
    player: str
    games: int
    faults: int
    elo: float | None
    low: float | None
    high: float | None
    tied: bool
    provisional: bool


@dataclass(frozen=True, slots=True)
class Unresolved:
    """Two neighbours of the top whose ratings the games cannot yet tell apart at 95%."""

    above: str
    below: str
    z: float


@dataclass(frozen=True, slots=True)
class Point:
    """A player's rating (with its 95% interval) when `after` games had been played."""

    after: int
    elo: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class Version:
    """One version of an entrant: accepted (active or retired) or rejected with its reason."""

    entrant: str
    version: int
    player: str
    digest: str
    source: str
    status: str
    reason: str | None
    games: int


@dataclass(frozen=True, slots=True)
class FinalResult:
    """The frozen top's round robin: games played of planned, and its ranking once complete."""

    top: tuple[str, ...]
    games: int
    played: int
    complete: bool
    ranking: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class LadderView:
    """Everything the ladder's sections show."""

    rules: str
    seats: int
    min_games: int
    games: int
    batches: int
    top: int
    ranking: tuple[Standing, ...]
    unresolved: tuple[Unresolved, ...]
    history: Mapping[str, tuple[Point, ...]]
    """Each player's ratings in the order of the batches (a batch without one is skipped)."""
    versions: tuple[Version, ...]
    final: FinalResult | None

    @property
    def separated(self) -> bool:
        """Whether the top `top` are told apart at 95%: no pair of them unresolved and none
        of them provisional (and there is someone to rank)."""
        ranked = sum(not row.provisional for row in self.ranking)
        return bool(ranked) and not self.unresolved and ranked >= min(self.top, len(self.ranking))


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def _standing(row: Mapping[str, Any]) -> Standing:
    rank = row["rank"]
    return Standing(
        rank=None if rank is None else int(rank),
        player=str(row["player"]),
        games=int(row["games"]),
        faults=int(row["faults"]),
        elo=_number(row["elo"]),
        low=_number(row["low"]),
        high=_number(row["high"]),
        tied=bool(row["tied"]),
        provisional=bool(row["provisional"]),
    )


def _version(row: Mapping[str, Any]) -> Version:
    reason = row.get("reason")
    return Version(
        entrant=str(row["entrant"]),
        version=int(row["version"]),
        player=str(row["player"]),
        digest=str(row["digest"]),
        source=str(row["source"]),
        status=str(row["status"]),
        reason=None if reason is None else str(reason),
        games=int(row["games"]),
    )


def _history(batches: Sequence[Mapping[str, Any]]) -> dict[str, tuple[Point, ...]]:
    """Each player's points over the batches, in batch order; a null rating (no game yet)
    is no point. A batch written twice (planned again after a kill) counts once."""
    lines: dict[str, list[Point]] = {}
    once = {int(b["batch"]): b for b in batches}
    for batch in (once[number] for number in sorted(once)):
        after = int(batch["after"])
        for player, rating in sorted(batch["ratings"].items()):
            if rating is not None:
                elo, low, high = (float(v) for v in rating)
                lines.setdefault(str(player), []).append(Point(after, elo, low, high))
    return {player: tuple(points) for player, points in lines.items()}


def _final(final: Mapping[str, Any] | None) -> FinalResult | None:
    if final is None:
        return None
    ranking = final.get("ranking")
    return FinalResult(
        top=tuple(str(p) for p in final["top"]),
        games=int(final["games"]),
        played=int(final["played"]),
        complete=bool(final["complete"]),
        ranking=None if ranking is None else tuple(str(p) for p in ranking),
    )


def read_ladder(raw: Mapping[str, Any],
                history: Sequence[Mapping[str, Any]] = ()) -> LadderView:
    """ladder.json's content and ladder-history.jsonl's lines checked; a KeyError,
    ValueError or TypeError names what is wrong (the folder reader turns it into one line)."""
    if raw.get("format") != "ladder":
        raise ValueError(f"ladder.json: format is {raw.get('format')!r}, not 'ladder'")
    return LadderView(
        rules=str(raw["rules"]),
        seats=int(raw["seats"]),
        min_games=int(raw["min_games"]),
        games=int(raw["games"]),
        batches=int(raw["batches"]),
        top=int(raw["top"]),
        ranking=tuple(_standing(row) for row in raw["ranking"]),
        unresolved=tuple(
            Unresolved(str(u["above"]), str(u["below"]), float(u["z"]))
            for u in raw["unresolved"]
        ),
        history=_history(history),
        versions=tuple(_version(row) for row in raw["versions"]),
        final=_final(raw["final"]),
    )
