"""The HTML report of a tournament, built from a results folder.

`build_report(folder)` reads what `arena run` wrote (config.yaml, games.jsonl,
standings.csv, ratings.json, crosstable.csv, stages.json, a ladder's ladder.json, replays/)
and writes:

    report.html      one self-contained page (inline CSS, JS and SVG; no network): the
                     standings and grades, ratings with intervals, the crosstable as a heat
                     map, faults, bluffing statistics, the bracket of an elimination, a
                     Swiss's rounds (arena.report.rounds), a ladder's ranking,
                     versions and rating over time (arena.report.ladder.sections), a
                     header that says what was played (arena.report.header), the spread of scores
                     (arena.report.spread), every game (arena.report.games), and a page per
                     entrant (arena.report.entrants)
    viewer.html, viewer-rules.js, replays/pack-<n>.js, replays/chances/pack-<n>.js
                     the replay viewer and its data (arena.report.viewer): each replay's
                     bytes, and the chance each claim held by what its seat knew
                     (arena.report.chances)

The folder's tables are read by arena.report.folder; games.jsonl once, from where the last
build left off, and each new game's replay once (arena.report.scan), by
arena.report.increment, which keeps what it summed in replays/chances/ (arena.report.built)
so a rebuild reads only the games added since; the sections are drawn by arena.report.tables
and arena.report.charts; a page made while the run plays is marked so by arena.report.live.
report.html is written in parts: the list of every game is the one part of the page that is
per game by nature; it is encoded and written a game at a time, never held.

This module must not play or re-apply games, and must not change what `arena run` wrote: it
only adds report.html, viewer.html, viewer-rules.js, the packs under replays/ and the last
build's state beside them. Nothing it writes reaches the network.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena import __version__
from arena.report.bluffing import BluffStats, bluff_stats
from arena.report.charts import heat_map, ratings_charts
from arena.report.entrants import entrant_section
from arena.report.folder import Folder, GamesLog, ReportError, read_folder
from arena.report.games import games_json, games_section
from arena.report.header import header_facts
from arena.report.increment import Passed, read_games
from arena.report.ladder.sections import ladder_parts
from arena.report.live import Live, mark_live
from arena.report.markup import compact, escape, script_safe, static
from arena.report.rounds import rounds_section
from arena.report.spread import score_spread, spreads
from arena.report.tables import bluff_table, bracket, faults_table, standings_table
from arena.report.viewer import rules_script, viewer_page
from arena.tournament.run import results as folder_files

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
    passed: list[Passed] = []

    def games(path: Path, entrants: Sequence[str], linked: frozenset[str]) -> GamesLog:
        try:  # where the packs go: the folder's own replays/, never where a link leads
            replays = folder_files.own(path / folder_files.REPLAYS, folder=True)
            folder_files.own(replays / "chances", folder=True)
        except folder_files.ResultsError as exc:
            raise ReportError(str(exc)) from None
        try:
            passed.append(read_games(path, entrants, linked, workers=workers, viewer=viewer,
                                     progress=progress))  # fmt: skip
        except OSError as exc:  # a folder in a pack's or the state's place, a full disk
            raise ReportError(f"{path}: cannot write the viewer's packs: {exc}") from None
        return passed[0].log(entrants)

    data = read_folder(root, games)
    scan = passed[0].built
    options = data.config.get("options") or {}
    sof = bool(options.get("straight_over_full", False))
    bluffs = bluff_stats(scan.tally, data.entrants, data.description, sof)
    missing = frozenset(scan.missing) if viewer else None
    word = "Ladder" if data.ladder else "Tournament"
    page = mark_live(render_report(data, bluffs, missing, passed[0]), live, word)
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


def _bracket_part(data: Folder, links: dict[str, int]) -> list[tuple[str, str, str]]:
    """An elimination's bracket or a Swiss's rounds, next after the standings they
    explain; none otherwise."""
    if data.stages.get("format") == "swiss":
        return [("rounds", "Rounds", rounds_section(data.stages))]
    if data.stages.get("format") != "elimination":
        return []
    return [("bracket", "Bracket", bracket(data.stages, links))]


def _grades_part(data: Folder) -> list[tuple[str, str, str]]:
    """Each graded entrant's grade, in the words `arena run` printed, after the standings."""
    if not data.grades:
        return []
    items = "".join(f"<li>{escape(line)}</li>" for line in data.grades)
    return [("grades", "Grades", f'<ul class="grades">{items}</ul>')]


_DERIVED_PARTS = frozenset({"standings", "crosstable", "ratings", "faults"})
"""The sections drawn from standings.csv, crosstable.csv and ratings.json."""


def _with_ladder(data: Folder, parts: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """A ladder's sections first; without its derived tables, none drawn from them."""
    if data.ladder is None:
        return parts
    kept = [p for p in parts if data.standings or p[0] not in _DERIVED_PARTS]
    return [*ladder_parts(data.ladder), *kept]


def render_report(
    data: Folder, bluffs: Sequence[BluffStats], missing: frozenset[str] | None,
    passed: Passed | None = None,
) -> Iterator[str]:
    """The report page in parts, the list of games a game at a time, so it is never held
    whole; `missing` names the games the viewer cannot show (None: no viewer). With the
    pass over the games (arena.report.increment), its sums and rows; else games.jsonl is
    read again."""
    links = _links(data.log, missing)
    name = str(data.config.get("name") or "tournament")
    parts = [
        ("standings", "Standings", standings_table(data)),
        *_grades_part(data),
        *_bracket_part(data, links),
        ("spread", "Spread of scores", score_spread(
            data, None if passed is None else spreads(data, passed.built.spreads))),
        ("crosstable", "Head to head", heat_map(data)),
        ("ratings", "Ratings", ratings_charts(data)),
        ("bluffing", "Bluffing", bluff_table(bluffs, data.description)),
        ("faults", "Faults", faults_table(data, links)),
        ("games", "Games", games_section(data)),
    ]
    parts = _with_ladder(data, parts)
    sections = [_section(key, title, body) for key, title, body in parts]
    nav = "".join(f'<a href="#{key}">{escape(title)}</a>' for key, title, _ in parts)
    sections.append(entrant_section(*_back(data)))
    yield (
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(name)} · arena report</title>\n"
        f"<style>\n{static('common.css')}{static('report.css')}{static('games.css')}"
        "</style>\n</head>\n<body>\n"
        f'<header class="top"><div class="wrap"><p class="kicker">arena tournament report</p>'
        f"<h1>{escape(name)}</h1><p class=\"meta\">{escape(_summary_line(data))}</p>"
        f"{header_facts(data)}"
        f'<nav class="sections">{nav}</nav></div></header>\n'
        f'<main class="wrap">\n{"".join(sections)}</main>\n'
        f'<footer class="wrap">Made by arena {escape(__version__)} from '
        f"{escape(folder_files.GAMES)}, "
        "the derived tables and the replays. This page works offline.</footer>\n"
        '<script type="application/json" id="rules-data">'
        f"{script_safe(compact(data.description.to_json()))}</script>\n"
        '<script type="application/json" id="games-data">'
    )
    rows = None if passed is None else passed.rows(data.log.names)
    yield from map(script_safe, games_json(data, missing, rows))
    scripts = static("report.js") + static("entrant.js") + static("contest.js")
    scripts += static("ladder.js") if data.ladder else ""
    yield f"</script>\n<script>\n{scripts}</script>\n</body>\n</html>\n"


def _back(data: Folder) -> tuple[str, str]:
    """Where an entrant's page leads back to: a ladder's ranking, else the standings."""
    return ("ranking", "Ranking") if data.ladder else ("standings", "Standings")


def _section(key: str, title: str, body: str) -> str:
    return f'<section id="{key}"><h2>{escape(title)}</h2>\n{body}\n</section>\n'


def _field(data: Folder) -> str:
    """Who played: the entrants, and for a ladder the versions they submitted."""
    if data.ladder is None:
        return f"{len(data.entrants)} entrants"
    versions = data.ladder.versions
    entrants = len({v.entrant for v in versions})
    return f"{entrants} entrants, {len(versions)} version{'s' * (len(versions) != 1)}"


def _summary_line(data: Folder) -> str:
    fmt = data.config.get("format") or {}
    kind = fmt.get("type", data.stages.get("format", "")) if isinstance(fmt, dict) else fmt
    seats = f", {fmt['seats']} seats a table" if isinstance(fmt, dict) and "seats" in fmt else ""
    parts = [
        str(data.rules),
        f"{kind}{seats}",
        _field(data),
        f"{data.log.games:,} games",
    ]
    if "seed" in data.config:
        parts.append(f"seed {data.config['seed']}")
    return " · ".join(p for p in parts if p)
