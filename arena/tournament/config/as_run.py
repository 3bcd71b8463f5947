"""The configuration as run: plain data with every default filled, saved as config.yaml in
the results folder and compared with the current config on resume. The seed is not in it:
it is the run's secret, kept in its own file (arena/tournament/run/results.py, `secret`).

`config_as_run` and `dump_config` give it (sorted keys, stable bytes); `config_differences`
lists how one became the other, one dotted key per line.

This module must not import the rules, the referee, pluggy or click, and never reads or
writes a file itself (the run does).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import fields
from os import PathLike
from pathlib import Path
from typing import Any

import yaml

from arena.botfile import BotFile
from arena.limits import START_TIMEOUT
from arena.tournament.config import (
    ClusterConfig,
    EntrantConfig,
    FormatConfig,
    KeyPath,
    TournamentConfig,
    dotted,
)
from arena.tournament.config.entrants import names_a_path

__all__ = ["config_as_run", "config_differences", "dump_config"]


def config_as_run(
    cfg: TournamentConfig, folder: str | PathLike[str] | None = None
) -> dict[str, Any]:
    """Return the config as plain data with every default filled, to save and compare on resume.

    With `folder` (where the saved file goes), a relative bot file path is written relative
    to it, so the saved file is a valid config wherever it is read from; two runs from two
    checkouts with the same layout save the same bytes."""
    return {
        "name": cfg.name,
        "rules": cfg.rules,
        "options": cfg.options.dict(),
        "entrants": [_entrant_as_run(e, folder) for e in cfg.entrants],
        "format": _format_as_run(cfg.format),
        "limits": {"decision": cfg.limits.decision, "game": cfg.limits.bank,
                   "wall_factor": cfg.limits.wall_factor,
                   **({} if cfg.start_timeout == START_TIMEOUT else
                      {"start": cfg.start_timeout})},  # saved as before when not set
        "mode": cfg.mode,
        "isolation": cfg.isolation,
        "workers": cfg.workers,
        "output": cfg.output or f"results/{cfg.name}",
        "replays": cfg.replays,
        **({"cluster": _cluster_as_run(cfg.cluster, folder)} if cfg.cluster else {}),
        **({"grades": [{grade: bot} for grade, bot in cfg.grades]} if cfg.grades else {}),
    }


def _cluster_as_run(cluster: ClusterConfig, folder: str | PathLike[str] | None) -> Any:
    """The scheduler's address, with its TLS files (relative to `folder`, as bot files)."""
    files = {"ca": cluster.ca, "cert": cluster.cert, "key": cluster.key}
    if not any(files.values()):
        return cluster.address
    return {"address": cluster.address, **{key: _file_from(path, folder)
                                           for key, path in files.items() if path}}


def _file_from(path: str, folder: str | PathLike[str] | None) -> str:
    if folder is None:
        return path
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(folder))).as_posix()


def _entrant_as_run(
    entrant: EntrantConfig, folder: str | PathLike[str] | None = None
) -> dict[str, Any]:
    source: dict[str, Any] = (
        {"command": [_part_from(part, i == 0, folder) for i, part in enumerate(entrant.command)]}
        if entrant.command is not None
        else {"bot": _bot_from(entrant.bot, folder)}
    )
    return {
        "alias": entrant.name,
        **source,
        "mode": entrant.mode,
        **({"network": True} if entrant.network else {}),
        "options": entrant.options.dict(),
    }


def _bot_from(ref: str | None, folder: str | PathLike[str] | None) -> str | None:
    """A bot reference as written in a file in `folder`: a bot file's path made relative to
    that folder (absolute ones too: a config named by its absolute path gives absolute
    paths); anything else as it is."""
    if ref is None or folder is None:
        return ref
    file = BotFile.parse(ref)
    if file is None:
        return ref
    return str(file.at(Path(os.path.relpath(os.path.abspath(file.path),
                                            os.path.abspath(folder))).as_posix()))


def _part_from(part: str, program: bool, folder: str | PathLike[str] | None) -> str:
    """A command's part as written in a file in `folder`: a relative path to something that
    exists made relative to that folder (no symlink resolved); anything else as it is."""
    if folder is None or not names_a_path(part, program) or not os.path.exists(part):
        return part
    return Path(os.path.relpath(os.path.abspath(part), os.path.abspath(folder))).as_posix()


def _format_as_run(fmt: FormatConfig) -> dict[str, Any]:
    """The format section as run: type, seats, games and every key its format filled (the
    fields of other formats are unset: None or empty)."""
    data: dict[str, Any] = {"type": fmt.type, "seats": fmt.seats, "games": fmt.games}
    for field in fields(fmt):
        value = getattr(fmt, field.name)
        if field.name not in data and field.name != "extra" and value not in (None, ()):
            data[field.name] = list(value) if isinstance(value, tuple) else value
    data.update(json.loads(json.dumps(fmt.extra)))  # plain values, as YAML dumps them
    return data


def dump_config(cfg: TournamentConfig, folder: str | PathLike[str] | None = None) -> str:
    """Return the config as run as YAML with sorted keys, stable for byte comparison; with
    `folder`, to be saved there (its bot file paths relative to it)."""
    return yaml.safe_dump(
        config_as_run(cfg, folder), sort_keys=True, default_flow_style=False,
        allow_unicode=False
    )


def config_differences(
    a: Mapping[str, Any], b: Mapping[str, Any], *, ignore: Sequence[str] = ()
) -> list[str]:
    """List how config `a` became `b` (`format.games: 2 -> 3`), to refuse a changed resume.

    `ignore` names dotted key paths (and everything under them) that may change freely,
    such as `workers` or `output`.
    """
    lines: list[str] = []
    _differ(a, b, (), lines)
    skip = tuple(ignore)
    return [line for line in lines if not any(line.startswith((f"{k}:", f"{k}.")) for k in skip)]


_ABSENT = object()


def _differ(a: Any, b: Any, path: KeyPath, lines: list[str]) -> None:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in sorted(set(a) | set(b), key=str):
            _differ(a.get(key, _ABSENT), b.get(key, _ABSENT), (*path, key), lines)
    elif isinstance(a, list) and isinstance(b, list):
        for index in range(max(len(a), len(b))):
            left = a[index] if index < len(a) else _ABSENT
            right = b[index] if index < len(b) else _ABSENT
            _differ(left, right, (*path, index), lines)
    elif a is _ABSENT or b is _ABSENT or type(a) is not type(b) or a != b:
        lines.append(f"{dotted(path) or '(top level)'}: {_shown(a)} -> {_shown(b)}")


def _shown(value: Any) -> str:
    if value is _ABSENT:
        return "(absent)"
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
