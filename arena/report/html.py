"""The HTML report of a tournament, built from a results folder.

`build_report(folder)` reads what `arena run` wrote (config.yaml, games.jsonl,
standings.csv, ratings.json, crosstable.csv, stages.json, replays/) and writes:

    report.html      one self-contained page (inline CSS, JS and SVG; no network): the
                     standings, ratings with intervals, the crosstable as a heat map, faults,
                     bluffing statistics, the bracket of an elimination, and every game
    viewer.html, viewer-rules.js, replays/pack-<n>.js
                     the replay viewer and its data (arena.report.viewer)

The folder is read by arena.report.folder, every replay once by arena.report.scan; the
sections are drawn by arena.report.tables and arena.report.charts. report.html is written
in parts: the list of every game is the one part of the page that is per game by nature;
it is encoded and written a game at a time, never held.

This module must not play or re-apply games, and must not change what `arena run` wrote:
it only adds report.html, viewer.html, viewer-rules.js and replays/pack-*.js. Nothing it
writes reaches the network.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena import __version__
from arena.report import viewer as viewer_data  # its PACK, read when used; `viewer` is a flag
from arena.report.bluffing import BluffStats, bluff_stats
from arena.report.charts import heat_map, ratings_charts
from arena.report.folder import Folder, GamesLog, game_rows, read_folder
from arena.report.live import Live, mark_live
from arena.report.markup import compact, escape, script_safe, static
from arena.report.scan import scan_all
from arena.report.tables import bluff_table, bracket, faults_table, standings_table
from arena.report.viewer import rules_script, viewer_page
from arena.tournament import results as folder_files

__all__ = [
    "REPORT",
    "VIEWER",
    "ReportSummary",
    "build_report",
    "render_report",
]

REPORT, VIEWER, RULES_SCRIPT = folder_files.PAGES


@dataclass(frozen=True, slots=True)
class ReportSummary:
    """What `build_report` wrote: the report's path and size, and how many games it shows."""

    path: Path
    bytes: int
    games: int
    replays: int
    missing: tuple[str, ...] = ()
    """Games whose replay file was listed but is missing or unreadable."""


def build_report(
    folder: str | os.PathLike[str], *, workers: int | None = None, viewer: bool = True,
    progress: Callable[[int, int], object] | None = None, live: Live | None = None,
) -> ReportSummary:
    """Write report.html, viewer.html and the viewer's data packs into a results folder;
    return where the report is and what it covers.

    `workers` caps the processes that read the replays (default: one per core, for big
    tournaments); `viewer=False` writes the report alone, without links to the games.
    `progress(done, total)` is told the replays read as they are; `live` marks the page as
    made while the run goes on (arena/report/live.py).
    """
    root = Path(folder)
    data = read_folder(root)
    scan = scan_all(root, data.log, workers, viewer, progress)
    options = data.config.get("options") or {}
    sof = bool(options.get("straight_over_full", False))
    bluffs = bluff_stats(scan.tally, data.entrants, data.description, sof)
    missing = frozenset(scan.missing) if viewer else None
    page = mark_live(render_report(data, bluffs, missing), live)
    size = folder_files.write_atomic(root / REPORT, page, durable=False)
    if viewer:
        folder_files.write_atomic(root / VIEWER, viewer_page(), durable=False)
        folder_files.write_atomic(root / RULES_SCRIPT, rules_script(data.description),
                                  durable=False)
    return ReportSummary(root / REPORT, size, data.log.games, scan.scanned,
                         tuple(scan.missing))  # fmt: skip


def _links(log: GamesLog, missing: frozenset[str] | None) -> dict[str, int]:
    """The viewer pack of the games linked outside the list, if the viewer can show them;
    `missing` is None when there is no viewer."""
    if missing is None:
        return {}
    return {game_id: pack for game_id, pack in log.packs.items() if game_id not in missing}


def render_report(
    data: Folder, bluffs: Sequence[BluffStats], missing: frozenset[str] | None
) -> Iterator[str]:
    """The report page in parts, the list of games a game at a time, so it is never held
    whole; `missing` names the games the viewer cannot show (None: no viewer)."""
    links = _links(data.log, missing)
    name = str(data.config.get("name") or "tournament")
    sections = [
        _section("standings", "Standings", standings_table(data)),
        _section("ratings", "Ratings", ratings_charts(data)),
        _section("crosstable", "Head to head", heat_map(data)),
        _section("bluffing", "Bluffing", bluff_table(bluffs, data.description)),
        _section("faults", "Faults", faults_table(data, links)),
    ]
    if data.stages.get("format") == "elimination":
        sections.append(_section("bracket", "Bracket", bracket(data.stages, links)))
    sections.append(_section("games", "Games", _games_section(data)))
    nav = "".join(
        f'<a href="#{key}">{escape(title)}</a>'
        for key, title in (
            ("standings", "Standings"), ("ratings", "Ratings"), ("crosstable", "Head to head"),
            ("bluffing", "Bluffing"), ("faults", "Faults"),
            *((("bracket", "Bracket"),) if data.stages.get("format") == "elimination" else ()),
            ("games", "Games"),
        )
    )  # fmt: skip
    yield (
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(name)} · arena report</title>\n"
        f"<style>\n{static('common.css')}{static('report.css')}</style>\n</head>\n<body>\n"
        f'<header class="top"><div class="wrap"><p class="kicker">arena tournament report</p>'
        f"<h1>{escape(name)}</h1><p class=\"meta\">{escape(_summary_line(data))}</p>"
        f'<nav class="sections">{nav}</nav></div></header>\n'
        f'<main class="wrap">\n{"".join(sections)}</main>\n'
        f'<footer class="wrap">Made by arena {escape(__version__)} from '
        f"{escape(folder_files.GAMES)}, "
        "the derived tables and the replays. This page works offline.</footer>\n"
        '<script type="application/json" id="rules-data">'
        f"{script_safe(compact(data.description.to_json()))}</script>\n"
        '<script type="application/json" id="games-data">'
    )
    # No part ends with "<", so escaping part by part escapes every "</" of the whole.
    yield from (part.replace("</", "<\\/") for part in _games_json(data, missing))
    yield f"</script>\n<script>\n{static('report.js')}</script>\n</body>\n</html>\n"


def _section(key: str, title: str, body: str) -> str:
    return f'<section id="{key}"><h2>{escape(title)}</h2>\n{body}\n</section>\n'


def _summary_line(data: Folder) -> str:
    fmt = data.config.get("format") or {}
    kind = fmt.get("type", data.stages.get("format", "")) if isinstance(fmt, dict) else fmt
    seats = f", {fmt['seats']} seats a table" if isinstance(fmt, dict) and "seats" in fmt else ""
    parts = [
        str(data.rules),
        f"{kind}{seats}",
        f"{len(data.entrants)} entrants",
        f"{data.log.games:,} games",
    ]
    if "seed" in data.config:
        parts.append(f"seed {data.config['seed']}")
    return " · ".join(p for p in parts if p)


def _games_section(data: Folder) -> str:
    return (
        '<div class="filters"><label>Entrant <select id="f-entrant"><option value="">'
        'everyone</option></select></label><label>Stage <select id="f-stage"><option '
        'value="">all</option></select></label><label>Game <input id="f-id" type="search" '
        'placeholder="id" size="12"></label><span id="g-count" class="dim"></span></div>'
        '<div class="scroll"><table class="games data"><thead><tr><th>Game</th><th>Stage</th>'
        "<th>Result</th><th class=num>Decisions</th><th class=num>Faults</th></tr></thead>"
        '<tbody id="g-rows"></tbody></table></div>'
        '<div class="pager"><button id="g-prev" type="button">◀ Previous</button>'
        '<span id="g-page"></span><button id="g-next" type="button">Next ▶</button></div>'
        "<noscript><p>The games list needs JavaScript; every game is in games.jsonl.</p>"
        "</noscript>"
    )


def _games_json(data: Folder, missing: frozenset[str] | None) -> Iterator[str]:
    """The list of games as compact JSON, a game at a time in log order, read again from
    games.jsonl; each row ends with the game's viewer pack, or -1."""
    log = data.log
    known = {name: i for i, name in enumerate(log.names)}
    stage_index = {stage: i for i, stage in enumerate(log.stages)}
    head = {"names": list(log.names), "stages": list(log.stages),
            "score": data.description.unit}
    yield compact(head)[:-1] + ',"games":['
    replays = 0
    for number, game in enumerate(game_rows(data.path, log.games)):
        pack = -1
        if game.replay:
            if missing is not None and game.id not in missing:
                pack = replays // viewer_data.PACK
            replays += 1
        row = [
            game.id, stage_index[game.stage], game.table,
            [known[n] for n in game.entrants], list(game.placements), list(game.scores),
            len(game.faults), game.decisions, pack,
        ]  # fmt: skip
        yield ("," if number else "") + compact(row)
    yield "]}"
