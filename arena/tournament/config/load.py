"""Tournament configuration loaded: YAML text -> a validated, frozen `TournamentConfig`.

`load_config` reads a file (`load_config_text` takes the text) and checks it section by
section: the name, rules and their options, entrants (entrants.py), the format
with its type's own keys, seed, limits, mode, workers, output, replays and grades,
filling every default. The first problem stops the check with one `ConfigError` line.

This module must not import the rules, the referee, pluggy or click: what it needs to know
about rule sets (`RuleSetInfo`) and bots (`bot_problem`, `known_bots`) is passed in. It
never starts a game and never touches the results folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, replace
from os import PathLike
from pathlib import Path
from typing import Any

from arena.limits import START_TIMEOUT, Limits
from arena.tournament.config import (
    CLUSTER_SCHEMES,
    ENTRANT_MODES,
    ENTRANT_NAME_PATTERN,
    ISOLATION_LEVELS,
    LIMIT_KEYS,
    NAME_PATTERN,
    ClusterConfig,
    ConfigError,
    EntrantConfig,
    FormatConfig,
    FormatInfo,
    KeyPath,
    OptionProblem,
    Options,
    RuleSetInfo,
    TournamentConfig,
    describe,
    suggestion,
)
from arena.tournament.config.entrants import EntrantChecks
from arena.tournament.config.yaml_lines import parse

__all__ = ["load_config", "load_config_text"]

_TOP_KEYS = (
    "name",
    "rules",
    "options",
    "entrants",
    "format",
    "seed",
    "limits",
    "mode",
    "isolation",
    "workers",
    "output",
    "replays",
    "cluster",
    "submissions",
    "grades",
)
_CLUSTER_KEYS = ("address", "ca", "cert", "key")
_FORMAT_COMMON = ("type", "seats", "games")
_FORMAT_FIELDS = frozenset(f.name for f in fields(FormatConfig)) - {"extra"}
"""What a format's own settings may set by name; any other key goes to `extra`."""


def submitted(folder: str | None) -> tuple[tuple[str, str], ...]:
    """A ladder's submissions as (entrant name, bot path): each `*.py` file or bot folder,
    by name, so the same folder always gives the same entrants in the same order. A
    symlink is no submission: it would copy whatever it points at into the bot's copy."""
    if folder is None or not Path(folder).is_dir():
        return ()
    found = sorted(p for p in Path(folder).iterdir() if not p.name.startswith((".", "_"))
                   and not p.is_symlink()
                   and ((p.suffix == ".py" and p.is_file()) or p.is_dir()))
    return tuple((p.stem, str(p)) for p in found)


def load_config(
    path: str | PathLike[str],
    *,
    rules: Mapping[str, RuleSetInfo],
    formats: Mapping[str, FormatInfo],
    bot_problem: Callable[[str], str | None],
    known_bots: Sequence[str],
) -> TournamentConfig:
    """Read and validate a tournament file, so every problem shows before any game starts.

    A bot file's path is relative to the folder of the tournament file."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(source, None, "", "the file is not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(source, None, "", f"cannot read the file: {exc.strerror}") from None
    return load_config_text(text, source, rules=rules, formats=formats,
                            bot_problem=bot_problem, known_bots=known_bots,
                            folder=Path(path).parent)


def load_config_text(
    text: str,
    source_name: str,
    *,
    rules: Mapping[str, RuleSetInfo],
    formats: Mapping[str, FormatInfo],
    bot_problem: Callable[[str], str | None],
    known_bots: Sequence[str],
    folder: str | PathLike[str] | None = None,
) -> TournamentConfig:
    """Validate tournament YAML given as text; `source_name` is the file named in errors.

    With `folder` (the tournament file's own), a relative bot file path is found there and
    kept as a path from the current folder; without it, bot files are taken as written."""
    data, doc = parse(text, source_name)
    base = None if folder is None else Path(folder)
    builder = _Builder(doc, rules, bot_problem, tuple(known_bots), base)
    builder.formats = formats
    return builder.tournament(data)


class _Builder(EntrantChecks):
    """Checks plain YAML values section by section and builds the frozen tree; each format
    checks its own keys (`formats`, by type: arena/tournament/formats)."""

    formats: Mapping[str, FormatInfo] = {}
    """Set once, before any check."""

    # sections

    def tournament(self, data: Any) -> TournamentConfig:
        if data is None:
            self.doc.fail((), "the file is empty; expected a mapping with name, rules, entrants")
        if not isinstance(data, dict):
            self.doc.fail((), f"the top level must be a mapping of keys, got {describe(data)}")
        top = self.mapping((), data, _TOP_KEYS)
        name = self.name(top)
        rules_id = self.choice(
            ("rules",), self.required((), top, "rules"), sorted(self.rule_sets), "rule set"
        )
        info = self.rule_sets[rules_id]
        options = self.rule_options(info, top.get("options"))
        mode = self.default_mode(top.get("mode"))
        isolation = self.isolation(top.get("isolation"))
        limits, start = self.limits(top.get("limits"))
        entrants = tuple(replace(e, isolation=isolation, start_timeout=start)
                         for e in self.entrants(self.required((), top, "entrants"), mode))
        submissions = self.submissions(top.get("submissions"), top.get("format"))
        entrants += tuple(EntrantConfig(name=stem, bot=bot, mode=mode, isolation=isolation,
                                        start_timeout=start)
                          for stem, bot in submitted(submissions)  # others: the ladder's log
                          if ENTRANT_NAME_PATTERN.fullmatch(stem)
                          and all(e.name != stem for e in entrants))
        fmt = self.format(top.get("format"), info, entrants)
        return TournamentConfig(
            name=name,
            rules=rules_id,
            entrants=entrants,
            format=fmt,
            options=options,
            seed=None if top.get("seed") is None else self.whole(("seed",), top["seed"]),
            limits=limits,
            start_timeout=start,
            mode=mode,
            isolation=isolation,
            workers=self.workers(top.get("workers")),
            output=self.output(top.get("output"), name),
            replays=self.flag(("replays",), top.get("replays", True)),
            cluster=self.cluster(top.get("cluster")),
            submissions=submissions,
            grades=self.grades(top.get("grades"), fmt, entrants),
        )

    def submissions(self, raw: Any, section: Any) -> str | None:
        """The ladder's submissions folder as a path from the current folder."""
        if raw is None:
            return None
        kind = section.get("type") if isinstance(section, dict) else section
        found = self.formats.get(kind) if isinstance(kind, str) else None
        if found is None or not found.season:
            seasons = " or ".join(t for t, f in self.formats.items() if f.season)
            self.doc.fail(("submissions",), f"'submissions' applies only to a {seasons} format")
        folder = Path(self.text(("submissions",), raw))
        return str(folder if self.folder is None or folder.is_absolute() else self.folder / folder)

    def grades(self, raw: Any, fmt: FormatConfig,
               entrants: tuple[EntrantConfig, ...]) -> tuple[tuple[str, str], ...]:
        """(grade, entrant) lowest first: a list, since a YAML mapping keeps no order."""
        if raw is None:
            return ()
        if not self.formats[fmt.type].graded:
            graded = " or ".join(sorted(t for t, f in self.formats.items() if f.graded))
            self.doc.fail(("grades",), f"'grades' applies only to {graded}, not {fmt.type}")
        if fmt.seats != 2:
            self.doc.fail(("grades",), "a grade is a head-to-head score: it needs 2-seat "
                                       f"tables, got {fmt.seats} seats")
        if not isinstance(raw, list) or not raw:
            got = "an empty list" if raw == [] else describe(raw)
            self.doc.fail(("grades",), "must be a list of grades, lowest first, like "
                                       f"[pass: honest, merit: statistician], got {got}")
        grades = tuple(self.grade(index, item, fmt, entrants) for index, item in enumerate(raw))
        for index, (grade, bot) in enumerate(grades):
            for lower, lower_bot in grades[:index]:
                if grade == lower:
                    self.doc.fail(("grades", index, grade), f"grade {grade!r} is listed twice")
                if bot == lower_bot:
                    self.doc.fail(("grades", index, grade),
                                  f"{bot!r} is already the bot of grade {lower!r}")
        bots = {bot for _, bot in grades} | set(fmt.champions)
        if all(e.name in bots for e in entrants):
            self.doc.fail(("grades",), "every entrant is a grade's bot; there is no one to grade")
        return grades

    def grade(self, index: int, item: Any, fmt: FormatConfig,
              entrants: tuple[EntrantConfig, ...]) -> tuple[str, str]:
        """One grade and the entrant to beat for it, an entrant of the config."""
        if not isinstance(item, dict) or len(item) != 1:
            got = f"a mapping of {len(item)} keys" if isinstance(item, dict) else describe(item)
            self.doc.fail(("grades", index), f"must be one grade and its bot, like "
                                             f"'pass: honest', got {got}")
        ((grade, bot),) = item.items()
        path: KeyPath = ("grades", index, grade)
        self.text(path, grade)
        names = [e.name for e in entrants]
        if self.text(path, bot) not in names:
            self.doc.fail(path, f"unknown entrant {bot!r}{suggestion(bot, names)}")
        if fmt.champions and bot not in fmt.champions:
            self.doc.fail(path, f"{bot!r} is not a champion; in a gauntlet each grade's bot "
                                "must be one, to meet every challenger")
        return grade, bot

    def name(self, top: Mapping[str, Any]) -> str:
        name = self.text(("name",), self.required((), top, "name"))
        if not NAME_PATTERN.fullmatch(name):
            self.doc.fail(
                ("name",), f"{name!r} may use only lowercase letters, digits, '-' and '_'"
            )
        return name

    def rule_options(self, info: RuleSetInfo, raw: Any) -> Options:
        given = self.free_mapping(("options",), raw)
        try:
            filled = info.check_options(dict(given))
        except OptionProblem as problem:
            hint = suggestion(problem.key, problem.choices, "") if problem.choices else ""
            self.doc.fail(("options", problem.key), f"{problem.message}{hint}")
        return Options.of(filled)

    def default_mode(self, raw: Any) -> str | None:
        if raw == "command":
            self.doc.fail(("mode",), "'command' is set per entrant, by giving `command:`")
        return None if raw is None else self.choice(("mode",), raw, ENTRANT_MODES[:2], "mode")

    def isolation(self, raw: Any) -> str | None:
        return None if raw is None else self.choice(("isolation",), raw, ISOLATION_LEVELS,
                                                    "isolation level")

    def workers(self, raw: Any) -> int | None:
        return None if raw is None else self.whole(("workers",), raw, 1)

    def output(self, raw: Any, name: str) -> str:
        return f"results/{name}" if raw is None else self.text(("output",), raw)

    def cluster(self, raw: Any) -> ClusterConfig | None:
        """A scheduler's address, or a mapping of it and the TLS files."""
        if raw is None:
            return None
        if isinstance(raw, str):
            return ClusterConfig(self.address(("cluster",), raw))
        if not isinstance(raw, dict):
            self.doc.fail(("cluster",), "must be a scheduler's address or a mapping of "
                          f"address, ca, cert, key; got {describe(raw)}")
        section = self.mapping(("cluster",), raw, _CLUSTER_KEYS)
        address = self.address(("cluster", "address"), self.required(("cluster",), section,
                                                                     "address"))
        files = [None if section.get(key) is None else self.tls_file(key, section[key])
                 for key in _CLUSTER_KEYS[1:]]
        return ClusterConfig(address, *files)

    def address(self, path: KeyPath, raw: Any) -> str:
        address = self.text(path, raw)
        if not address.startswith(CLUSTER_SCHEMES):
            self.doc.fail(path, f"{address!r} must start with tcp:// or tls:// (the "
                          "scheduler's address, as `dask scheduler` prints it)")
        return address

    def tls_file(self, key: str, raw: Any) -> str:
        """A TLS file named relative to the config file's folder, as a bot file is."""
        path: KeyPath = ("cluster", key)
        given = self.text(path, raw)
        found = Path(given) if self.folder is None else self.folder / given
        found = Path(os.path.normpath(found))
        if not found.is_file():
            self.doc.fail(path, f"file {given!r} not found: looked at {found.resolve()} (a TLS "
                          "file is found relative to the config file)")
        return str(found)

    def limits(self, raw: Any) -> tuple[Limits, float]:
        """A game's time limits, and the seconds each entrant may take to start."""
        limits = {} if raw is None else self.mapping(("limits",), raw, (*LIMIT_KEYS, "start"))
        game = limits.get("game")
        return Limits(
            decision=self.seconds(("limits", "decision"), limits.get("decision", 1.0)),
            bank=None if game is None else self.seconds(("limits", "game"), game),
            wall_factor=self.factor(("limits", "wall_factor"), limits.get("wall_factor", 2.0)),
        ), self.seconds(("limits", "start"), limits.get("start", START_TIMEOUT))

    # format

    def format(
        self, raw: Any, info: RuleSetInfo, entrants: tuple[EntrantConfig, ...]
    ) -> FormatConfig:
        """The format section: type, seats and games, then the format's own keys, checked by
        the format itself."""
        path: KeyPath = ("format",)
        types = tuple(self.formats)
        if raw is None or isinstance(raw, str):
            kind = self.choice(path, raw or "round-robin", types, "format type")
            section: dict[str, Any] = {}
        else:
            keys = dict.fromkeys(k for f in self.formats.values() for k in f.keys)
            section = self.mapping(path, raw, _FORMAT_COMMON + tuple(keys))
            kind = self.choice(
                (*path, "type"), self.required(path, section, "type"), types, "format type"
            )
        found = self.formats[kind]
        for key in section:
            if key not in _FORMAT_COMMON and key not in found.keys:
                owner = next(t for t, f in self.formats.items() if key in f.keys)
                self.doc.fail((*path, key), f"{key!r} applies only to {owner}, not {kind}")
        seats = self.seats(section.get("seats"), info, len(entrants))
        games = self.whole((*path, "games"), section.get("games", 1), 1)
        settings = found.settings(self, section, seats, entrants)
        own: dict[str, Any] = {k: v for k, v in settings.items() if k in _FORMAT_FIELDS}
        extra = {k: v for k, v in settings.items() if k not in _FORMAT_FIELDS}
        if extra:
            own["extra"] = Options.of(extra)
        return FormatConfig(type=kind, seats=seats, games=games, **own)

    def seats(self, raw: Any, info: RuleSetInfo, entrant_count: int) -> int:
        path: KeyPath = ("format", "seats")
        seats = self.whole(path, max(2, info.min_players) if raw is None else raw, 2)
        if not info.min_players <= seats <= info.max_players:
            self.doc.fail(
                path,
                f"rule set {info.id!r} is for {info.min_players} to "
                f"{info.max_players} players, got {seats} seats",
            )
        if seats > entrant_count:
            self.doc.fail(
                path,
                f"a table of {seats} seats needs at least {seats} entrants, got {entrant_count}",
            )
        return seats

