"""Reading a finished results folder for the report: config.yaml, standings.csv,
ratings.json, crosstable.csv, stages.json, grades.json if there, a ladder's ladder.json
(without which a ladder's folder needs no other derived table) and ladder-history.jsonl, and
games.jsonl one game at a time.

Memory does not grow with the games: games.jsonl is read one game at a time (here, or by
the report's one pass given as `games`, arena.report.increment, which reads only the games
added since the last build). Held whole: the small tables, and
stages.json for an elimination only (its seeding round robin is capped, its knockout is
small; other formats need only its format).

This module must not read the replays, write anything, or change what `arena run` wrote.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.hosts.inline import printable
from arena.hosts.trace import bounded
from arena.ratings.render import sheet_text
from arena.report import viewer
from arena.report.ladder.data import HISTORY, LADDER, LadderView, read_ladder
from arena.rules import RulesError
from arena.rules.base import Description
from arena.tournament.config import ConfigError
from arena.tournament.config.yaml_lines import read_yaml
from arena.tournament.run import results as folder_files
from arena.tournament.run import safe_read, strained

__all__ = [
    "FaultExample",
    "Folder",
    "GameRow",
    "GamesLog",
    "ReportError",
    "add_examples",
    "game_problem",
    "game_row",
    "game_rows",
    "read_folder",
]

_FAULT_EXAMPLES = 3
"""Examples kept of each fault kind of each entrant."""
_MESSAGE, _SENT = 160, 120
"""The characters kept of a fault's message and of what the bot sent."""


class ReportError(Exception):
    """A folder the report cannot be built from; the message says what is missing."""


@dataclass(frozen=True, slots=True)
class GameRow:
    """One game as the report lists it."""

    id: str
    stage: str
    table: int
    entrants: tuple[str, ...]
    placements: tuple[int, ...]
    scores: tuple[int, ...]
    faults: tuple[tuple[int, str, str, str | None, tuple[str, ...]], ...]
    """(seat, kind, message, what the bot sent or None, its trace), in the log's order."""
    decisions: int
    replay: str | None


@dataclass(frozen=True, slots=True)
class FaultExample:
    """One fault shown in the report: the `index`-th fault of its game (the viewer opens at
    it), its kind and message, for a bad answer what the bot sent, and for a crash where in
    the bot's own code it raised (its trace's frames, innermost last)."""

    game: str
    index: int
    kind: str
    message: str
    sent: str | None
    trace: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GamesLog:
    """What the report needs from games.jsonl beyond the list of games, from one pass."""

    games: int
    replays: int
    """Games that list a replay file."""
    names: tuple[str, ...]
    """The entrants, then any other name seated, for the list of games."""
    stages: tuple[str, ...]
    """Stage names in order of first appearance, for the list of games."""
    examples: Mapping[str, tuple[FaultExample, ...]]
    """The first faults of each kind of each entrant, in the log's order."""
    packs: Mapping[str, int]
    """The viewer pack of the games linked outside the list: fault examples, bracket."""


def _read_csv(path: Path) -> list[dict[str, str]]:
    """The rows of standings.csv or crosstable.csv, each name as it was before the writer
    quoted it for a spreadsheet."""
    text = safe_read.read_file(path).decode("utf-8")
    return [{key: sheet_text(cell) if key in _NAMES and isinstance(cell, str) else cell
             for key, cell in row.items()}
            for row in csv.DictReader(io.StringIO(text, newline=""))]


_NAMES = ("entrant", "opponent")  # the name columns, through ratings.render.sheet_cell


def game_rows(folder: Path, games: int | None = None) -> Iterator[GameRow]:
    """The log's games, or its first `games`: what the first pass saw, should a resumed
    run append more while the report is being built."""
    path = folder / folder_files.GAMES
    lines = enumerate(folder_files.iter_games(path), 1)
    return (game_row(path, number, line) for number, line in itertools.islice(lines, games))


def game_row(path: Path, number: int, line: Mapping[str, Any]) -> GameRow:
    problem = game_problem(line)
    if problem is not None:  # a folder someone sent: what the page computes with is checked
        raise ValueError(f"{path}:{number}: not a game record ({problem})")
    faults = tuple(
        (int(f["seat"]), str(f["kind"]), str(f["message"]),
         None if f.get("sent") is None else str(f["sent"]),
         bounded(f.get("trace"), printable))  # the folder's words: bounded, printable
        for f in line["faults"]
    )
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


_LARGEST = 1 << 53
"""The largest count or score a game record may hold: a float holds every whole number up
to it, so sums and spreads of scores stay numbers."""


def game_problem(line: Mapping[str, Any]) -> str | None:
    """What in a game record is not as arena writes it, or None: its entrants names, a
    place and a finite score for each, each fault of a seat at the table, counts whole."""
    entrants, places, scores = line.get("entrants"), line.get("placements"), line.get("scores")
    if not (isinstance(entrants, list) and entrants and all(isinstance(e, str) for e in entrants)):
        return "its entrants are not a list of names"
    seats = len(entrants)
    if not (isinstance(places, list) and len(places) == seats
            and all(_whole(p) and 1 <= p <= seats for p in places)):  # fmt: skip
        return f"its placements are not a place from 1 to {seats} for each entrant"
    if not (isinstance(scores, list) and len(scores) == seats
            and all(_number(x) and abs(x) <= _LARGEST for x in scores)):  # fmt: skip
        return "its scores are not a number for each entrant"
    faults = line.get("faults")
    if not isinstance(faults, list) or not all(
            isinstance(f, dict) and _whole(f.get("seat")) and 0 <= f["seat"] < seats
            and isinstance(f.get("kind"), str) and isinstance(f.get("message"), str)
            for f in faults):  # fmt: skip
        return f"its faults are not each a kind and message of a seat from 0 to {seats - 1}"
    if "id" not in line or not all(_whole(line.get(k) or 0) and 0 <= (line.get(k) or 0)
                                   <= _LARGEST for k in ("table", "decisions")):  # fmt: skip
        return "its id, table or decisions are missing or not whole numbers"
    return None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _read_config(folder: Path) -> dict[str, Any]:
    path = folder / folder_files.CONFIG
    if not path.exists():
        return {"name": folder.name}
    loaded = read_yaml(safe_read.read_file(path).decode("utf-8"), str(path))
    return loaded if isinstance(loaded, dict) else {"name": folder.name}


def _read_stages(folder: Path, config: Mapping[str, Any]) -> dict[str, Any]:
    """stages.json, needed whole only for an elimination's bracket or a Swiss's rounds: a
    round robin's lists every game, so for another format named in the config it is left
    unread."""
    fmt = config.get("format")
    kind = fmt.get("type") if isinstance(fmt, dict) else None
    path = folder / "stages.json"
    if (kind is not None and kind not in ("elimination", "swiss")) or not path.exists():
        return {}
    loaded = safe_read.json_file(path)
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


def _read_log(folder: Path, entrants: Sequence[str], linked: frozenset[str]) -> GamesLog:
    """Count the games and collect what the page shows of them, one game at a time."""
    names = dict.fromkeys(entrants)
    stages: dict[str, None] = {}
    examples: dict[str, list[FaultExample]] = {}
    packs: dict[str, int] = {}
    games = replays = 0
    for game in game_rows(folder):
        games += 1
        names.update(dict.fromkeys(game.entrants))
        stages.setdefault(game.stage)
        found = add_examples(examples, game)
        if game.replay:
            if found or game.id in linked:
                packs[game.id] = replays // viewer.PACK
            replays += 1
    shown = {name: tuple(listed) for name, listed in examples.items()}
    return GamesLog(games, replays, tuple(names), tuple(stages), shown, packs)


def add_examples(found: dict[str, list[FaultExample]], game: GameRow) -> bool:
    """Keep the game's faults among the first examples of each kind of each entrant (so a
    bot that crashes often still shows its one illegal move); say if any was kept."""
    added = False
    for index, (seat, kind, message, sent, trace) in enumerate(game.faults):
        listed = found.setdefault(game.entrants[seat], [])
        if sum(e.kind == kind for e in listed) < _FAULT_EXAMPLES:
            shown = None if sent is None else sent[:_SENT]
            listed.append(FaultExample(game.id, index, kind, message[:_MESSAGE], shown, trace))
            added = True
    return added


@dataclass(frozen=True, slots=True)
class Folder:
    """Everything the report shows, read from one results folder (the games as a `GamesLog`)."""

    path: Path
    config: Mapping[str, Any]
    log: GamesLog
    standings: tuple[Mapping[str, str], ...]
    ratings: Mapping[str, Any]
    crosstable: tuple[Mapping[str, str], ...]
    stages: Mapping[str, Any]
    ladder: LadderView | None = None
    """A ladder's ladder.json (arena/report/ladder/data.py); None for other formats."""
    grades: tuple[str, ...] = ()
    """grades.json's sentences, one per graded entrant; none without `grades:`."""
    load: str | None = None
    """load.json's warning: the machine strained decisions (arena/tournament/run/strained.py)."""

    @property
    def entrants(self) -> tuple[str, ...]:
        return _entrants(self.standings, self.ladder)

    @property
    def rules(self) -> str:
        return str(self.config.get("rules") or "dice")

    @property
    def description(self) -> Description:
        """The rule set's description: built in, or from an installed plugin."""
        from arena.rules import get_rules

        try:
            return get_rules(self.rules).description
        except RulesError as exc:
            raise ReportError(f"{self.path}: {exc}") from None


_DERIVED = ("standings.csv", "ratings.json", "crosstable.csv")
"""The derived tables the report needs, but for a ladder, whose ladder.json says enough."""


def _ladder(folder: Path) -> LadderView | None:
    path = folder / LADDER
    if not path.exists():
        return None
    try:
        return read_ladder(safe_read.json_file(path), _history_lines(folder / HISTORY))
    except KeyError as exc:
        raise ValueError(f"{LADDER} has no {exc} where the ladder's contract puts one") from None


def _history_lines(path: Path) -> list[dict[str, Any]]:
    """ladder-history.jsonl's lines (none before the first batch), read as a stranger's: a
    regular file of at most safe_read.FILE_BYTES, each line one bounded JSON object."""
    if not path.exists():
        return []
    found = []
    for number, line in enumerate(safe_read.read_file(path).decode().splitlines(), 1):
        try:
            found.append(safe_read.json_object(line))
        except safe_read.Unreadable as exc:
            raise safe_read.Unreadable(f"{path}:{number}: {exc}") from None
    return found


def _optional_json(path: Path) -> dict[str, Any]:
    """ratings.json or grades.json, which arena writes as a JSON object (else {} if absent)."""
    loaded = safe_read.json_file(path) if path.exists() else {}
    if not isinstance(loaded, dict):
        raise TypeError(f"{path}: not a JSON object but {type(loaded).__name__}")
    return loaded


_INTERVALS = {"elo": ("low", "rating", "high"), "openskill": ("low", "mu", "high")}
"""What the ratings charts read of each entrant in ratings.json (a rating of None: unrated)."""


def _ratings(ratings: dict[str, Any]) -> dict[str, Any]:
    """ratings.json as the charts read it, each value they read checked: a number where
    they compute with one (a folder someone sent is not trusted to hold them)."""
    entrants = ratings.get("entrants", {})
    if not isinstance(entrants, dict):
        raise TypeError("ratings.json: its entrants are not an object")
    for name, rating in entrants.items():
        if not isinstance(rating, dict | None):
            raise TypeError(f"ratings.json: the rating of {name!r} is not an object")
        for key, fields in _INTERVALS.items():
            interval = (rating or {}).get(key)
            if interval and not (isinstance(interval, dict) and (
                    (key == "elo" and interval.get("rating") is None)
                    or all(_number(interval.get(f)) for f in fields))):  # fmt: skip
                raise ValueError(f"ratings.json: the {key} of {name!r} is not numbers "
                                 f"({', '.join(fields)})")
    return ratings


def _load(folder: Path) -> str | None:
    strain = strained.read(folder)
    return None if strain is None else strain.sentence()


def _optional_csv(path: Path) -> tuple[dict[str, str], ...]:
    return tuple(_read_csv(path)) if path.exists() else ()


def _entrants(
    standings: Sequence[Mapping[str, str]], ladder: LadderView | None
) -> tuple[str, ...]:
    """The standings' entrants; for a ladder without standings.csv, its players: the ranked
    first, then every other version that played."""
    if standings or ladder is None:
        return tuple(row["entrant"] for row in standings)
    ranked = [row.player for row in ladder.ranking]
    played = [v.player for v in ladder.versions if v.games]
    return tuple(dict.fromkeys(ranked + played))


def read_folder(folder: Path, games: Callable[[Path, tuple[str, ...], frozenset[str]],
                GamesLog] | None = None) -> Folder:  # fmt: skip
    """The folder's tables and, by `games(folder, entrants, linked)`, its games' log."""
    needed = [folder_files.GAMES, *(() if (folder / LADDER).exists() else _DERIVED)]
    missing = [name for name in needed if not (folder / name).exists()]
    if missing:
        raise ReportError(
            f"{folder} is not a finished results folder (no {', '.join(missing)}); "
            "run the tournament, or finish it with `arena run CONFIG --resume`"
        )
    try:
        config = _read_config(folder)
        stages = _read_stages(folder, config)
        standings = _optional_csv(folder / "standings.csv")
        ladder = _ladder(folder)
        return Folder(
            path=folder,
            config=config,
            log=(games or _read_log)(folder, _entrants(standings, ladder), _bracket_games(stages)),
            standings=standings,
            ratings=_ratings(_optional_json(folder / "ratings.json")),
            crosstable=_optional_csv(folder / "crosstable.csv"),
            stages=stages,
            ladder=ladder,
            grades=tuple(str(g["sentence"]) for g in _optional_json(
                folder / folder_files.GRADES).get("graded", ())),
            load=_load(folder),
        )
    except (folder_files.ResultsError, safe_read.Unreadable, ConfigError, csv.Error, KeyError,
            ValueError, TypeError, AttributeError) as exc:
        raise ReportError(f"{folder}: cannot read the results: {exc}") from None
