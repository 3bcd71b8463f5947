"""The bluffing statistics of each entrant: how often and how high it claims, how often its
claims hold when challenged, how often its challenges are right, from the events that
arena.report.scan counted in the replays.

This module must not read files or write HTML: it turns a tally into BluffStats values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena import hands
from arena.report.scan import TallyKey
from arena.rules import description_of
from arena.rules.base import Description

__all__ = [
    "BluffStats",
    "bluff_stats",
]


@dataclass(frozen=True, slots=True)
class BluffStats:
    """How one entrant claimed and challenged over every replay of a tournament."""

    entrant: str
    claims: int = 0
    blind: int = 0
    """Claims made without looking (dice rule sets: passing blind)."""
    claim_index_total: int = 0
    """Sum of the claims' positions in the rule set's claim order (0 = lowest)."""
    categories: tuple[tuple[str, int], ...] = ()
    """Claims per hand category, in the order of the rule set's claims."""
    challenged: int = 0
    """Its claims that the next player challenged (rejected, in cards)."""
    held: int = 0
    """... of which the claim held: it was telling the truth."""
    challenges: int = 0
    """Challenges it made."""
    right: int = 0
    """... that caught a claim that did not hold."""

    @property
    def mean_claim_index(self) -> float | None:
        """Average position of its claims in the claim order, or None without claims."""
        return self.claim_index_total / self.claims if self.claims else None

    @property
    def held_rate(self) -> float | None:
        """How often its claims were true when challenged."""
        return self.held / self.challenged if self.challenged else None

    @property
    def right_rate(self) -> float | None:
        """How often its challenges were right."""
        return self.right / self.challenges if self.challenges else None


def bluff_stats(
    tally: Mapping[TallyKey, int], entrants: Sequence[str], rules: Description | str,
    straight_over_full: bool,
) -> tuple[BluffStats, ...]:
    """Turn counted claim and challenge events into per-entrant statistics, in entrant order."""
    space = hands.claim_space(description_of(rules).hand, straight_over_full)
    index = {str(claim): i for i, claim in enumerate(space.claims)}
    order = {hands.CATEGORY_TEXT[c.category]: i for i, c in reversed(list(enumerate(space.claims)))}
    rows: dict[str, dict[str, Any]] = {name: {"categories": Counter()} for name in entrants}
    for (kind, who, against, claim, blind, holds), count in tally.items():
        _count_event(rows, (kind, who, against, claim, blind, holds), count, index)
    return tuple(_bluff_row(name, rows[name], order) for name in entrants)


def _count_event(
    rows: dict[str, dict[str, Any]], key: TallyKey, count: int, index: Mapping[str, int]
) -> None:
    kind, who, against, claim, blind, holds = key
    if kind == "challenge":
        _add(rows, who, "challenges", count)
        _add(rows, who, "right", 0 if holds else count)
        _add(rows, against, "challenged", count)
        _add(rows, against, "held", count if holds else 0)
        return
    _add(rows, who, "claims", count)
    _add(rows, who, "blind", count if blind else 0)
    _add(rows, who, "claim_index_total", index[claim] * count)
    rows.setdefault(who, {"categories": Counter()})["categories"][claim.split()[0]] += count


def _add(rows: dict[str, dict[str, Any]], who: str, key: str, count: int) -> None:
    row = rows.setdefault(who, {"categories": Counter()})
    row[key] = row.get(key, 0) + count


def _bluff_row(name: str, row: Mapping[str, Any], order: Mapping[str, int]) -> BluffStats:
    categories = tuple(sorted(row["categories"].items(), key=lambda item: order[item[0]]))
    numbers = {k: v for k, v in row.items() if k != "categories"}
    return BluffStats(name, categories=categories, **numbers)
