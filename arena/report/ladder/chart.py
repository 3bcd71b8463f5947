"""A ladder's two charts: games per active player against the games it needs to be ranked,
and each player's rating over time (an inline SVG line a player, its 95% band shown when
the player is picked in the legend or hovered, static/ladder.js), readable on a phone.

The points are ladder.json's: each batch's ratings (those it was planned from) and, last,
the ranking's rating after all the games so far. This module must not read files or rate
anything; names are escaped, and the legend is HTML so it wraps on a narrow screen.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from arena.report.charts import nice_step
from arena.report.ladder.data import LadderView, Point, label
from arena.report.markup import escape
from arena.report.tables import entrant_link

__all__ = ["PALETTE", "games_bars", "lines_of", "rating_chart"]

PALETTE = (
    "#1c5aa6", "#d6604d", "#17784a", "#8e44ad", "#c99a1a", "#0f8b8d", "#6b4226", "#d64fa8",
    "#5b6b7c", "#6f9e2a",
)  # fmt: skip
"""A line's colour, by its player's place in the legend (colours repeat past ten)."""
_WIDTH, _HEIGHT, _LEFT, _RIGHT, _TOP, _BOTTOM = 600, 300, 56, 14, 12, 42


def games_bars(view: LadderView) -> str:
    """A bar per active player (its games), with a mark at the games needed to be ranked."""
    if not view.ranking:
        return '<p class="note">No active players yet.</p>'
    most = max(max(row.games for row in view.ranking), view.min_games, 1)
    need = f"{100 * view.min_games / most:.2f}"
    rows = "".join(
        f'<div class="ld-bar-row{" provisional" * row.provisional}" '
        f'data-entrant="{escape(row.player)}">'
        f'<span class="ld-bar-name">{entrant_link(row.player, label(row.player))}</span>'
        f'<span class="ld-bar" title="{escape(label(row.player))}: {row.games:,} games">'
        f'<i style="width:{100 * row.games / most:.2f}%"></i>'
        f'<b class="ld-need" style="left:{need}%"></b></span>'
        f'<span class="num">{row.games:,}</span></div>'
        for row in view.ranking
    )
    return (
        f'<div class="ld-bars" role="img" aria-label="games per active player">{rows}</div>'
        f'<p class="note">Each bar: the games an active player has played; the dark mark, the '
        f"{view.min_games} it needs before it is ranked (lighter bars: provisional).</p>"
    )


def lines_of(view: LadderView) -> dict[str, tuple[Point, ...]]:
    """Each player's points in legend order (the ranking's, then the retired by name), the
    ranking's present rating last."""
    now = {row.player: row for row in view.ranking}
    order = [*now, *sorted(set(view.history) - set(now))]
    lines = {}
    for player in order:
        points = list(view.history.get(player, ()))
        row = now.get(player)
        last = points[-1].after if points else -1
        if row is not None and row.elo is not None and row.low is not None \
                and row.high is not None and view.games > last:  # fmt: skip
            points.append(Point(view.games, row.elo, row.low, row.high))
        if points:
            lines[player] = tuple(points)
    return lines


def _ticks(low: float, high: float) -> tuple[float, float, float]:
    step = nice_step(high - low or 1.0, 5)
    return math.floor(low / step) * step, math.ceil(high / step) * step, step


def _axes(xs: tuple[float, float, float], ys: tuple[float, float, float],
          x: Callable[[float], float], y: Callable[[float], float]) -> str:
    parts = []
    for value in _range(ys):
        parts.append(f'<line class="grid" x1="{_LEFT}" x2="{_WIDTH - _RIGHT}" y1="{y(value):.1f}" '
                     f'y2="{y(value):.1f}"/><text class="tick y" x="{_LEFT - 6}" '
                     f'y="{y(value) + 5:.1f}">{value:+.0f}</text>')  # fmt: skip
    bottom = _HEIGHT - _BOTTOM
    for value in _range(xs):
        parts.append(f'<text class="tick" x="{x(value):.1f}" y="{bottom + 20}">{value:,.0f}</text>')
    parts.append(f'<text class="axis" x="{(_LEFT + _WIDTH - _RIGHT) / 2}" y="{_HEIGHT - 4}">'
                 "games played</text>")  # fmt: skip
    return "".join(parts)


def _range(ticks: tuple[float, float, float]) -> list[float]:
    low, high, step = ticks
    return [low + i * step for i in range(round((high - low) / step) + 1)]


def _path(points: Sequence[Point], x: Callable[[float], float], y: Callable[[float], float],
          value: Callable[[Point], float]) -> str:
    return " ".join(f"{x(p.after):.1f},{y(value(p)):.1f}" for p in points)


def _player_lines(lines: dict[str, tuple[Point, ...]], retired: set[str],
                  x: Callable[[float], float], y: Callable[[float], float]) -> str:
    drawn = []
    for i, (player, points) in enumerate(lines.items()):
        colour, last = PALETTE[i % len(PALETTE)], points[-1]
        band = _path(points, x, y, lambda p: p.high) + " " + _path(
            points[::-1], x, y, lambda p: p.low)  # fmt: skip
        now = (f"{label(player)}: {last.elo:+.0f} (95% {last.low:+.0f} to {last.high:+.0f}) "
               f"after {last.after:,} games")  # fmt: skip
        kind = "ld-line retired" if player in retired else "ld-line"
        drawn.append(
            f'<g class="ld-player" data-player="{escape(player)}" data-now="{escape(now)}">'
            f'<polygon class="ld-band" points="{band}" fill="{colour}"/>'
            f'<polyline class="{kind}" points="{_path(points, x, y, lambda p: p.elo)}" '
            f'stroke="{colour}"><title>{escape(now)}</title></polyline>'
            f'<circle class="ld-dot" cx="{x(last.after):.1f}" cy="{y(last.elo):.1f}" r="4" '
            f'fill="{colour}"/></g>'
        )
    return "".join(drawn)


def _legend(lines: dict[str, tuple[Point, ...]], retired: set[str]) -> str:
    keys = "".join(
        f'<li><button type="button" class="ld-key" data-player="{escape(player)}" '
        f'aria-pressed="false"><i style="background:{PALETTE[i % len(PALETTE)]}"></i>'
        f"{escape(label(player))}{' (retired)' * (player in retired)}</button></li>"
        for i, player in enumerate(lines)
    )
    return f'<ul class="ld-legend" id="ld-legend">{keys}</ul>'


def rating_chart(view: LadderView) -> str:
    """Each player's Elo as it stood after each batch; pick one for its 95% band."""
    lines = lines_of(view)
    if not lines:
        return '<p class="note">No rated players yet.</p>'
    points = [p for line in lines.values() for p in line]
    xs = _ticks(0, max(p.after for p in points))
    ys = _ticks(min(p.elo for p in points), max(p.elo for p in points))
    plot_w, plot_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM

    def x(value: float) -> float:
        return _LEFT + (value - xs[0]) / ((xs[1] - xs[0]) or 1) * plot_w

    def y(value: float) -> float:
        return _TOP + (ys[1] - value) / ((ys[1] - ys[0]) or 1) * plot_h

    retired = set(lines) - {row.player for row in view.ranking}
    clip = (f'<clipPath id="ld-plot"><rect x="{_LEFT}" y="{_TOP}" width="{plot_w}" '
            f'height="{plot_h}"/></clipPath>')  # fmt: skip
    return (
        '<figure class="chart ld-chart"><figcaption>Elo after each batch (0 = the field\'s '
        'average)</figcaption>'
        f'<svg viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" aria-label="rating over time">'
        f'{clip}{_axes(xs, ys, x, y)}<g clip-path="url(#ld-plot)">'
        f"{_player_lines(lines, retired, x, y)}</g></svg></figure>"
        f'{_legend(lines, retired)}<p class="ld-head" id="ld-picked" aria-live="polite"></p>'
        '<p class="note">One line a player (dashed: a retired version). Pick a name, or hover '
        "a line, to see its 95% band: where two bands overlap, the games cannot yet tell "
        "those players apart.</p>"
    )
