"""The report's charts: estimates with their intervals as inline SVG (the ratings), and the
crosstable as a heat map of coloured table cells.

This module must not read files or compute ratings: it draws what the results folder holds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from arena.report.folder import Folder
from arena.report.markup import escape
from arena.report.tables import entrant_link, finder

__all__ = [
    "heat_map",
    "heat_styles",
    "interval_chart",
    "nice_step",
    "ratings_charts",
]

_LABEL_CHAR = 9.5
"""The widest a character of a chart's label (svg .label: 15 px, bold) is on average, in px."""


def nice_step(span: float, target: int = 6) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten) giving about `target` ticks."""
    raw = span / max(1, target)
    power = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def interval_chart(
    title: str,
    rows: Sequence[tuple[str, float, float, float]],
    *,
    reference: float | None = None,
    digits: int = 0,
) -> str:
    """An inline SVG of estimates with intervals, one row per (name, low, estimate, high)."""
    if not rows:
        return f'<p class="note">{escape(title)}: no rated entrants yet.</p>'
    # The labels' margin fits the longest name (15 px bold, under 9.5 px a character), so
    # none is cut at the chart's edge; the plot keeps its 440 and the chart widens instead.
    left = max(150, 24 + math.ceil(_LABEL_CHAR * max(len(r[0]) for r in rows)))
    right, row_h, top = 170, 34, 18
    width = left + 440 + right
    extra = () if reference is None else (reference,)
    low = min([r[1] for r in rows] + list(extra))
    high = max([r[3] for r in rows] + list(extra))
    step = nice_step(high - low or 1.0)
    low, high = math.floor(low / step) * step, math.ceil(high / step) * step
    plot = width - left - right
    sign = "+" if reference == 0 else ""
    height = top + row_h * len(rows) + 34

    def x(value: float) -> float:
        return left + (value - low) / ((high - low) or 1.0) * plot

    parts = [_axis(low, high, step, x, top, height - 30)]
    if reference is not None:
        rx = x(reference)
        parts.append(f'<line class="ref" x1="{rx:.1f}" x2="{rx:.1f}" y1="{top - 8}" '
                     f'y2="{height - 30}"/>')  # fmt: skip
    for i, (name, lo, mid, hi) in enumerate(rows):
        y = top + row_h * i + row_h / 2
        parts.append(
            f'<g class="row"><title>{escape(name)}: {mid:.{digits}f} '
            f"(95% interval {lo:.{digits}f} to {hi:.{digits}f})</title>"
            f'<text class="label" x="{left - 12}" y="{y + 5:.1f}">{escape(name)}</text>'
            f'<line class="ci" x1="{x(lo):.1f}" x2="{x(hi):.1f}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f"{_cap(x(lo), y)}{_cap(x(hi), y)}"
            f'<circle class="est" cx="{x(mid):.1f}" cy="{y:.1f}" r="6.5"/>'
            f'<text class="value" x="{width - right + 14}" y="{y + 5:.1f}">{mid:{sign}.{digits}f} '
            f'<tspan class="dim">[{lo:{sign}.{digits}f}, {hi:{sign}.{digits}f}]</tspan></text></g>'
        )
    return (
        f'<figure class="chart"><figcaption>{escape(title)}</figcaption>'
        f'<svg viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">'
        f"{''.join(parts)}</svg></figure>"
    )


def _cap(at: float, y: float) -> str:
    return f'<line class="cap" x1="{at:.1f}" x2="{at:.1f}" y1="{y - 7:.1f}" y2="{y + 7:.1f}"/>'


def _axis(low: float, high: float, step: float, x: Any, top: int, bottom: int) -> str:
    ticks = []
    count = round((high - low) / step)
    decimals = 0 if step == int(step) else max(1, -math.floor(math.log10(step)))
    for i in range(count + 1):
        value = low + i * step
        tx = x(value)
        label = f"{value + 0.0:.{decimals}f}"
        ticks.append(
            f'<line class="grid" x1="{tx:.1f}" x2="{tx:.1f}" y1="{top - 8}" y2="{bottom}"/>'
            f'<text class="tick" x="{tx:.1f}" y="{bottom + 20}">{escape(label)}</text>'
        )
    return "".join(ticks)


def ratings_charts(data: Folder) -> str:
    entrants = data.ratings.get("entrants", {})
    elo_rows, skill_rows = [], []
    for name in data.entrants:
        rating = entrants.get(name) or {}
        elo = rating.get("elo")
        if elo and elo.get("rating") is not None:
            elo_rows.append((name, elo["low"], elo["rating"], elo["high"]))
        skill = rating.get("openskill")
        if skill and rating.get("games"):
            skill_rows.append((name, skill["low"], skill["mu"], skill["high"]))
    return (
        '<div class="charts">'
        + interval_chart("Elo rating, 95% interval (0 = the field's average)", elo_rows,
                         reference=0.0)
        + interval_chart("OpenSkill μ, 95% interval", skill_rows, digits=1)
        + "</div>"
        + '<p class="note">Dots are estimates, bars their 95% intervals: where two bars '
        "overlap a lot, the games so far cannot tell those entrants apart.</p>"
    )  # fmt: skip


def _heat_colour(score: float) -> tuple[str, str]:
    """Background and text colour: orange below 50%, white at 50%, blue above."""
    strength = min(1.0, abs(score - 0.5) * 2)
    base = (33, 102, 172) if score >= 0.5 else (214, 96, 77)
    r, g, b = (round(255 + (c - 255) * strength) for c in base)
    ink = "#ffffff" if strength > 0.6 else "#16202c"
    return f"rgb({r},{g},{b})", ink


_COMPACT_FROM = 13
"""From this many entrants the crosstable's cells are compact: the score alone, no counts."""


def heat_map(data: Folder) -> str:
    cells = {(r["entrant"], r["opponent"]): r for r in data.crosstable}
    names = data.entrants
    compact = len(names) >= _COMPACT_FROM
    head = "".join(
        f'<th class="col" scope="col" data-name="{escape(n)}"><span>{escape(n)}</span></th>'
        for n in names
    )
    quoted = {n: escape(quote(n, safe="")) for n in names}  # once a name, not once a cell
    rows = []
    for name in names:
        tds = [f'<th class=name scope="row">{entrant_link(name)}</th>']
        for other in names:
            href = f"#games&amp;entrant={quoted[name]}&amp;opponent={quoted[other]}"
            tds.append(_heat_cell(cells.get((name, other)), name, other, compact, href))
        rows.append(f"<tr data-name=\"{escape(name)}\">{''.join(tds)}</tr>")
    size = " compact" if compact else ""
    counts = (
        "The number is the row's score in percent; its counts are in the games the cell links to."
        if compact
        else "Under each score: the row's games above, below and tied against the column."
    )
    return (
        f"{finder('find-heat') if compact else ''}"
        f'<div class="heat-box" tabindex="0"><table class="heat{size}"><thead><tr>'
        f'<th class="corner">entrant ↓ against →</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>{_heat_legend()}"
        '<p class="note">Each cell: how often the row entrant finished above the column '
        f"entrant when they met (ties count half). {counts} Each cell links to the games of "
        "that pair.</p>"
    )


def _heat_legend() -> str:
    keys = "".join(
        f'<span class="key"><i style="background:{_heat_colour(v)[0]}"></i>{round(100 * v)}%</span>'
        for v in (0.0, 0.25, 0.5, 0.75, 1.0)
    )
    return (
        f'<div class="legend heat-legend"><span>row finished above the column:</span>{keys}'
        '<span class="key"><i class="self"></i>— itself</span>'
        '<span class="key"><i class="empty"></i>· never met</span></div>'
    )


def _heat_cell(
    row: Mapping[str, str] | None, name: str, other: str, compact: bool, href: str
) -> str:
    """One cell: the row's score against the column, linked (`href`, escaped) to their games."""
    if name == other:
        return '<td class="self">—</td>'
    games = int(row["games"]) if row else 0
    if not games or row is None:
        return '<td class="empty">·</td>'
    above, below, ties = int(row["above"]), int(row["below"]), int(row["ties"])
    score = (above + ties / 2) / games
    tip = (
        ""
        if compact
        else f' title="{escape(name)} against {escape(other)}: {above} above, {below} below, '
        f'{ties} tied in {games} games"'
    )
    shown = f"{round(100 * score)}" if compact else f"{round(100 * score)}%"
    counts = "" if compact else f"<small>{above}–{below}{f'–{ties}' if ties else ''}</small>"
    return (
        f'<td class="h{round(score * _SHADES)}"{tip} data-score="{score:.4f}">'
        f'<a href="{href}">{shown}{counts}</a></td>'
    )


_SHADES = 20
"""The heat map's colours, in steps of 5%: a class a cell, not a style (60 entrants: 3,540)."""


def heat_styles() -> str:
    """The CSS of the heat map's shades, from the one colour scale: static/report.css holds
    these lines (a test checks they agree), so the page need not build them."""
    rules = []
    for shade in range(_SHADES + 1):
        background, ink = _heat_colour(shade / _SHADES)
        rules.append(f"table.heat td.h{shade}{{background:{background};color:{ink}}}")
    return "\n".join(rules) + "\n"
