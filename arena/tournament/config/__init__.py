"""Tournament configuration: the validated, frozen `TournamentConfig` tree and its errors.

Every problem is found before any game starts and reported as one `ConfigError` line that
names the file, the line, the dotted key path (list indexes 0-based) and what is wrong:
`configs/x.yaml:12: entrants.3.bot: unknown bot 'statisitcian' (did you mean 'statistician'?)`.
The first problem found stops the check.

Here: the frozen tree (`TournamentConfig`, `EntrantConfig`, `FormatConfig`), the config's
vocabulary (format types, modes, name patterns), `ConfigError` and where it points
(`KeyLines`), and what the config needs to know about a rule set (`RuleSetInfo`). Beside it:
yaml_lines.py reads YAML with the line of every key, checks.py, entrants.py and load.py
check it section by section into this tree (`load_config`), and as_run.py gives the config
as run, saved and compared on resume.

This module must not import the rules, the referee, pluggy or click. What it needs to know
about rule sets (`RuleSetInfo`) and bots (`bot_problem`, `known_bots`) is passed in, so the
layers stay one-way. It never reads a file, never starts a game and never touches the
results folder.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from arena.limits import START_TIMEOUT, Limits
from arena.options import NO_OPTIONS, Options

if TYPE_CHECKING:
    from arena.entrants import Reference

__all__ = [
    "CLUSTER_SCHEMES",
    "DEFAULT_CAP",
    "ENTRANT_MODES",
    "ENTRANT_NAME_PATTERN",
    "LIMIT_KEYS",
    "NAME_PATTERN",
    "ClusterConfig",
    "ConfigError",
    "EntrantConfig",
    "FormatConfig",
    "FormatInfo",
    "Key",
    "KeyLines",
    "KeyPath",
    "OptionProblem",
    "Options",
    "RuleSetInfo",
    "TournamentConfig",
    "describe",
    "dotted",
    "suggestion",
]

ENTRANT_MODES = ("inline", "process", "command")
CLUSTER_SCHEMES = ("tcp://", "tls://")
"""How a Dask scheduler's address starts (arena.executor.cluster)."""
ISOLATION_LEVELS = ("strict", "standard", "none")
"""The sandbox levels of arena.hosts.walls (docs/security.md)."""
DEFAULT_CAP = 20000
NAME_PATTERN = re.compile(r"[a-z0-9_-]+")
ENTRANT_NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")

LIMIT_KEYS = {"decision": "decision", "game": "bank", "wall_factor": "wall_factor"}
"""The YAML keys of `limits` that set a game's `Limits`, and the field each one sets (the
other, `start`, is each entrant's start-up time)."""
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


class FormatInfo(Protocol):
    """What the config needs to know about a format; arena/tournament/formats provides it."""

    @property
    def type(self) -> str: ...

    @property
    def keys(self) -> tuple[str, ...]:
        """Its own keys of the `format` section, beside type, seats and games."""
        ...

    @property
    def graded(self) -> bool:
        """Whether `grades:` apply: its games meet every graded entrant with each grade's bot."""
        ...

    @property
    def season(self) -> bool:
        """Whether it is a season, played run by run, that takes a `submissions:` folder."""
        ...

    def settings(self, checks: Any, section: Mapping[str, Any], seats: int,
                 entrants: tuple[EntrantConfig, ...]) -> dict[str, Any]:
        """Its own keys checked (failing through `checks.doc`), with their defaults."""
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
    network: bool = False
    """Whether its sandbox shares the machine's network (`network: true`)."""
    isolation: str | None = None
    """The config's isolation level (None: the strongest this machine gives)."""
    start_timeout: float = START_TIMEOUT
    """Seconds it may take to start (the config's `limits.start`)."""

    @property
    def reference(self) -> Reference:
        """The entrant as every command names a bot (arena.entrants): one parse, one policy."""
        from arena.entrants import Reference, as_mode

        mode, options = as_mode(self.mode), self.options.dict()
        if self.command is not None:
            found = Reference.of_command(self.command, options, mode)
        else:
            found = Reference(self.bot or "", tuple(sorted(options.items())), mode)
        return replace(found, isolation=self.isolation, network=self.network,
                       start_timeout=self.start_timeout)


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
    rounds: int | None = None
    """swiss: how many rounds (default ceil(log2 n) + 2)."""
    min_games: int | None = None
    """ladder: games a player needs before it is ranked (default 20)."""
    batch: int | None = None
    """ladder: tables matchmaking chooses at a time (default 8)."""
    band: int | None = None
    """ladder: size of the top band whose players must meet (default 4)."""
    final_games: int | None = None
    """ladder: deals per pair of the final, each played at every seat rotation (default 1)."""
    extra: Options = NO_OPTIONS
    """A plugin's format: its own keys that are none of the fields above."""


@dataclass(frozen=True, slots=True)
class ClusterConfig:
    """The Dask cluster that plays the games: its scheduler's address and, for tls://, the
    CA file and this client's certificate and key (paths from the current folder)."""

    address: str
    ca: str | None = None
    cert: str | None = None
    key: str | None = None


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """A whole tournament, validated: everything a run needs, defaults filled in."""

    name: str
    rules: str
    entrants: tuple[EntrantConfig, ...]
    format: FormatConfig = FormatConfig()
    options: Options = NO_OPTIONS
    seed: int | None = None
    """The root seed as given; None means none was given, and a run draws a secret one."""
    limits: Limits = field(default_factory=Limits)
    """The game's time limits, the one class the referee uses (YAML `limits.game` is `bank`)."""
    start_timeout: float = START_TIMEOUT
    """Seconds each entrant may take to start (YAML `limits.start`; every entrant has it)."""
    mode: str | None = None
    isolation: str | None = None
    """strict | standard | none for every process and command entrant; None: the strongest."""
    workers: int | None = None
    """Worker processes; None means one per core (decided at run time, not here)."""
    output: str | None = None
    """Output folder; the loader fills in results/<name>."""
    replays: bool = True
    cluster: ClusterConfig | None = None
    """Where the games are played when not on this machine's workers (`arena run
    --cluster` overrides it)."""
    submissions: str | None = None
    """ladder: the folder (from the current folder) whose bot files and folders are entrants
    too, so a season takes new bots without an edit of the config."""
    grades: tuple[tuple[str, str], ...] = ()
    """(grade, entrant name) lowest grade first: a graded entrant reaches a grade when it
    beat that entrant and every lower grade's (arena/ratings/grades.py)."""

    @property
    def graded(self) -> tuple[str, ...]:
        """The entrants the grades are for, in config order: neither a grade's bot nor a
        gauntlet's champion (who meets no grade's bot)."""
        if not self.grades:
            return ()
        skip = {bot for _, bot in self.grades} | set(self.format.champions)
        return tuple(e.name for e in self.entrants if e.name not in skip)

    def at_isolation(self, level: str) -> TournamentConfig:
        """The same tournament with every entrant at this isolation level (and the config's
        start-up time: an entrant added after loading, a site's, has it too)."""
        return replace(self, isolation=level, entrants=tuple(
            replace(e, isolation=level, start_timeout=self.start_timeout)
            for e in self.entrants))

    @property
    def planned_seed(self) -> int:
        """The root seed games are planned with: a run puts its secret in `seed` first; a
        config without one is planned (counted, checked) under 0."""
        return 0 if self.seed is None else self.seed


# --- where an error points, and how it words a value ----------------------------------


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
        raise ConfigError(self.source, self.line(path), dotted(path), message)

    def error(self, path: KeyPath, message: str) -> ConfigError:
        """The error for a key path found wrong after loading, named and placed at the
        deepest part of it that the file spells out."""
        while path and path not in self.lines:
            path = path[:-1]
        return ConfigError(self.source, self.lines.get(path, 1), dotted(path), message)


def dotted(path: KeyPath) -> str:
    """A key path as errors name it: `entrants.3.bot`."""
    return ".".join(str(k) for k in path)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def describe(value: Any) -> str:
    """A YAML value as a message names it: null, true, 'text', a list, a mapping, 3."""
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


def suggestion(word: str, choices: Sequence[str], listing: str = "expected one of") -> str:
    """The near miss of a wrong word, or else the choices listed, for the end of a message."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    if close:
        return f" (did you mean {close[0]!r}?)"
    if listing and choices:
        return f" ({listing}: {', '.join(sorted(choices))})"
    return ""

