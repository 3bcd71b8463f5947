"""Tournament configuration: YAML text -> a validated, frozen `TournamentConfig`.

Every problem is found before any game starts and reported as one `ConfigError` line that
names the file, the line, the dotted key path (list indexes 0-based) and what is wrong:
`configs/x.yaml:12: entrants.3.bot: unknown bot 'statisitcian' (did you mean 'statistician'?)`.
The first problem found stops the check.

This module must not import the rules, the referee, pluggy or click. What it needs to know
about rule sets (`RuleSetInfo`) and bots (`bot_problem`, `known_bots`) is passed in, so the
layers stay one-way. It never starts a game and never touches the results folder.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

import yaml

from arena.limits import Limits
from arena.options import NO_OPTIONS, Options

if TYPE_CHECKING:
    from arena.entrants import Reference

__all__ = [
    "ConfigError",
    "EntrantConfig",
    "FormatConfig",
    "KeyLines",
    "OptionProblem",
    "Options",
    "RuleSetInfo",
    "TournamentConfig",
    "added_defaults",
    "config_as_run",
    "config_differences",
    "dump_config",
    "key_lines",
    "load_config",
    "load_config_text",
]

FORMAT_TYPES = ("round-robin", "elimination", "gauntlet")
ENTRANT_MODES = ("inline", "process", "command")
DEFAULT_CAP = 20000
NAME_PATTERN = re.compile(r"[a-z0-9_-]+")
ENTRANT_NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")

_TOP_KEYS = (
    "name",
    "rules",
    "options",
    "entrants",
    "format",
    "seed",
    "limits",
    "mode",
    "workers",
    "output",
    "replays",
)
_ENTRANT_KEYS = ("bot", "command", "alias", "options", "mode")
_LIMIT_KEYS = {"decision": "decision", "game": "bank", "wall_factor": "wall_factor"}
"""The YAML keys of `limits`, and the `Limits` field each one sets."""
_FORMAT_COMMON = ("type", "seats", "games")
_FORMAT_ONLY = {
    "round-robin": ("cap",),
    "elimination": ("advance", "seeding"),
    "gauntlet": ("champions",),
}
_FORMAT_KEYS = _FORMAT_COMMON + tuple(k for keys in _FORMAT_ONLY.values() for k in keys)

Key = str | int
KeyPath = tuple[Key, ...]


# --- errors -------------------------------------------------------------------------------


class ConfigError(Exception):
    """A configuration problem, shown to the user as one line: `file:line: key: message`."""

    def __init__(self, source: str, line: int | None, key: str, message: str) -> None:
        self.source = source
        self.line = line
        self.key = key
        self.message = _one_line(message)
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"

    def __reduce__(self) -> tuple[type[ConfigError], tuple[str, int | None, str, str]]:
        return (ConfigError, (self.source, self.line, self.key, self.message))


class OptionProblem(Exception):
    """Raised by `RuleSetInfo.check_options` for one bad option; `choices` gives near misses.

    Pass `choices` (the known option names) when `key` itself is unknown, so the config
    error can suggest the closest one.
    """

    def __init__(self, key: str, message: str, choices: Sequence[str] = ()) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message
        self.choices = tuple(choices)

    def __reduce__(self) -> tuple[type[OptionProblem], tuple[str, str, tuple[str, ...]]]:
        return (OptionProblem, (self.key, self.message, self.choices))


class RuleSetInfo(Protocol):
    """What the config needs to know about a rule set; the rules layer provides it."""

    @property
    def id(self) -> str: ...

    @property
    def min_players(self) -> int: ...

    @property
    def max_players(self) -> int: ...

    def check_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Return the options with defaults filled in; raise OptionProblem if one is bad."""
        ...


# --- the frozen tree ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EntrantConfig:
    """One player of the tournament: its name in results, what runs it and how."""

    name: str
    bot: str | None = None
    """A bot reference: registered name, path to a .py file, or module:Class."""
    command: tuple[str, ...] | None = None
    """An executable and its arguments, speaking the JSON protocol (instead of `bot`)."""
    options: Options = NO_OPTIONS
    mode: str | None = None
    """inline | process | command; None lets the tournament choose."""

    @property
    def reference(self) -> Reference:
        """The entrant as every command names a bot (arena.entrants): one parse, one policy."""
        from arena.entrants import Reference, as_mode

        mode, options = as_mode(self.mode), self.options.dict()
        if self.command is not None:
            return Reference.of_command(self.command, options, mode)
        return Reference(self.bot or "", tuple(sorted(options.items())), mode)


@dataclass(frozen=True, slots=True)
class FormatConfig:
    """How entrants meet; fields that do not apply to `type` are None (or empty)."""

    type: str = "round-robin"
    seats: int = 2
    games: int = 1
    cap: int | None = None
    """round-robin: above this many games, balanced random tables instead of all of them."""
    advance: int | None = None
    """elimination: how many of each table go on."""
    seeding: int | None = None
    """elimination: games per table of a seeding round-robin (0 = none)."""
    champions: tuple[str, ...] = ()
    """gauntlet: entrant names of the champions every challenger plays."""


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """A whole tournament, validated: everything a run needs, defaults filled in."""

    name: str
    rules: str
    entrants: tuple[EntrantConfig, ...]
    format: FormatConfig = FormatConfig()
    options: Options = NO_OPTIONS
    seed: int = 1
    limits: Limits = field(default_factory=Limits)
    """The game's time limits, the one class the referee uses (YAML `limits.game` is `bank`)."""
    mode: str | None = None
    workers: int | None = None
    """Worker processes; None means one per core (decided at run time, not here)."""
    output: str | None = None
    """Output folder; the loader fills in results/<name>."""
    replays: bool = True


# --- loading ------------------------------------------------------------------------------


def load_config(
    path: str | PathLike[str],
    *,
    rules: Mapping[str, RuleSetInfo],
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
    return load_config_text(text, source, rules=rules, bot_problem=bot_problem,
                            known_bots=known_bots, folder=Path(path).parent)


def load_config_text(
    text: str,
    source_name: str,
    *,
    rules: Mapping[str, RuleSetInfo],
    bot_problem: Callable[[str], str | None],
    known_bots: Sequence[str],
    folder: str | PathLike[str] | None = None,
) -> TournamentConfig:
    """Validate tournament YAML given as text; `source_name` is the file named in errors.

    With `folder` (the tournament file's own), a relative bot file path is found there and
    kept as a path from the current folder; without it, bot files are taken as written."""
    data, doc = _parse(text, source_name)
    base = None if folder is None else Path(folder)
    return _Builder(doc, rules, bot_problem, tuple(known_bots), base).tournament(data)


# --- YAML with line numbers ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeyLines:
    """The source name and the line of every key path, to point errors at the right line."""

    source: str
    lines: Mapping[KeyPath, int]

    def line(self, path: KeyPath) -> int:
        while path and path not in self.lines:
            path = path[:-1]
        return self.lines.get(path, 1)

    def fail(self, path: KeyPath, message: str) -> NoReturn:
        raise ConfigError(self.source, self.line(path), _dotted(path), message)

    def error(self, path: KeyPath, message: str) -> ConfigError:
        """The error for a key path found wrong after loading, named and placed at the
        deepest part of it that the file spells out."""
        while path and path not in self.lines:
            path = path[:-1]
        return ConfigError(self.source, self.lines.get(path, 1), _dotted(path), message)


def key_lines(path: str | PathLike[str]) -> KeyLines:
    """The lines of a valid tournament file's key paths, for checks made after loading by
    callers that know more than this layer (which rule sets a bot plays, its options)."""
    return _parse(Path(path).read_text(encoding="utf-8"), str(path))[1]


def _dotted(path: KeyPath) -> str:
    return ".".join(str(k) for k in path)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _parse(text: str, source: str) -> tuple[Any, KeyLines]:
    loader: yaml.SafeLoader | None = None
    try:
        loader = yaml.SafeLoader(text)
        node = loader.get_single_node()
        reader = _NodeReader(loader, source)
        data = None if node is None else reader.read(node)
    except yaml.MarkedYAMLError as exc:
        raise _yaml_error(source, exc) from None
    except yaml.reader.ReaderError as exc:
        line = text[: exc.position].count("\n") + 1
        raise ConfigError(source, line, "", f"invalid YAML: {exc.reason}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(source, None, "", f"invalid YAML: {exc}") from None
    finally:
        if loader is not None:
            loader.dispose()
    return data, KeyLines(source, reader.lines)


def _yaml_error(source: str, exc: yaml.MarkedYAMLError) -> ConfigError:
    mark = exc.problem_mark or exc.context_mark
    problem = ", ".join(p for p in (exc.context, exc.problem) if p) or "cannot parse"
    where = f" (column {mark.column + 1})" if mark else ""
    return ConfigError(
        source, mark.line + 1 if mark else None, "", f"invalid YAML: {problem}{where}"
    )


_STANDARD_COLLECTIONS = ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")


class _NodeReader:
    """Turns composed YAML nodes into plain values, recording the line of every key path."""

    def __init__(self, loader: yaml.SafeLoader, source: str) -> None:
        self.loader = loader
        self.source = source
        self.lines: dict[KeyPath, int] = {}
        self.open: set[int] = set()
        self.written: dict[int, set[int]] = {}  # per mapping: key nodes written in it, not merged

    def read(self, node: yaml.Node) -> Any:
        self.lines[()] = node.start_mark.line + 1
        return self.value(node, ())

    def fail(self, node: yaml.Node, path: KeyPath, message: str) -> NoReturn:
        raise ConfigError(self.source, node.start_mark.line + 1, _dotted(path), message)

    def value(self, node: yaml.Node, path: KeyPath) -> Any:
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, path)
        if node.tag not in _STANDARD_COLLECTIONS:
            self.fail(node, path, f"unsupported YAML tag {node.tag!r}")
        if id(node) in self.open:
            self.fail(node, path, "an alias refers to a value that contains it")
        self.open.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return self.sequence(node, path)
            assert isinstance(node, yaml.MappingNode)
            return self.mapping(node, path)
        finally:
            self.open.discard(id(node))

    def scalar(self, node: yaml.ScalarNode, path: KeyPath) -> Any:
        try:
            value = self.loader.construct_object(node)
        except yaml.MarkedYAMLError as exc:
            self.fail(node, path, f"cannot read the value: {exc.problem}")
        if value is None or isinstance(value, bool | int | float | str):
            return value
        return node.value  # dates and the like stay as written

    def sequence(self, node: yaml.SequenceNode, path: KeyPath) -> list[Any]:
        items = []
        for index, item in enumerate(node.value):
            self.lines[(*path, index)] = item.start_mark.line + 1
            items.append(self.value(item, (*path, index)))
        return items

    def mapping(self, node: yaml.MappingNode, path: KeyPath) -> dict[str, Any]:
        written = self.written.setdefault(id(node), {id(k) for k, _ in node.value})
        self.loader.flatten_mapping(node)  # puts `<<` merged pairs first, so later ones win
        result: dict[str, Any] = {}
        first_line: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = self.key(key_node, path)
            here = (*path, key)
            line = key_node.start_mark.line + 1
            if id(key_node) in written:
                if key in first_line:
                    message = f"duplicate key {key!r} (first given on line {first_line[key]})"
                    self.fail(key_node, here, message)
                first_line[key] = line
            self.lines[here] = line
            result[key] = self.value(value_node, here)
        return result

    def key(self, node: yaml.Node, path: KeyPath) -> str:
        if not isinstance(node, yaml.ScalarNode):
            self.fail(node, path, "a key must be text, not a list or mapping")
        key = self.scalar(node, path)
        if not isinstance(key, str):
            self.fail(
                node,
                (*path, node.value),
                f"key {node.value!r} is read as {_describe(key)}, not text; put it in quotes",
            )
        return key


# --- validation ---------------------------------------------------------------------------


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return str(value)


def _hint(word: str, choices: Sequence[str], listing: str = "expected one of") -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    if close:
        return f" (did you mean {close[0]!r}?)"
    if listing and choices:
        return f" ({listing}: {', '.join(sorted(choices))})"
    return ""


class _Builder:
    """Checks plain YAML values section by section and builds the frozen tree."""

    def __init__(
        self,
        doc: KeyLines,
        rules: Mapping[str, RuleSetInfo],
        bot_problem: Callable[[str], str | None],
        known_bots: tuple[str, ...],
        folder: Path | None = None,
    ) -> None:
        self.doc = doc
        self.rule_sets = rules
        self.bot_problem = bot_problem
        self.known_bots = known_bots
        self.folder = folder

    # generic checks

    def mapping(self, path: KeyPath, value: Any, allowed: Sequence[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.doc.fail(path, f"must be a mapping, got {_describe(value)}")
        for key in value:
            if key not in allowed:
                self.doc.fail((*path, key), f"unknown key {key!r}{_hint(key, allowed, 'known')}")
        return value

    def free_mapping(self, path: KeyPath, value: Any) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.doc.fail(path, f"must be a mapping, got {_describe(value)}")
        return value

    def required(self, path: KeyPath, section: Mapping[str, Any], key: str) -> Any:
        if key not in section or section[key] is None:
            self.doc.fail((*path, key), "this key is required")
        return section[key]

    def whole(self, path: KeyPath, value: Any, least: int | None = None) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            self.doc.fail(path, f"must be a whole number, got {_describe(value)}")
        if least is not None and value < least:
            self.doc.fail(path, f"must be at least {least}, got {value}")
        return value

    def seconds(self, path: KeyPath, value: Any) -> float:
        if not isinstance(value, int | float) or isinstance(value, bool):
            self.doc.fail(path, f"must be a number of seconds, got {_describe(value)}")
        if not math.isfinite(value) or value <= 0:
            self.doc.fail(path, f"must be more than 0 seconds and finite, got {value}")
        return float(value)

    def text(self, path: KeyPath, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            self.doc.fail(path, f"must be non-empty text, got {_describe(value)}")
        return value

    def choice(self, path: KeyPath, value: Any, choices: Sequence[str], what: str) -> str:
        if not isinstance(value, str):
            self.doc.fail(path, f"must be one of {', '.join(choices)}, got {_describe(value)}")
        if value not in choices:
            self.doc.fail(path, f"unknown {what} {value!r}{_hint(value, choices)}")
        return value

    # sections

    def tournament(self, data: Any) -> TournamentConfig:
        if data is None:
            self.doc.fail((), "the file is empty; expected a mapping with name, rules, entrants")
        if not isinstance(data, dict):
            self.doc.fail((), f"the top level must be a mapping of keys, got {_describe(data)}")
        top = self.mapping((), data, _TOP_KEYS)
        name = self.name(top)
        rules_id = self.choice(
            ("rules",), self.required((), top, "rules"), sorted(self.rule_sets), "rule set"
        )
        info = self.rule_sets[rules_id]
        options = self.rule_options(info, top.get("options"))
        mode = self.default_mode(top.get("mode"))
        entrants = self.entrants(self.required((), top, "entrants"), mode)
        return TournamentConfig(
            name=name,
            rules=rules_id,
            entrants=entrants,
            format=self.format(top.get("format"), info, entrants),
            options=options,
            seed=self.whole(("seed",), top.get("seed", 1)),
            limits=self.limits(top.get("limits")),
            mode=mode,
            workers=self.workers(top.get("workers")),
            output=self.output(top.get("output"), name),
            replays=self.flag(("replays",), top.get("replays", True)),
        )

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
            hint = _hint(problem.key, problem.choices, "") if problem.choices else ""
            self.doc.fail(("options", problem.key), f"{problem.message}{hint}")
        return Options.of(filled)

    def default_mode(self, raw: Any) -> str | None:
        if raw == "command":
            self.doc.fail(("mode",), "'command' is set per entrant, by giving `command:`")
        return None if raw is None else self.choice(("mode",), raw, ENTRANT_MODES[:2], "mode")

    def flag(self, path: KeyPath, value: Any) -> bool:
        if not isinstance(value, bool):
            self.doc.fail(path, f"must be true or false, got {_describe(value)}")
        return value

    def workers(self, raw: Any) -> int | None:
        return None if raw is None else self.whole(("workers",), raw, 1)

    def output(self, raw: Any, name: str) -> str:
        return f"results/{name}" if raw is None else self.text(("output",), raw)

    def limits(self, raw: Any) -> Limits:
        limits = {} if raw is None else self.mapping(("limits",), raw, tuple(_LIMIT_KEYS))
        game = limits.get("game")
        return Limits(
            decision=self.seconds(("limits", "decision"), limits.get("decision", 1.0)),
            bank=None if game is None else self.seconds(("limits", "game"), game),
            wall_factor=self.factor(("limits", "wall_factor"), limits.get("wall_factor", 2.0)),
        )

    def factor(self, path: KeyPath, value: Any) -> float:
        if (not isinstance(value, int | float) or isinstance(value, bool)
                or not math.isfinite(value) or value < 1):
            self.doc.fail(path, f"must be a number of at least 1 and finite, "
                                f"got {_describe(value)}")
        return float(value)

    # entrants

    def entrants(self, raw: Any, default_mode: str | None) -> tuple[EntrantConfig, ...]:
        if not isinstance(raw, list):
            self.doc.fail(("entrants",), f"must be a list of entrants, got {_describe(raw)}")
        if len(raw) < 2:
            self.doc.fail(("entrants",), f"need at least 2 entrants, got {len(raw)}")
        entrants = tuple(
            self.entrant(("entrants", i), item, default_mode) for i, item in enumerate(raw)
        )
        self.unique_names(raw, entrants)
        return entrants

    def entrant(self, path: KeyPath, raw: Any, default_mode: str | None) -> EntrantConfig:
        short = isinstance(raw, str)
        if not short and not isinstance(raw, dict):
            self.doc.fail(path, f"must be a bot reference or a mapping, got {_describe(raw)}")
        item = {"bot": raw} if short else self.mapping(path, raw, _ENTRANT_KEYS)
        if ("bot" in item) == ("command" in item):
            both = "give either 'bot' or 'command', not both"
            self.doc.fail(path, both if "bot" in item else "needs a 'bot' or a 'command'")
        options = Options.of(self.free_mapping((*path, "options"), item.get("options")))
        if "command" in item:
            return EntrantConfig(
                name=self.alias(path, item, None),
                command=self.command((*path, "command"), item["command"]),
                options=options,
                mode=self.command_mode(path, item.get("mode")),
            )
        bot_path = path if short else (*path, "bot")
        bot = self.bot(bot_path, item["bot"])
        return EntrantConfig(
            name=self.alias(path, item, (bot_path, bot)),
            bot=bot,
            options=options,
            mode=self.bot_mode(path, item.get("mode"), default_mode),
        )

    def bot(self, path: KeyPath, raw: Any) -> str:
        ref = self.located(path, self.text(path, raw))
        problem = self.bot_problem(ref)
        if problem is None:
            return ref
        if ref.endswith(".py") or ":" in ref:
            self.doc.fail(path, problem)  # what went wrong loading the file or module
        hint = _hint(ref, self.known_bots, "")
        self.doc.fail(
            path,
            f"unknown bot {ref!r}{hint or ' (not a registered name, .py file or module:Class)'}",
        )

    def located(self, path: KeyPath, ref: str) -> str:
        """A bot file reference made to work from the current folder: its path is relative to
        the config file's folder; a file not there is named where it was looked for."""
        file, cls = _file_reference(ref)
        if file is None or self.folder is None or Path(file).is_absolute():
            return ref
        found = os.path.normpath(self.folder / file)
        if not Path(found).is_file():
            self.doc.fail(path, _not_found(file, found, self.folder))
        return found + cls

    def command(self, path: KeyPath, raw: Any) -> tuple[str, ...]:
        if not isinstance(raw, list) or not raw:
            self.doc.fail(
                path, f"must be a non-empty list like [node, bot.js], got {_describe(raw)}"
            )
        return tuple(self.text((*path, i), part) for i, part in enumerate(raw))

    def alias(self, path: KeyPath, item: Mapping[str, Any], bot: tuple[KeyPath, str] | None) -> str:
        """The entrant's name: its alias, else the name its bot reference gives."""
        if item.get("alias") is None:
            if bot is None:
                self.doc.fail((*path, "alias"), "required for a command entrant")
            name = _default_name(bot[1])
            if not ENTRANT_NAME_PATTERN.fullmatch(name):
                self.doc.fail(bot[0], f"cannot use {name!r} as an entrant name; add an alias")
            return name
        alias = self.text((*path, "alias"), item["alias"])
        if not ENTRANT_NAME_PATTERN.fullmatch(alias):
            self.doc.fail(
                (*path, "alias"),
                f"{alias!r} may use only letters, digits, '.', '-' and '_', "
                "start with a letter or digit, and be at most 64 long",
            )
        return alias

    def bot_mode(self, path: KeyPath, raw: Any, default_mode: str | None) -> str | None:
        if raw is None:
            return default_mode
        mode = self.choice((*path, "mode"), raw, ENTRANT_MODES, "mode")
        if mode == "command":
            self.doc.fail((*path, "mode"), "'command' is only for entrants given by `command:`")
        return mode

    def command_mode(self, path: KeyPath, raw: Any) -> str:
        if raw is None:
            return "command"
        if self.choice((*path, "mode"), raw, ENTRANT_MODES, "mode") != "command":
            self.doc.fail((*path, "mode"), f"a command entrant runs as 'command', not {raw!r}")
        return "command"

    def unique_names(self, raw: list[Any], entrants: tuple[EntrantConfig, ...]) -> None:
        first: dict[str, int] = {}
        for index, entrant in enumerate(entrants):
            if entrant.name in first:
                item = raw[index]
                has_alias = isinstance(item, dict) and item.get("alias") is not None
                where = ("alias",) if has_alias else (() if isinstance(item, str) else ("bot",))
                self.doc.fail(
                    ("entrants", index, *where),
                    f"duplicate entrant name {entrant.name!r} (same as entrants."
                    f"{first[entrant.name]}); add an alias to tell them apart",
                )
            first[entrant.name] = index

    # format

    def format(
        self, raw: Any, info: RuleSetInfo, entrants: tuple[EntrantConfig, ...]
    ) -> FormatConfig:
        path: KeyPath = ("format",)
        if raw is None or isinstance(raw, str):
            kind = self.choice(path, raw or "round-robin", FORMAT_TYPES, "format type")
            section: dict[str, Any] = {}
        else:
            section = self.mapping(path, raw, _FORMAT_KEYS)
            kind = self.choice(
                (*path, "type"), self.required(path, section, "type"), FORMAT_TYPES, "format type"
            )
        for key in section:
            if key not in _FORMAT_COMMON and key not in _FORMAT_ONLY[kind]:
                owner = next(t for t, keys in _FORMAT_ONLY.items() if key in keys)
                self.doc.fail((*path, key), f"{key!r} applies only to {owner}, not {kind}")
        seats = self.seats(section.get("seats"), info, len(entrants))
        return FormatConfig(
            type=kind,
            seats=seats,
            games=self.whole((*path, "games"), section.get("games", 1), 1),
            **self.format_extras(kind, section, seats, entrants),
        )

    def format_extras(
        self, kind: str, section: Mapping[str, Any], seats: int, entrants: tuple[EntrantConfig, ...]
    ) -> dict[str, Any]:
        """The fields only one format type has, with their defaults."""
        if kind == "round-robin":
            return {"cap": self.whole(("format", "cap"), section.get("cap", DEFAULT_CAP), 1)}
        if kind == "elimination":
            return {
                "advance": self.advance(section.get("advance", 1), seats),
                "seeding": self.whole(("format", "seeding"), section.get("seeding", 0), 0),
            }
        return {"champions": self.champions(section.get("champions"), entrants, seats)}

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

    def advance(self, raw: Any, seats: int) -> int:
        path: KeyPath = ("format", "advance")
        advance = self.whole(path, raw, 1)
        if advance >= seats:
            self.doc.fail(path, f"must be less than seats ({seats}), got {advance}")
        return advance

    def champions(
        self, raw: Any, entrants: tuple[EntrantConfig, ...], seats: int
    ) -> tuple[str, ...]:
        path: KeyPath = ("format", "champions")
        if not isinstance(raw, list) or not raw:
            self.doc.fail(
                path, f"a gauntlet needs a non-empty list of champion names, got {_describe(raw)}"
            )
        names = [e.name for e in entrants]
        for index, champion in enumerate(raw):
            here = (*path, index)
            if self.text(here, champion) not in names:
                self.doc.fail(here, f"unknown entrant {champion!r}{_hint(champion, names)}")
            if champion in raw[:index]:
                self.doc.fail(here, f"champion {champion!r} is listed twice")
        if len(raw) >= len(entrants):
            self.doc.fail(path, "every entrant is a champion; a gauntlet needs a challenger")
        challengers = len(entrants) - len(raw)
        if challengers < seats - 1:
            self.doc.fail(
                path,
                f"a gauntlet of {seats} seats needs at least {seats - 1} challengers "
                f"(entrants that are not champions), got {challengers}",
            )
        return tuple(raw)


def _file_reference(ref: str) -> tuple[str | None, str]:
    """Split `path.py[:Class]` into the path and `:Class` (None for a name or module)."""
    if ".py:" in ref:
        file, _, cls = ref.partition(".py:")
        return file + ".py", ":" + cls
    return (ref, "") if ref.endswith(".py") else (None, "")


def _not_found(file: str, looked: str, folder: Path) -> str:
    """Say where a bot file was looked for, and how to write the one the current folder has."""
    message = (f"bot file {file!r} not found: looked at {Path(looked).resolve()} "
               "(a bot file is found relative to the config file")
    if Path(file).is_file():
        near = os.path.relpath(Path(file).resolve(), folder.resolve())
        message += f"; the one in the current folder would be {near!r}"
    return message + ")"


def _default_name(ref: str) -> str:
    """The entrant name a bot reference gives when no alias is set."""
    if ":" in ref and not ref.endswith(".py"):
        return ref.rsplit(":", 1)[1].rsplit(".", 1)[-1]
    if ref.endswith(".py"):
        return Path(ref).stem
    return ref


# --- the configuration as run -------------------------------------------------------------


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
        "seed": cfg.seed,
        "limits": {"decision": cfg.limits.decision, "game": cfg.limits.bank,
                   "wall_factor": cfg.limits.wall_factor},
        "mode": cfg.mode,
        "workers": cfg.workers,
        "output": cfg.output or f"results/{cfg.name}",
        "replays": cfg.replays,
    }


def _entrant_as_run(
    entrant: EntrantConfig, folder: str | PathLike[str] | None = None
) -> dict[str, Any]:
    source: dict[str, Any] = (
        {"command": list(entrant.command)} if entrant.command is not None
        else {"bot": _bot_from(entrant.bot, folder)}
    )
    return {
        "alias": entrant.name,
        **source,
        "mode": entrant.mode,
        "options": entrant.options.dict(),
    }


def _bot_from(ref: str | None, folder: str | PathLike[str] | None) -> str | None:
    """A bot reference as written in a file in `folder`: a bot file's path made relative to
    that folder (absolute ones too: a config named by its absolute path gives absolute
    paths); anything else as it is."""
    if ref is None or folder is None:
        return ref
    file, cls = _file_reference(ref)
    if file is None:
        return ref
    return Path(os.path.relpath(os.path.abspath(file), os.path.abspath(folder))).as_posix() + cls


def _format_as_run(fmt: FormatConfig) -> dict[str, Any]:
    data: dict[str, Any] = {"type": fmt.type, "seats": fmt.seats, "games": fmt.games}
    extra = {
        "cap": fmt.cap,
        "advance": fmt.advance,
        "seeding": fmt.seeding,
        "champions": list(fmt.champions),
    }
    data.update({key: extra[key] for key in _FORMAT_ONLY.get(fmt.type, ())})
    return data


def dump_config(cfg: TournamentConfig, folder: str | PathLike[str] | None = None) -> str:
    """Return the config as run as YAML with sorted keys, stable for byte comparison; with
    `folder`, to be saved there (its bot file paths relative to it)."""
    return yaml.safe_dump(
        config_as_run(cfg, folder), sort_keys=True, default_flow_style=False,
        allow_unicode=False,
    )


def config_differences(
    a: Mapping[str, Any], b: Mapping[str, Any], *, ignore: Sequence[str] = (),
    defaults: Mapping[str, Any] | None = None,
) -> list[str]:
    """List how config `a` became `b` (`format.games: 2 -> 3`), to refuse a changed resume.

    `ignore` names dotted key paths (and everything under them) that may change freely,
    such as `workers` or `output`. `defaults` gives dotted keys a later arena added: one that
    `a` lacks is no change when `b` has it at its default, since `a` was played that way.
    """
    lines: list[str] = []
    _differ(a, b, (), lines)
    skip = tuple(ignore)
    added = {f"{key}: (absent) -> {_shown(value)}" for key, value in (defaults or {}).items()}
    return [line for line in lines
            if line not in added and not any(line.startswith((f"{k}:", f"{k}.")) for k in skip)]


def added_defaults(info: RuleSetInfo) -> dict[str, Any]:
    """Every key's default that a saved config may lack because a later arena added it: the
    rule set's options and the time limits, as dotted paths for `config_differences`."""
    limits = Limits()
    defaults = {f"options.{key}": value for key, value in info.check_options({}).items()}
    defaults.update({f"limits.{key}": getattr(limits, _LIMIT_KEYS[key]) for key in _LIMIT_KEYS})
    return defaults


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
        lines.append(f"{_dotted(path) or '(top level)'}: {_shown(a)} -> {_shown(b)}")


def _shown(value: Any) -> str:
    if value is _ABSENT:
        return "(absent)"
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
