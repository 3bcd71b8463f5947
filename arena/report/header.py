"""The report's header: what was played, read from config.yaml as run (every default filled),
and links to the files of the folder, so a published page says how its results were made.

This module must not write anything; beyond config.yaml and load.json (already read) it
only asks which files the folder holds and when games.jsonl was last written.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from arena.report.folder import Folder
from arena.report.ladder.data import LADDER
from arena.report.markup import escape
from arena.tournament.run import results as folder_files

__all__ = ["FILES", "header_facts", "played_at"]

FILES = (
    folder_files.CONFIG, "standings.csv", "ratings.json", "crosstable.csv",
    folder_files.GAMES, "stages.json", folder_files.GRADES, LADDER, folder_files.LOAD,
)  # fmt: skip
"""The folder's files the header links to, those present."""


def played_at(data: Folder) -> str:
    """When games.jsonl was last written (its modification time, UTC): when the last game
    ended, which copying the folder with its times (cp -p, rsync -t) keeps."""
    stamp = (data.path / folder_files.GAMES).stat().st_mtime
    when = datetime.datetime.fromtimestamp(stamp, datetime.UTC)
    return when.strftime("%Y-%m-%d %H:%M UTC")


def _words(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _rules(data: Folder) -> str:
    options = data.config.get("options") or {}
    listed = ", ".join(f"{k} {_words(v)}" for k, v in options.items()) if isinstance(
        options, Mapping) else ""  # fmt: skip
    return f"{data.rules}" + (f" ({listed})" if listed else " (default options)")


def _format(data: Folder) -> str:
    fmt = data.config.get("format")
    if not isinstance(fmt, Mapping):
        return str(data.stages.get("format") or "–")
    kind = str(fmt.get("type", "–"))
    parts = [kind]
    if "seats" in fmt:
        parts.append(f"{fmt['seats']} seats a table")
    if "games" in fmt and kind == "swiss":
        deals = f"{fmt['games']} deal{'s' if fmt['games'] != 1 else ''}"
        parts.append(f"{deals} a table a round, each at every seat rotation")
    elif "games" in fmt:
        each = "match" if kind == "elimination" else "seating"
        parts.append(f"{fmt['games']} game{'s' if fmt['games'] != 1 else ''} a {each}")
    for key in ("advance", "seeding", "cap", "rounds"):
        if fmt.get(key):
            parts.append(f"{key} {fmt[key]}")
    return ", ".join(parts)


def _limits(config: Mapping[str, Any]) -> str:
    limits = config.get("limits")
    if not isinstance(limits, Mapping):
        return "the defaults of the arena that ran it"
    decision = limits.get("decision")
    bank = limits.get("game")
    parts = [f"{_words(decision)} s a decision" if decision is not None else "no decision limit"]
    parts.append(f"a {bank} s bank a game" if bank is not None else "no bank a game")
    if limits.get("wall_factor") is not None:
        parts.append(f"wall clock × {limits['wall_factor']}")
    return ", ".join(parts)


def _seeds(data: Folder) -> str:
    if (data.path / folder_files.SECRET).exists():
        return (
            "one tournament seed, kept secret (the folder's secret file, never published); "
            "each game's seed is derived from it and the game's id (in games.jsonl)"
        )
    return "each game's seed is in games.jsonl"


def _isolation(config: Mapping[str, Any]) -> str:
    level = config.get("isolation")
    return str(level) if level else "the strongest the machine gave"


def _files(data: Folder) -> str:
    return " ".join(
        f'<a href="{escape(name)}">{escape(name)}</a>'
        for name in FILES
        if (data.path / name).exists()
    )


def header_facts(data: Folder) -> str:
    """What was played, as a definition list for the page's header."""
    replays = data.config.get("replays")
    facts = [
        ("played", f"{played_at(data)} (games.jsonl last written)"),
        ("rules", _rules(data)),
        ("format", _format(data)),
        ("time limits", _limits(data.config)),
        ("isolation", _isolation(data.config)),
        ("seeds", _seeds(data)),
    ]
    if replays is not None:
        facts.append(("replays", "kept for every game" if replays else "not kept"))
    if data.load is not None:
        facts.append(("machine", data.load))
    items = "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in facts)
    files = f'<div class="files"><dt>files</dt><dd>{_files(data)}</dd></div>'
    return f'<dl class="facts">{items}{files}</dl>'
