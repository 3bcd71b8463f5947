"""Who plays: the one way a bot is named, checked and hosted, in every command.

A `Reference` is a bot as the user names it (registered name, `FILE.py[:Class]`, a bot
folder `DIR/` (its bot.py, with DIR importable), `module:Class` or `cmd:PROGRAM ARGS`, bot
options after `?key=value&...`, and an optional explicit mode). `resolve` finds its class
where it runs in this process, and never loads a file, folder or `module:Class` that runs
in its own process: that bot's card (name, rule sets, options) is what it says at hello
from inside its process (`introduced`). `problem` says, by the card, whether it plays these
rules and takes these options; `arena.trial.dry_run` starts it once as it will play.

Where it runs is decided here, from where its class came from (data recorded by the plugin
registry, never display text): built-in bots run inline; every other Python bot runs in its
own process unless the user trusts it (`mode: inline`, `--trust`); a command runs as its
program; `arena.kept.KeptHosts` keeps the process and command hosts of one worker across
games. This module plays no game and reads no config file.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from arena import plugins
from arena.botcard import BotCard
from arena.botfile import BotFile
from arena.hosts.inline import BotFault, Host, InlineHost
from arena.kept import KeptHosts
from arena.limits import START_TIMEOUT
from arena.options import Options
from arena.plugins import BotSpec, PluginError, Registry, bot_from_file, default_registry
from arena.referee import Player, as_player

if TYPE_CHECKING:
    from arena.hosts.processes import ProcessLimits

Mode = Literal["inline", "process", "command"]
Kind = Literal["name", "file", "folder", "module", "command"]

COMMAND_PREFIX = "cmd:"
"""A bot reference `cmd:PROGRAM ARGS` is an executable speaking the JSON-lines protocol."""
TRUSTED_SOURCES = frozenset({"builtin"})
"""Sources whose bots run inline unless told otherwise; every other runs in its own process."""


class EntrantError(ValueError):
    """A bot reference that cannot be read, found or played; the message says why."""


@dataclass(frozen=True, slots=True)
class Reference:
    """A bot as the user names it: its reference, the bot options given with it, and the
    mode the user asked for (None: the trust policy decides)."""

    ref: str
    options: tuple[tuple[str, Any], ...] = ()
    mode: Mode | None = None
    isolation: str | None = None
    """The sandbox level of a process or command (arena.hosts.walls; None: the strongest)."""
    network: bool = False
    start_timeout: float = field(default=START_TIMEOUT, repr=False)
    """Seconds its process may take to start (`arena.hosts.processes.ProcessLimits`), and an
    inline bot its dry run: a config's `limits.start` (not part of what names the bot)."""
    located: str | None = None
    """Where this machine keeps the bot file, when it plays a copy of the one the user named
    (a shipped bot, arena.tournament.run.shipment): it is loaded from there, and still named,
    described and reported by `ref`."""

    @classmethod
    def parse(cls, text: str, mode: Mode | None = None) -> Reference:
        """Read `REF` or `REF?key=value&key=value` (values are YAML scalars: 3, 0.5, true)."""
        import yaml

        ref, _, query = text.strip().partition("?")
        if not ref:
            raise EntrantError(f"empty bot reference in {text!r}")
        options: dict[str, Any] = {}
        for pair in filter(None, query.split("&")):
            key, sep, value = pair.partition("=")
            if not sep or not key.strip():
                raise EntrantError(f"bot option wants key=value, got {pair!r} in {text!r}")
            options[key.strip()] = yaml.safe_load(value)
        return cls(ref, tuple(sorted(options.items())), mode)

    @classmethod
    def of_command(cls, command: tuple[str, ...], options: Mapping[str, Any] | None = None,
                   mode: Mode | None = None) -> Reference:
        """The reference of a program and its arguments (a YAML `command:` entrant)."""
        return cls(COMMAND_PREFIX + shlex.join(command), tuple(sorted((options or {}).items())),
                   mode)

    @property
    def kind(self) -> Kind:
        """What the reference names: a name, a file, a bot folder, a module's class, a command."""
        if self.ref.startswith(COMMAND_PREFIX):
            return "command"
        if plugins.is_folder(self.ref):
            return "folder"
        if BotFile.parse(self.ref) is not None:
            return "file"
        return "module" if ":" in self.ref else "name"

    @property
    def command(self) -> tuple[str, ...] | None:
        """The program and its arguments of a `cmd:` reference, else None."""
        if self.kind != "command":
            return None
        return tuple(shlex.split(self.ref[len(COMMAND_PREFIX):]))

    @property
    def label(self) -> str:
        """The reference written back, options included, to name the bot in output."""
        query = "&".join(f"{key}={value}" for key, value in self.options)
        return f"{self.ref}?{query}" if query else self.ref

    @property
    def where(self) -> str:
        """The reference this machine loads the bot by: its copy's, else the user's."""
        return self.located or self.ref

    def trusted(self) -> Reference:
        """The same reference run inline (`--trust`); a command stays its program."""
        return self if self.kind == "command" else replace(self, mode="inline")


@dataclass(frozen=True, slots=True)
class Resolved:
    """A resolved reference: its bot class when it runs in this process (else None: arena
    never loads it here), the mode it runs in, and its card (None until its process said
    it at hello, `introduced`)."""

    reference: Reference
    spec: BotSpec | None
    mode: Mode
    card: BotCard | None = None

    @property
    def origin(self) -> str:
        """Where the bot came from, for the replay header (arena's words, never the bot's)."""
        if self.spec is not None:
            return self.spec.origin
        kind = self.reference.kind
        if kind == "file":
            return file_origin(self.reference.ref)
        if kind == "folder":
            return file_origin(str(Path(self.reference.ref) / plugins.FOLDER_BOT))
        return f"module {self.reference.ref}" if kind == "module" else "command"

    def host(self, seat: int = 0) -> Host:
        """A new host for this entrant, in its mode (a process shown the images of `seat`)."""
        if self.mode == "inline" and self.spec is not None:
            return InlineHost(self.spec.factory)
        if self.mode == "process" and self.reference.kind != "command":
            from arena.hosts.pipe import ProcessHost

            return ProcessHost(self.loaded_by, self.limits(seat), shown=self.reference.ref)
        command = self.reference.command
        if self.mode == "command" and command:
            from arena.hosts.pipe import CommandHost

            return CommandHost(command, self.limits(seat))
        raise EntrantError(f"bot {self.reference.label!r}: mode {self.mode!r} cannot be hosted")

    @property
    def loaded_by(self) -> str:
        """The reference its own process loads the bot by: a built-in's `module:Class` (its
        process imports the one module, not every installed plugin's registry, which cost a
        start 100M instructions of its 390M), else `Reference.where`."""
        spec = self.spec
        if spec is None or not spec.builtin or self.reference.kind != "name":
            return self.reference.where
        return spec.module_class

    def limits(self, seat: int = 0) -> ProcessLimits:
        """A bot process's limits, with the entrant's isolation level, network access and
        start-up time, and the seat index whose images of the system's files its sandbox
        shows."""
        from arena.hosts.pipe import ProcessLimits

        return ProcessLimits(isolation=self.reference.isolation, network=self.reference.network,
                             seat=seat, start_timeout=self.reference.start_timeout)

    @property
    def sandboxed(self) -> bool:
        """Whether its process runs in the sandbox, shown the images of its seat index (False
        too when its level cannot run here: starting it says why)."""
        if self.mode == "inline":
            return False
        from arena.hosts.walls import IsolationError, level

        try:
            return level(self.reference.isolation).sandboxed
        except IsolationError:
            return False

    def player(self, host: Host, name: str | None = None) -> Player:
        """The seat's Player on this host, named as given (else by the bot's label)."""
        version = "" if self.card is None else self.card.version
        options = Options.of(dict(self.reference.options))
        return Player(name or self.reference.label, host, self.origin, version, options)


def mode_of(reference: Reference, spec: BotSpec | None) -> Mode:
    """The trust policy: the mode asked for, else `command` for a program, `inline` for a bot
    from a trusted source (shipped with arena), and `process` for every other bot."""
    if reference.mode is not None:
        return reference.mode
    if spec is None:
        return "command" if reference.kind == "command" else "process"
    return "inline" if spec.source in TRUSTED_SOURCES else "process"


def resolve(reference: Reference, registry: Registry | None = None,
            card: BotCard | None = None) -> Resolved:
    """Find the reference's bot; raise EntrantError if it cannot be found. A bot file or
    `module:Class` that does not run inline is not loaded here: its card is the one given
    (what it said at hello before), else None until it is `introduced`."""
    if reference.kind == "command":
        if not reference.command:
            raise EntrantError(f"{reference.ref!r}: name the program after {COMMAND_PREFIX!r}")
        return Resolved(reference, None, mode_of(reference, None), card)
    if reference.kind != "name" and reference.mode != "inline":
        missing = file_problem(reference.where)
        if missing is not None:
            raise EntrantError(missing)
        return Resolved(reference, None, mode_of(reference, None), card)
    try:
        spec = _located_spec(reference) or (registry or default_registry()).resolve(reference.ref)
    except PluginError as exc:
        raise EntrantError(str(exc)) from None
    return Resolved(reference, spec, mode_of(reference, spec), spec.card)


def _located_spec(reference: Reference) -> BotSpec | None:
    """A trusted bot file's class loaded from its copy on this machine (None: not a copy),
    as the file the user named: one module in a process that read both."""
    if reference.located is None:
        return None
    copy, named = BotFile.parse(reference.located), BotFile.parse(reference.ref)
    if copy is None or named is None:
        return None
    return bot_from_file(Path(copy.path), copy.cls or None, Path(named.path))


def file_origin(ref: str) -> str:
    """A bot file's origin as the loader names it: the file's path, without its class."""
    file = BotFile.parse(ref)
    return f"file {Path(ref if file is None else file.path)}"


def file_problem(ref: str) -> str | None:
    """Why a bot file reference (`path.py[:Class]`) names no file, or a bot folder cannot be
    loaded, or None (for every other reference too); said without loading the file."""
    if plugins.is_folder(ref):
        return plugins.folder_problem(ref)
    file = BotFile.parse(ref)
    if file is None or Path(file.path).is_file():
        return None
    return f"bot file {file.path!r} not found: looked at {Path(file.path).resolve()}"


def reference_problem(ref: str, registry: Registry | None = None) -> str | None:
    """Why a bot reference names nothing, or None, loading no untrusted code: a name must be
    registered and a file must be there (what it holds is checked where it runs)."""
    if ref.endswith(".py") or ":" in ref or plugins.is_folder(ref):
        return file_problem(ref)
    return (registry or default_registry()).problem(ref)


def _named(ref: str) -> str:
    """What a loader's message names a bot by: its file, else the reference."""
    file = BotFile.parse(ref)
    return ref if file is None else file.path


def introduced(entrant: Resolved, host: Host) -> Resolved:
    """The entrant with its card: a bot run in its own process says it at hello (its process
    started on `host` if need be, within the start-up timeout). Raise EntrantError, in one
    line, when it does not: the loader's words for a file that does not load."""
    if entrant.card is not None:
        return entrant
    try:
        card = host.introduce()
        if card is None:  # a host whose bot says nothing of itself
            return entrant
    except BotFault as fault:
        said = fault.message
        if _named(entrant.reference.ref) not in said:
            said = f"bot {entrant.reference.label!r} did not say hello: {said}"
        raise EntrantError(said) from None
    return replace(entrant, card=replace(card, origin=entrant.origin))


def command_problem(command: Sequence[str]) -> str | None:
    """Why a bot command's program cannot be run from here (missing, not executable), or None;
    said before starting it, since the launcher can only say the program did not run."""
    program = command[0]
    if "/" not in program:
        if shutil.which(program) is None:
            return f"program {program!r} is not on the PATH"
        return None
    path = Path(program).resolve()
    if not path.exists():
        return f"program {program!r} not found (looked at {path})"
    if path.is_dir() or not os.access(path, os.X_OK):
        shown = ", ".join([program, *command[1:]])
        return (f"{path} is not executable (make it executable, or name its interpreter "
                f"first: [sh, {shown}])")
    return None


@dataclass(frozen=True, slots=True)
class Problem:
    """Why an entrant cannot play: where in its entry (`bot`, `options.KEY`) and what."""

    where: tuple[str, ...]
    message: str


def problem(entrant: Resolved, rules: str, who: str | None = None) -> Problem | None:
    """Whether the bot plays these rules and takes its options, by its card (None: it does,
    or its card is not known yet, or it did not say)."""
    card = entrant.card
    if card is None:
        return None
    who = who or card.name
    if card.rules is not None and rules not in card.rules:
        plays = ", ".join(card.rules) or "nothing"
        return Problem(("bot",), f"bot {who!r} does not play {rules!r} (it plays {plays})")
    known = card.option_names
    if known is None:
        return None
    for key, _ in entrant.reference.options:
        if key not in known:
            listing = ", ".join(known) or "none"
            return Problem(("options", key),
                           f"unknown option {key!r} for bot {who!r} (known: {listing})")
    return None


def checked(reference: Reference, rules: str, registry: Registry | None = None,
            who: str | None = None) -> Resolved:
    """Resolve and check a reference for a game of `rules`, as far as its card is known
    without starting it (a bot in its own process is checked at its dry run); raise
    EntrantError if it fails."""
    entrant = resolve(reference, registry)
    found = problem(entrant, rules, who)
    if found is not None:
        raise EntrantError(found.message)
    return entrant


def seat_all(items: Sequence[object], registry: Registry | None = None,
             hosts: KeptHosts | None = None) -> list[Player]:
    """Players for `arena.play_game`: references (text or Reference) hosted by the trust
    policy, Players, Bot
    classes and factories as they are (seated inline: the caller handed over the code)."""
    hosts = hosts if hosts is not None else KeptHosts()
    players = []
    for seat, item in enumerate(items):
        if isinstance(item, str | Reference):
            reference = Reference.parse(item) if isinstance(item, str) else item
            entrant = resolve(reference, registry)
            host = hosts.host(seat, entrant, seat=seat)
            if entrant.mode == "process":
                entrant = introduced(entrant, host)
            name = None if entrant.card is None or entrant.mode == "command" else \
                entrant.card.name
            players.append(entrant.player(host, name))
        else:
            players.append(as_player(item))
    return players


def as_mode(text: str | None) -> Mode | None:
    """A mode named in a config, checked by the config's loader."""
    return None if text is None else cast(Mode, text)
