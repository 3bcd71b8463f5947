"""The spread of each entrant's final scores over its games: a box plot in the manner of
Axelrod's tournament plots (median, quartiles, whiskers to the extremes, the mean), one
row per entrant in standings order, so a lucky average and a steady one look different.

Only counts are held (an entrant's scores are small whole numbers), never the games: the
report's one pass counts them (arena.report.increment), or the log is read once more. The
names and numbers are HTML beside a small inline SVG per row, so the plot stays legible at
60 entrants and on a phone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.report.folder import Folder, game_rows
from arena.report.markup import escape

__all__ = ["Spread", "quantile", "score_spread", "spreads"]


@dataclass(frozen=True, slots=True)
class Spread:
    """One entrant's final scores over its games, as a box plot draws them."""

    entrant: str
    games: int
    low: int
    q1: float
    median: float
    q3: float
    high: int
    mean: float


def quantile(counts: Mapping[int, int], p: float) -> float:
    """The p-quantile of the values counted, interpolated between neighbours (as
    statistics.quantiles with method="inclusive" and numpy's default)."""
    at = p * (sum(counts.values()) - 1)
    below = int(at)
    low, high = _nth(counts, below), _nth(counts, below + 1)
    return low + (at - below) * (high - low)


def _nth(counts: Mapping[int, int], k: int) -> int:
    """The k-th smallest value counted (0-based), or the largest if there are fewer."""
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        if seen > k:
            return value
    return max(counts)


def spreads(data: Folder, scores: Mapping[str, Counter[int]] | None = None) -> list[Spread]:
    """Each entrant's spread, in standings order; an entrant without games is left out.
    `scores`: each name's scores counted already (arena.report.increment), else the log is
    read again."""
    counts: dict[str, Counter[int]] = {
        name: Counter() if scores is None else scores.get(name, Counter())
        for name in data.entrants}  # fmt: skip
    for game in game_rows(data.path, data.log.games) if scores is None else ():
        for name, score in zip(game.entrants, game.scores, strict=True):
            if name in counts:
                counts[name][score] += 1
    found = []
    for name, counted in counts.items():
        total = sum(counted.values())
        if not total:
            continue
        mean = sum(v * n for v, n in counted.items()) / total
        found.append(Spread(name, total, min(counted), quantile(counted, 0.25),
                            quantile(counted, 0.5), quantile(counted, 0.75), max(counted),
                            mean))  # fmt: skip
    return found


def _box(s: Spread, low: int, high: int) -> str:
    def x(value: float) -> str:
        return f"{100 * (value - low) / ((high - low) or 1):.2f}"

    return (
        '<svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">'
        f'<line class="whisker" x1="{x(s.low)}" x2="{x(s.high)}" y1="5" y2="5"/>'
        f'<rect class="box" x="{x(s.q1)}" y="1.5" width="{float(x(s.q3)) - float(x(s.q1)):.2f}" '
        'height="7"/>'
        f'<line class="median" x1="{x(s.median)}" x2="{x(s.median)}" y1="0.5" y2="9.5"/>'
        f'<rect class="mean" x="{float(x(s.mean)) - 0.6:.2f}" y="3.5" width="1.2" height="3"/>'
        "</svg>"
    )


def _number(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.1f}"


def _axis(low: int, high: int) -> str:
    step = max(1, round((high - low) / 8))
    ticks = "".join(
        f'<span style="left:{100 * (v - low) / ((high - low) or 1):.2f}%">{v}</span>'
        for v in range(low, high + 1, step)
    )
    return (
        f'<div class="sp-row sp-axis"><span></span><div class="ticks">{ticks}</div>'
        "<span></span></div>"
    )


def score_spread(data: Folder, found: Sequence[Spread] | None = None) -> str:
    """The plot as HTML: a row per entrant, its name, its box and its median (quartiles)."""
    rows = spreads(data) if found is None else found
    if not rows:
        return '<p class="note">No games yet.</p>'
    low, high = min(s.low for s in rows), max(s.high for s in rows)
    word = data.description.score_word
    better = "fewest best" if "penalty" in word else "most best"
    body = "".join(
        f'<div class="sp-row" data-entrant="{escape(s.entrant)}">'
        f'<span class="sp-name">{escape(s.entrant)}</span>{_box(s, low, high)}'
        f'<span class="sp-num">{_number(s.median)}<small>{_number(s.q1)}–{_number(s.q3)}'
        "</small></span></div>"
        for s in rows
    )
    return (
        f'<div class="spread" role="img" aria-label="each entrant\'s {escape(word)} per game">'
        f"{_axis(low, high)}{body}{_axis(low, high)}</div>"
        f'<p class="note">Each row: the {escape(word)} an entrant ended its games with '
        f"({better}), over its games. The box spans the middle half (the quartiles, written "
        "beside the median on the right), the dark line is the median, the thin line reaches "
        "the lowest and highest, the small mark is the mean. Rows in standings order.</p>"
    )
