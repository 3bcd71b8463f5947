"""The HTML report of a tournament and its replay viewer, built from a results folder.

`build_report(folder)` reads what `arena run` wrote (config.yaml, games.jsonl,
standings.csv, ratings.json, crosstable.csv, stages.json, replays/) and writes:

    report.html      one self-contained page (inline CSS, JS and SVG; no network): the
                     standings, ratings with intervals, the crosstable as a heat map, faults,
                     bluffing statistics, the bracket of an elimination, and every game
    viewer.html      the replay viewer, the same file for every tournament; it reads the game
                     from its address (`viewer.html#game=<id>&pack=<n>`)
    viewer-rules.js  the rule set's description (arena.rules.base.Description) for the
                     viewer, so it tells a plugin's rule set as the rules say
    replays/pack-<n>.js
                     the viewer's data, 100 games a file in games.jsonl order: each replay
                     file's own gzip bytes in base64, set on the global `ARENA_REPLAY`, so
                     the viewer loads it with a <script> tag from file:// (no fetch, no
                     CORS) and unpacks it with DecompressionStream. Packs, not one file a
                     game: creating 20,000 small files costs more than the rest of the
                     report on a busy disk

Every replay is read once, in one streaming pass that may be split over worker processes;
the bluffing statistics come from the claim and challenge events found by one regular
expression over the replay text (parsing every line as JSON is ten times slower; the
expression follows the key order of arena.hosts.codec, and tests pin it against a full parse).

Memory does not grow with the games: games.jsonl is read one game at a time, three times
(for the counts and first fault examples, for the viewer packs, and for the list of
games; the later passes stop at the games the first one counted), and report.html is
written in parts. The list of every game is the one part of
the page that is per game by nature; it is encoded and written a game at a time, never
held. Held whole: the small tables, and stages.json for an elimination only (its seeding
round robin is capped, its knockout is small; other formats need only its format).

This module must not play or re-apply games, and must not change what `arena run` wrote:
it only adds report.html, viewer.html, viewer-rules.js and replays/pack-*.js. Nothing it
writes reaches the network.
"""

from __future__ import annotations

import base64
import csv
import html
import itertools
import json
import math
import os
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from arena import __version__, hands
from arena.executor.local import Job, ordered_map, pool_size
from arena.ratings.games import FAULT_KINDS
from arena.ratings.standings import wilson_interval
from arena.rules import RulesError, description_of
from arena.rules.base import Description
from arena.tournament import results as folder_files

__all__ = [
    "REPORT",
    "VIEWER",
    "BluffStats",
    "GameRow",
    "ReportError",
    "ReportSummary",
    "bluff_stats",
    "build_report",
    "interval_chart",
    "pack_name",
    "pack_script",
    "scan_replay",
]

REPORT, VIEWER, RULES_SCRIPT = folder_files.PAGES
REPLAY_GLOBAL = "ARENA_REPLAY"
RULES_GLOBAL = "ARENA_RULES"
"""The global on which RULES_SCRIPT, beside viewer.html, sets the rule set's description."""
PARALLEL_FROM = 2000
"""Tournaments with at least this many replays are scanned on several processes."""
PACK = 100
"""Games per file of viewer data: a few hundred KB to load, and few files to write."""
_FAULT_EXAMPLES = 3

# One claim (dice), pass (cards) or challenge event, in arena.hosts.codec's key order:
# kind, seat, [claimant,] claim, [blind | hand, value, holds].
_BLUFF_EVENT = re.compile(
    rb'"kind":"(claim|pass|challenge)","seat":(\d+),(?:"claimant":(\d+),)?"claim":"([^"]+)"'
    rb'(?:,"blind":(true|false))?(?:,"hand":\[[^\]]*\],"value":"[^"]*","holds":(true|false))?'
)

# (kind, seat, claimant, claim, blind, holds) as found in the replay text
_Found = tuple[bytes, bytes, bytes, bytes, bytes, bytes]
# (kind, entrant, claimant entrant, claim, blind, holds): what a tally counts
_Key = tuple[str, str, str, str, bool, bool]


class ReportError(Exception):
    """A folder the report cannot be built from; the message says what is missing."""


# --- values -------------------------------------------------------------------------------


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


@dataclass(frozen=True, slots=True)
class GameRow:
    """One game as the report lists it."""

    id: str
    stage: str
    table: int
    entrants: tuple[str, ...]
    placements: tuple[int, ...]
    scores: tuple[int, ...]
    faults: tuple[tuple[int, str, str], ...]
    decisions: int
    replay: str | None


@dataclass(frozen=True, slots=True)
class ReportSummary:
    """What `build_report` wrote: the report's path and size, and how many games it shows."""

    path: Path
    bytes: int
    games: int
    replays: int
    missing: tuple[str, ...] = ()
    """Games whose replay file was listed but is missing or unreadable."""


@dataclass(frozen=True, slots=True)
class _Log:
    """What the report needs from games.jsonl beyond the list of games, from one pass."""

    games: int
    replays: int
    """Games that list a replay file."""
    names: tuple[str, ...]
    """The entrants, then any other name seated, for the list of games."""
    stages: tuple[str, ...]
    """Stage names in order of first appearance, for the list of games."""
    examples: Mapping[str, tuple[tuple[str, str, str], ...]]
    """The first faults of each entrant: (game id, kind, message)."""
    packs: Mapping[str, int]
    """The viewer pack of the games linked outside the list: fault examples, bracket."""


@dataclass(slots=True)
class _Scan:
    """What one pass over some replays found (mutable while scanning, merged after)."""

    tally: Counter[_Key] = field(default_factory=Counter)
    missing: list[str] = field(default_factory=list)
    scanned: int = 0


# --- the replay pass ----------------------------------------------------------------------


def pack_name(pack: int) -> str:
    """The file name of a pack of viewer data, under replays/."""
    return f"pack-{pack:05d}.js"


def pack_script(games: Sequence[tuple[str, bytes]]) -> bytes:
    """The viewer's data for some games: each replay's gzip bytes in base64 on a global."""
    lines = [f"window.{REPLAY_GLOBAL}=window.{REPLAY_GLOBAL}||{{}};\n".encode()]
    for game_id, raw in games:
        key = json.dumps(game_id).encode()
        lines.append(b"window.%s[%s]=\"%s\";\n" % (REPLAY_GLOBAL.encode(), key,
                                                    base64.b64encode(raw)))  # fmt: skip
    return b"".join(lines)


def rules_script(description: Description) -> str:
    """The viewer's description of the rule set, so it reads the game as the rules say (dice
    or cards, challenged or rejected, points or chips) instead of comparing ids."""
    key, value = _compact(description.id), _script_safe(_compact(description.to_json()))
    return (f"window.{RULES_GLOBAL}=window.{RULES_GLOBAL}||{{}};\n"
            f"window.{RULES_GLOBAL}[{key}]={value};\n")


def _script_safe(text: str) -> str:
    """JSON that cannot end the <script> it is written in."""
    return text.replace("</", "<\\/")


def scan_replay(text: bytes) -> tuple[tuple[str, ...], Counter[_Found]]:
    """The entrants by seat and the claim/challenge events of one replay's JSON-lines text."""
    first, _, rest = text.partition(b"\n")
    header = json.loads(first)
    names = tuple(str(e["name"]) for e in header.get("entrants", ()))
    return names, Counter(_BLUFF_EVENT.findall(rest))


def _tally_game(tally: Counter[_Key], names: Sequence[str], found: Counter[_Found]) -> None:
    for (kind, seat, claimant, claim, blind, holds), count in found.items():
        who = names[int(seat)]
        against = names[int(claimant)] if claimant else ""
        key = (kind.decode(), who, against, claim.decode(), blind == b"true", holds == b"true")
        tally[key] += count


def _scan(
    folder: str, pack: int, games: Sequence[tuple[str, str]], write_packs: bool
) -> _Scan:
    """Read each game's replay once: tally its claims; write the pack of viewer data."""
    root = Path(folder)
    scan = _Scan()
    packed: list[tuple[str, bytes]] = []
    for game_id, replay in games:
        try:
            raw = (root / replay).read_bytes()
            names, found = scan_replay(zlib.decompress(raw, 31) if raw[:2] == b"\x1f\x8b" else raw)
        except (OSError, zlib.error, ValueError, KeyError, TypeError):
            scan.missing.append(game_id)  # gone or unreadable: `arena replay --verify` says why
            continue
        packed.append((game_id, raw))
        _tally_game(scan.tally, names, found)
        scan.scanned += 1
    if write_packs:
        _write_pack(root / folder_files.REPLAYS / pack_name(pack), pack_script(packed))
    return scan


def _write_pack(path: Path, content: bytes) -> None:
    """Write a pack unless the same bytes are there already.

    Rewriting a file in place is slow on ext4 (a file truncated and rewritten, or renamed
    over, is flushed when closed), and a resumed tournament changes only its last packs, so
    an unchanged pack is left alone and a changed one is removed before it is written.
    """
    try:
        if path.read_bytes() == content:
            return
        path.unlink()
    except FileNotFoundError:
        pass
    path.write_bytes(content)


def _scan_task(_: None, task: tuple[str, int, tuple[tuple[str, str], ...], bool]) -> _Scan:
    return _scan(*task)


def _packs(folder: Path, games: int) -> Iterator[tuple[int, tuple[tuple[str, str], ...]]]:
    """Games with a replay among the first `games` of the log, PACK at a time in log order:
    a resumed run only adds packs."""
    lines = itertools.islice(folder_files.iter_games(folder / folder_files.GAMES), games)
    listed = ((str(line["id"]), line["replay"]) for line in lines if line.get("replay"))
    for pack in itertools.count():
        chunk = tuple(itertools.islice(listed, PACK))
        if not chunk:
            return
        yield pack, chunk


def _scan_all(folder: Path, log: _Log, workers: int | None, write_packs: bool) -> _Scan:
    """Scan the replays of the games in `log`, a pack at a time: in this process for small
    tournaments, else on a process pool."""
    packs = _packs(folder, log.games)
    tasks = ((str(folder), pack, chunk, write_packs) for pack, chunk in packs)
    count = pool_size(workers, log.replays, PARALLEL_FROM)
    return _merge(_Scan(), ordered_map(Job(_scan_task), tasks, count))


def _merge(total: _Scan, parts: Iterable[_Scan]) -> _Scan:
    for part in parts:
        total.tally.update(part.tally)
        total.missing.extend(part.missing)
        total.scanned += part.scanned
    return total


def bluff_stats(
    tally: Mapping[_Key, int], entrants: Sequence[str], rules: Description | str,
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
    rows: dict[str, dict[str, Any]], key: _Key, count: int, index: Mapping[str, int]
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


# --- reading the folder -------------------------------------------------------------------


def _read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _game_rows(folder: Path, games: int | None = None) -> Iterator[GameRow]:
    """The log's games, or its first `games`: what the first pass saw, should a resumed
    run append more while the report is being built."""
    lines = folder_files.iter_games(folder / folder_files.GAMES)
    return map(_game_row, itertools.islice(lines, games))


def _game_row(line: Mapping[str, Any]) -> GameRow:
    faults = tuple((int(f["seat"]), str(f["kind"]), str(f["message"])) for f in line["faults"])
    return GameRow(
        id=str(line["id"]),
        stage=str(line.get("stage") or ""),
        table=int(line.get("table") or 0),
        entrants=tuple(line["entrants"]),
        placements=tuple(line["placements"]),
        scores=tuple(line["scores"]),
        faults=faults,
        decisions=int(line.get("decisions") or 0),
        replay=line.get("replay"),
    )


def _read_config(folder: Path) -> dict[str, Any]:
    path = folder / folder_files.CONFIG
    if not path.exists():
        return {"name": folder.name}
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded if isinstance(loaded, dict) else {"name": folder.name}


def _read_stages(folder: Path, config: Mapping[str, Any]) -> dict[str, Any]:
    """stages.json, needed whole only for an elimination's bracket: a round robin's lists
    every game, so for another format named in the config it is left unread."""
    fmt = config.get("format")
    kind = fmt.get("type") if isinstance(fmt, dict) else None
    path = folder / "stages.json"
    if (kind is not None and kind != "elimination") or not path.exists():
        return {}
    loaded = json.loads(path.read_text(encoding="utf-8"))
    return loaded if isinstance(loaded, dict) else {}


def _bracket_games(stages: Mapping[str, Any]) -> frozenset[str]:
    """The games the bracket links to: those of every elimination stage's tables."""
    return frozenset(
        game
        for stage in stages.get("stages", ())
        if stage.get("format") == "elimination"
        for table in stage.get("tables", ())
        for game in table.get("games") or ()
    )


def _read_log(folder: Path, entrants: Sequence[str], linked: frozenset[str]) -> _Log:
    """Count the games and collect what the page shows of them, one game at a time."""
    names = dict.fromkeys(entrants)
    stages: dict[str, None] = {}
    examples: dict[str, list[tuple[str, str, str]]] = {}
    packs: dict[str, int] = {}
    games = replays = 0
    for game in _game_rows(folder):
        games += 1
        names.update(dict.fromkeys(game.entrants))
        stages.setdefault(game.stage)
        found = _add_examples(examples, game)
        if game.replay:
            if found or game.id in linked:
                packs[game.id] = replays // PACK
            replays += 1
    shown = {name: tuple(listed) for name, listed in examples.items()}
    return _Log(games, replays, tuple(names), tuple(stages), shown, packs)


def _add_examples(found: dict[str, list[tuple[str, str, str]]], game: GameRow) -> bool:
    """Keep the game's faults among the first examples of each entrant; say if any was."""
    added = False
    for seat, kind, message in game.faults:
        listed = found.setdefault(game.entrants[seat], [])
        if len(listed) < _FAULT_EXAMPLES:
            listed.append((game.id, kind, message[:160]))
            added = True
    return added


@dataclass(frozen=True, slots=True)
class _Folder:
    """Everything the report shows, read from one results folder (the games as a `_Log`)."""

    path: Path
    config: Mapping[str, Any]
    log: _Log
    standings: tuple[Mapping[str, str], ...]
    ratings: Mapping[str, Any]
    crosstable: tuple[Mapping[str, str], ...]
    stages: Mapping[str, Any]

    @property
    def entrants(self) -> tuple[str, ...]:
        return tuple(row["entrant"] for row in self.standings)

    @property
    def rules(self) -> str:
        return str(self.config.get("rules") or "dice")

    @property
    def description(self) -> Description:
        """The rule set's description: built in, or from an installed plugin."""
        from arena.plugins import find_rules

        try:
            return find_rules(self.rules).description
        except RulesError as exc:
            raise ReportError(f"{self.path}: {exc}") from None


def _read_folder(folder: Path) -> _Folder:
    needed = [folder_files.GAMES, "standings.csv", "ratings.json", "crosstable.csv"]
    missing = [name for name in needed if not (folder / name).exists()]
    if missing:
        raise ReportError(
            f"{folder} is not a finished results folder (no {', '.join(missing)}); "
            "run the tournament, or finish it with `arena run CONFIG --resume`"
        )
    try:
        config = _read_config(folder)
        stages = _read_stages(folder, config)
        standings = tuple(_read_csv(folder / "standings.csv"))
        entrants = [row["entrant"] for row in standings]
        return _Folder(
            path=folder,
            config=config,
            log=_read_log(folder, entrants, _bracket_games(stages)),
            standings=standings,
            ratings=json.loads((folder / "ratings.json").read_text(encoding="utf-8")),
            crosstable=tuple(_read_csv(folder / "crosstable.csv")),
            stages=stages,
        )
    except (folder_files.ResultsError, KeyError, ValueError, TypeError, yaml.YAMLError) as exc:
        raise ReportError(f"{folder}: cannot read the results: {exc}") from None


# --- building -----------------------------------------------------------------------------


def build_report(
    folder: str | os.PathLike[str], *, workers: int | None = None, viewer: bool = True
) -> ReportSummary:
    """Write report.html, viewer.html and the viewer's data packs into a results folder;
    return where the report is and what it covers.

    `workers` caps the processes that read the replays (default: one per core, for big
    tournaments); `viewer=False` writes the report alone, without links to the games.
    """
    root = Path(folder)
    data = _read_folder(root)
    scan = _scan_all(root, data.log, workers, viewer)
    options = data.config.get("options") or {}
    sof = bool(options.get("straight_over_full", False))
    bluffs = bluff_stats(scan.tally, data.entrants, data.description, sof)
    missing = frozenset(scan.missing) if viewer else None
    page = render_report(data, bluffs, missing)
    size = folder_files.write_atomic(root / REPORT, page, durable=False)
    if viewer:
        folder_files.write_atomic(root / VIEWER, viewer_page(), durable=False)
        folder_files.write_atomic(root / RULES_SCRIPT, rules_script(data.description),
                                  durable=False)
    return ReportSummary(root / REPORT, size, data.log.games, scan.scanned,
                         tuple(scan.missing))  # fmt: skip


def _static(name: str) -> str:
    return resources.files("arena.report").joinpath("static", name).read_text(encoding="utf-8")


def viewer_page() -> str:
    """The replay viewer: one self-contained page, the same for every tournament."""
    page = _static("viewer.html")
    style = _static("common.css") + _static("viewer.css")
    return page.replace("/*STYLE*/", style).replace("/*SCRIPT*/", _static("viewer.js"))


# --- rendering: the page ------------------------------------------------------------------


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _links(log: _Log, missing: frozenset[str] | None) -> dict[str, int]:
    """The viewer pack of the games linked outside the list, if the viewer can show them;
    `missing` is None when there is no viewer."""
    if missing is None:
        return {}
    return {game_id: pack for game_id, pack in log.packs.items() if game_id not in missing}


def _game_link(game_id: str, links: Mapping[str, int], text: object) -> str:
    pack = links.get(game_id)
    if pack is None:
        return _e(text)
    return f'<a href="viewer.html#game={_e(game_id)}&amp;pack={pack}">{_e(text)}</a>'


def render_report(
    data: _Folder, bluffs: Sequence[BluffStats], missing: frozenset[str] | None
) -> Iterator[str]:
    """The report page in parts, the list of games a game at a time, so it is never held
    whole; `missing` names the games the viewer cannot show (None: no viewer)."""
    links = _links(data.log, missing)
    name = str(data.config.get("name") or "tournament")
    sections = [
        _section("standings", "Standings", _standings_table(data)),
        _section("ratings", "Ratings", _ratings_charts(data)),
        _section("crosstable", "Head to head", _heat_map(data)),
        _section("bluffing", "Bluffing", _bluff_table(bluffs, data.description)),
        _section("faults", "Faults", _faults(data, links)),
    ]
    if data.stages.get("format") == "elimination":
        sections.append(_section("bracket", "Bracket", _bracket(data.stages, links)))
    sections.append(_section("games", "Games", _games_section(data)))
    nav = "".join(
        f'<a href="#{key}">{_e(title)}</a>'
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
        f"<title>{_e(name)} · arena report</title>\n"
        f"<style>\n{_static('common.css')}{_static('report.css')}</style>\n</head>\n<body>\n"
        f'<header class="top"><div class="wrap"><p class="kicker">arena tournament report</p>'
        f"<h1>{_e(name)}</h1><p class=\"meta\">{_e(_summary_line(data))}</p>"
        f'<nav class="sections">{nav}</nav></div></header>\n'
        f'<main class="wrap">\n{"".join(sections)}</main>\n'
        f'<footer class="wrap">Made by arena {_e(__version__)} from {_e(folder_files.GAMES)}, '
        "the derived tables and the replays. This page works offline.</footer>\n"
        '<script type="application/json" id="rules-data">'
        f"{_script_safe(_compact(data.description.to_json()))}</script>\n"
        '<script type="application/json" id="games-data">'
    )
    # No part ends with "<", so escaping part by part escapes every "</" of the whole.
    yield from (part.replace("</", "<\\/") for part in _games_json(data, missing))
    yield f"</script>\n<script>\n{_static('report.js')}</script>\n</body>\n</html>\n"


def _section(key: str, title: str, body: str) -> str:
    return f'<section id="{key}"><h2>{_e(title)}</h2>\n{body}\n</section>\n'


def _summary_line(data: _Folder) -> str:
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


# --- standings ----------------------------------------------------------------------------


def _num(text: str | None, digits: int = 2, signed: bool = False) -> str:
    if not text:
        return "–"
    value = float(text)
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _pct(text: str | None) -> str:
    return "–" if not text else f"{100 * float(text):.1f}%"


_RANKED_BY_ELO = (
    "Ranked by Elo, a Bradley–Terry fit to who placed above whom over all games at once "
    "(mean 0; the order games were played in does not matter). <abbr>~</abbr>: its 95% "
    "interval overlaps the one ranked above, a statistical tie the games cannot yet break."
)
_RANKED_BY_BRACKET = (
    "Ranked by the bracket: the champion first, then by the round reached (within a round, "
    "by place at the table, then seed). Elo (Bradley–Terry, mean 0) and OpenSkill are columns."
)
_RANKED_BY_OPENSKILL = (
    "Ranked by OpenSkill ordinal, as arena ranked before issue 11 (these tables were written "
    "then; `arena run --force` remakes them ranked by Elo, or by the bracket)."
)
_COLUMNS_NOTE = (
    " Under the win rate and the Elo: their 95% intervals. OpenSkill: ordinal μ − 3σ, updated "
    "game by game, a cautious estimate that needs many games to rise."
)


def _standings_table(data: _Folder) -> str:
    head = (
        "<tr><th class=num>#</th><th>Entrant</th><th class=num>Games</th><th class=num>Wins</th>"
        "<th class=num>Win rate</th><th class=num>Mean place</th><th class=num>Elo</th>"
        "<th class=num>OpenSkill</th><th class=num>Faults</th></tr>"
    )
    body = "".join(_standing_row(row) for row in data.standings)
    note = f'<p class="note" id="ranked-by">{_ranked_by(data)}{_COLUMNS_NOTE}</p>'
    return (
        f'<div class="scroll"><table class="standings data"><thead>{head}</thead>'
        f"<tbody>{body}</tbody></table></div>{note}"
    )


def _ranked_by(data: _Folder) -> str:
    """What orders standings.csv: the bracket, Elo, or (a folder from before the `tied`
    column) OpenSkill."""
    if data.standings and "tied" not in data.standings[0]:
        return _RANKED_BY_OPENSKILL
    fmt = data.config.get("format")
    kind = fmt.get("type") if isinstance(fmt, dict) else data.stages.get("format")
    return _RANKED_BY_BRACKET if kind == "elimination" else _RANKED_BY_ELO


_TIE = (
    '<abbr class="tie" title="95% Elo interval overlaps the one above: a statistical tie">'
    "~</abbr>"
)


def _standing_row(row: Mapping[str, str]) -> str:
    faults = sum(int(row.get(kind) or 0) for kind in FAULT_KINDS)
    ci = ""
    if row.get("win_low"):
        ci = f"<small>{_pct(row['win_low'])}–{_pct(row['win_high'])}</small>"
    elo_ci = ""
    if row.get("elo_low"):
        elo_ci = f"{_num(row['elo_low'], 0, True)} to {_num(row['elo_high'], 0, True)}"
    medal = f' class="medal m{row["rank"]}"' if row.get("rank") in ("1", "2", "3") else ""
    tie = _TIE if row.get("tied") == "1" else ""
    elo = _num(row.get("elo"), 0, True)
    cells = [
        f"<td class=num>{tie}<span{medal}>{_e(row.get('rank') or '–')}</span></td>",
        f"<td class=name>{_e(row['entrant'])}</td>",
        f"<td class=num>{_e(row['games'])}</td>",
        f"<td class=num>{_e(row['wins'])}</td>",
        f"<td class='num rate'><strong>{_pct(row.get('win_rate'))}</strong>{ci}</td>",
        f"<td class=num>{_num(row.get('mean_placement'))}</td>",
        f"<td class='num rate'><strong>{elo}</strong><small>{elo_ci}</small></td>",
        f"<td class=num>{_num(row.get('rating'))}</td>",
        f"<td class=\"num{' warn' if faults else ''}\">{faults or '–'}</td>",
    ]
    return f"<tr data-entrant=\"{_e(row['entrant'])}\">{''.join(cells)}</tr>"


# --- ratings chart ------------------------------------------------------------------------


def _nice_step(span: float, target: int = 6) -> float:
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
        return f'<p class="note">{_e(title)}: no rated entrants yet.</p>'
    width, left, right, row_h, top = 760, 150, 170, 34, 18
    extra = () if reference is None else (reference,)
    low = min([r[1] for r in rows] + list(extra))
    high = max([r[3] for r in rows] + list(extra))
    step = _nice_step(high - low or 1.0)
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
            f'<g class="row"><title>{_e(name)}: {mid:.{digits}f} '
            f"(95% interval {lo:.{digits}f} to {hi:.{digits}f})</title>"
            f'<text class="label" x="{left - 12}" y="{y + 5:.1f}">{_e(name)}</text>'
            f'<line class="ci" x1="{x(lo):.1f}" x2="{x(hi):.1f}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f"{_cap(x(lo), y)}{_cap(x(hi), y)}"
            f'<circle class="est" cx="{x(mid):.1f}" cy="{y:.1f}" r="6.5"/>'
            f'<text class="value" x="{width - right + 14}" y="{y + 5:.1f}">{mid:{sign}.{digits}f} '
            f'<tspan class="dim">[{lo:{sign}.{digits}f}, {hi:{sign}.{digits}f}]</tspan></text></g>'
        )
    return (
        f'<figure class="chart"><figcaption>{_e(title)}</figcaption>'
        f'<svg viewBox="0 0 {width} {height}" role="img" aria-label="{_e(title)}">'
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
            f'<text class="tick" x="{tx:.1f}" y="{bottom + 20}">{_e(label)}</text>'
        )
    return "".join(ticks)


def _ratings_charts(data: _Folder) -> str:
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


# --- crosstable heat map ------------------------------------------------------------------


def _heat_colour(score: float) -> tuple[str, str]:
    """Background and text colour: orange below 50%, white at 50%, blue above."""
    strength = min(1.0, abs(score - 0.5) * 2)
    base = (33, 102, 172) if score >= 0.5 else (214, 96, 77)
    r, g, b = (round(255 + (c - 255) * strength) for c in base)
    ink = "#ffffff" if strength > 0.6 else "#16202c"
    return f"rgb({r},{g},{b})", ink


def _heat_map(data: _Folder) -> str:
    cells = {(r["entrant"], r["opponent"]): r for r in data.crosstable}
    names = data.entrants
    head = "".join(f'<th class="col"><span>{_e(n)}</span></th>' for n in names)
    rows = []
    for name in names:
        tds = [f"<th class=name>{_e(name)}</th>"]
        for other in names:
            tds.append(_heat_cell(cells.get((name, other)), name == other))
        rows.append(f"<tr>{''.join(tds)}</tr>")
    return (
        '<div class="scroll"><table class="heat"><thead><tr><th class="corner">entrant ↓ '
        f"against →</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        '<p class="note">Each cell: how often the row entrant finished above the column '
        "entrant when they met (ties count half). Blue: the row does better; orange: worse. "
        "Hover for the counts.</p>"
    )


def _heat_cell(row: Mapping[str, str] | None, same: bool) -> str:
    if same:
        return '<td class="self">—</td>'
    games = int(row["games"]) if row else 0
    if not games or row is None:
        return '<td class="empty">·</td>'
    above, below, ties = int(row["above"]), int(row["below"]), int(row["ties"])
    score = (above + ties / 2) / games
    background, ink = _heat_colour(score)
    tip = f"{above} above, {below} below, {ties} tied in {games} games"
    return (
        f'<td style="background:{background};color:{ink}" title="{tip}" '
        f'data-score="{score:.4f}">{round(100 * score)}%</td>'
    )


# --- bluffing -----------------------------------------------------------------------------

_CATEGORY_COLOURS = {
    "high": "#c9d3df", "pair": "#8fb3d9", "two-pair": "#4f8fc9", "three": "#2b6aa6",
    "straight": "#6b57a5", "flush": "#a0519b", "full": "#d0605e", "four": "#e08f3c",
    "straight-flush": "#c9a227", "five": "#3e8e5c",
}  # fmt: skip


def _bluff_table(bluffs: Sequence[BluffStats], rules: Description) -> str:
    if not any(b.claims or b.challenges for b in bluffs):
        return '<p class="note">No replays to read: bluffing statistics need replay files.</p>'
    space = hands.claim_space(rules.hand).claims
    dice = not rules.central  # a blind claim: only where the claim is about a hand held
    used = [c for c in _CATEGORY_COLOURS if any(dict(b.categories).get(c) for b in bluffs)]
    legend = "".join(
        f'<span class="key"><i style="background:{_CATEGORY_COLOURS[c]}"></i>{_e(c)}</span>'
        for c in used
    )
    head = (
        "<tr><th>Entrant</th><th class=num>Claims</th>"
        + ("<th class=num>Blind</th>" if dice else "")
        + "<th>Mean claim</th><th class=wide>How high it claims</th>"
        "<th class=num>True when challenged</th><th class=num>Challenges right</th></tr>"
    )
    rows = "".join(_bluff_row_html(b, space, dice) for b in bluffs)
    return (
        f'<div class="legend">{legend}</div>'
        f'<div class="scroll"><table class="bluff data"><thead>{head}</thead>'
        f"<tbody>{rows}</tbody></table></div>"
        '<p class="note"><strong>True when challenged</strong>: of its claims that were '
        f"{'challenged' if dice else 'rejected'}, how many held (high: it rarely bluffs, or "
        f"bluffs where nobody dares call). <strong>Challenges right</strong>: of its "
        f"{'challenges' if dice else 'rejections'}, how many caught a false claim. "
        "<strong>Mean claim</strong>: the average position of its claims on the rule set's "
        f"ladder of {len(space)} claims, and the claim at that position. Under each rate: how "
        "many it is of, and its 95% interval.</p>"
    )


def _rate_cell(successes: int, trials: int) -> str:
    if not trials:
        return "<td class=num>–</td>"
    low, high = wilson_interval(successes, trials)
    return (
        f"<td class='num rate'><strong>{100 * successes / trials:.0f}%</strong>"
        f"<small>of {trials:,} · {100 * low:.0f}–{100 * high:.0f}%</small></td>"
    )


def _bluff_row_html(b: BluffStats, space: Sequence[hands.Value], dice: bool) -> str:
    mean = b.mean_claim_index
    mean_cell = "–"
    if mean is not None:
        said = str(space[round(mean)])  # tens as T, as claims are written everywhere
        mean_cell = f"{_e(said)}<small>{mean + 1:.1f} of {len(space)}</small>"
    blind = ""
    if dice:
        blind = f"<td class=num>{_pct(str(b.blind / b.claims)) if b.claims else '–'}</td>"
    return (
        f'<tr data-entrant="{_e(b.entrant)}"><td class=name>{_e(b.entrant)}</td>'
        f"<td class=num>{b.claims:,}</td>{blind}<td class=mean>{mean_cell}</td>"
        f"<td>{_category_bar(b)}</td>"
        f"{_rate_cell(b.held, b.challenged)}{_rate_cell(b.right, b.challenges)}</tr>"
    )


def _category_bar(b: BluffStats) -> str:
    if not b.claims:
        return ""
    parts = []
    for category, count in b.categories:
        share = 100 * count / b.claims
        parts.append(
            f'<i style="width:{share:.2f}%;background:{_CATEGORY_COLOURS.get(category, "#999")}" '
            f'title="{_e(category)}: {count:,} claims ({share:.0f}%)"></i>'
        )
    return f'<div class="bar" role="img" aria-label="claims by category">{"".join(parts)}</div>'


# --- faults -------------------------------------------------------------------------------


def _faults(data: _Folder, links: Mapping[str, int]) -> str:
    totals = {row["entrant"]: [int(row.get(k) or 0) for k in FAULT_KINDS] for row in data.standings}
    if not any(sum(v) for v in totals.values()):
        return '<p class="ok">No faults: every bot answered legally and in time.</p>'
    examples = data.log.examples
    head = "".join(f"<th class=num>{_e(k)}</th>" for k in FAULT_KINDS)
    rows = []
    for name, counts in totals.items():
        cells = "".join(f"<td class=\"num{' warn' if c else ''}\">{c or '–'}</td>" for c in counts)
        seen = "".join(
            f"<li>{_game_link(g, links, g)} <b>{_e(k)}</b>: {_e(m)}</li>"
            for g, k, m in examples.get(name, ())
        )
        rows.append(
            f"<tr><td class=name>{_e(name)}</td>{cells}<td class=num>{sum(counts) or '–'}</td>"
            f'<td><ul class="examples">{seen}</ul></td></tr>'
        )
    return (
        f'<table class="faults data"><thead><tr><th>Entrant</th>{head}<th class=num>total</th>'
        f"<th>First examples</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        '<p class="note">timeout: too slow; crash: the bot raised or died; illegal: an action '
        "the rules do not allow; protocol: an answer that could not be read.</p>"
    )


# --- elimination --------------------------------------------------------------------------


def _bracket(stages: Mapping[str, Any], links: Mapping[str, int]) -> str:
    columns = []
    for stage in stages.get("stages", ()):
        if stage.get("format") != "elimination":
            columns.append(_seeding_column(stage))
            continue
        tables = "".join(_bracket_table(t, links) for t in stage.get("tables", ()))
        byes = stage.get("byes") or ()
        bye = f'<p class="bye">bye: {_e(", ".join(byes))}</p>' if byes else ""
        columns.append(
            f'<div class="stage"><h3>{_e(stage["name"])}</h3>{tables}{bye}</div>'
        )
    ranking = stages.get("ranking")
    scored = any(t.get("points") for s in stages.get("stages", ()) for t in s.get("tables", ()))
    note = (
        '<p class="note">Beside each name: its match score, the games it won (at tables of '
        "more than two, seats − place points a game).</p>"
        if scored
        else ""
    )
    final = ""
    if ranking:
        items = "".join(f"<li>{_e(n)}</li>" for n in ranking)
        final = f'<div class="stage final"><h3>final ranking</h3><ol>{items}</ol></div>'
    return f'<div class="bracket">{"".join(columns)}{final}</div>{note}'


def _seeding_column(stage: Mapping[str, Any]) -> str:
    ranking = stage.get("ranking") or ()
    items = "".join(f"<li>{_e(n)}</li>" for n in ranking)
    games = sum(len(t.get("games", ())) for t in stage.get("tables", ()))
    return (
        f'<div class="stage"><h3>{_e(stage.get("name", "seeding"))}</h3>'
        f'<p class="dim">round robin, {games} games; seeds:</p><ol>{items}</ol></div>'
    )


def _bracket_table(table: Mapping[str, Any], links: Mapping[str, int]) -> str:
    advanced = set(table.get("advanced") or ())
    order = table.get("ranking") or table.get("entrants") or ()
    points: Sequence[Any] = table.get("points") or ()  # absent from folders before issue 11
    scores = [f' <b class="score">{_e(p)}</b>' for p in points] if table.get("ranking") else []
    rows = "".join(
        f'<li class="{"through" if name in advanced else "out"}">{_e(name)}{score}</li>'
        for name, score in itertools.zip_longest(order, scores[: len(order)], fillvalue="")
    )
    games: Sequence[Any] = table.get("games") or ()
    game_links = " ".join(
        _game_link(g, links, i) for i, g in enumerate(games, 1)
    )
    return (
        f'<div class="match"><div class="match-head">table {_e(table.get("table", ""))}'
        f'<span class="games">games {game_links}</span></div><ol>{rows}</ol></div>'
    )


# --- the games list -----------------------------------------------------------------------


def _games_section(data: _Folder) -> str:
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


def _games_json(data: _Folder, missing: frozenset[str] | None) -> Iterator[str]:
    """The list of games as compact JSON, a game at a time in log order, read again from
    games.jsonl; each row ends with the game's viewer pack, or -1."""
    log = data.log
    known = {name: i for i, name in enumerate(log.names)}
    stage_index = {stage: i for i, stage in enumerate(log.stages)}
    head = {"names": list(log.names), "stages": list(log.stages),
            "score": data.description.unit}
    yield _compact(head)[:-1] + ',"games":['
    replays = 0
    for number, game in enumerate(_game_rows(data.path, log.games)):
        pack = -1
        if game.replay:
            if missing is not None and game.id not in missing:
                pack = replays // PACK
            replays += 1
        row = [
            game.id, stage_index[game.stage], game.table,
            [known[n] for n in game.entrants], list(game.placements), list(game.scores),
            len(game.faults), game.decisions, pack,
        ]  # fmt: skip
        yield ("," if number else "") + _compact(row)
    yield "]}"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

