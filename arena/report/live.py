"""The mark of a report made while its tournament is still being played.

`arena run` rebuilds report.html every few minutes during a long run (arena/cli/run.py);
`build_report(..., live=Live(...))` then says at the top of the page that the run is in
progress, how many of its games it shows, when it was made, and (with `every`) reloads
itself when the next one is due. The final report, made without `live`, replaces it.

This module only marks a page: it reads no folder and knows nothing of the sections.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from arena.report.markup import escape

__all__ = ["Live", "live_banner", "mark_live"]


@dataclass(frozen=True, slots=True)
class Live:
    """A run in progress: games played of planned, when this page was made, and how often
    it is remade (seconds; None: not again)."""

    played: int
    planned: int
    refreshed: str
    """When, in words, e.g. "2026-12-02 04:50 UTC"."""
    every: float | None = None


def live_banner(live: Live, word: str = "Tournament") -> str:
    """The line at the top of a live report (`word`: what is in progress, e.g. "Ladder")."""
    share = f" ({live.played / live.planned:.0%})" if live.planned else ""
    again = "The final report replaces this page when the run ends."
    if live.every:
        minutes = max(1, math.ceil(live.every / 60))
        again = (f"This page is remade every {minutes} minute{'s' * (minutes != 1)} and "
                 "reloads itself; the final report replaces it when the run ends.")
    return (
        '<p class="live" id="live" role="status" style="margin:0;padding:.6em 1em;'
        'background:#fff3c4;color:#3d2f00;border-bottom:1px solid #e0c35a;font-weight:600">'
        f"{escape(word)} in progress: {live.played:,} of {live.planned:,} games played{share}, "
        f"as of {escape(live.refreshed)}. {escape(again)}</p>\n"
    )


def mark_live(page: Iterator[str], live: Live | None, word: str = "Tournament") -> Iterator[str]:
    """The page with the live banner after `<body>` and, if it is remade, a reload in its
    head; unchanged without `live`."""
    if live is None:
        yield from page
        return
    first = next(page)
    if live.every:
        reload = f'<meta http-equiv="refresh" content="{math.ceil(live.every)}">\n'
        first = first.replace("</head>", reload + "</head>", 1)
    first = first.replace("<title>", "<title>(in progress) ", 1)
    yield first.replace("<body>\n", "<body>\n" + live_banner(live, word), 1)
    yield from page
