"""Plugin discovery and the bot registry: entry points, bot files and `module:Class` references.

pluggy runs once to fill a `Registry`; after that, games use plain classes. Listings are
sorted by name so that load order never changes seats or seeds. This module does not play
games and does not read tournament configs.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from arena import rules as rule_sets
from arena.bot import Bot
from arena.botfile import BotFile
from arena.botload import (
    PluginError,
    checked_name,
    file_class,
    module_class,
    own_name,
)
from arena.rules import RuleSet
from arena.rules.base import Description

if TYPE_CHECKING:
    from pathlib import Path

    import pluggy

    from arena.botcard import BotCard

__all__ = ["BUILTIN_PLUGIN", "FOLDER_BOT", "GROUP", "BotSpec", "PluginError",  # PluginError:
           "Registry", "Source", "bot_from_file", "bot_from_folder",  # from arena.botload
           "bot_from_module", "build_registry", "default_registry", "folder_problem",
           "installed_rules", "is_folder", "load_reference", "make_plugin_manager",
           "unknown_bot_message"]

GROUP = "arena"
BUILTIN_PLUGIN = "arena_bots"
"""The module of arena's own entry point: the bots it registers ship with arena."""

Source = Literal["builtin", "plugin", "file", "module"]
"""Where a bot class came from, recorded when it is registered or resolved: what decides
whether it may run in the referee's process (never its display origin)."""


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A registered bot: its class and where it came from."""

    name: str
    factory: type[Bot]
    rules: tuple[str, ...]
    description: str
    origin: str
    version: str = ""
    source: Source = "plugin"

    @property
    def card(self) -> BotCard:
        """What the bot is, as data (read from its class, loaded in this process)."""
        from arena.botcard import BotCard  # (a bot's own process never makes a card)

        options = tuple(sorted(dict(self.factory.options).items()))
        return BotCard(self.name, self.rules, options, self.version, self.description,
                       self.origin)

    @property
    def builtin(self) -> bool:
        """Whether the bot ships with arena (and so may run inline by default)."""
        return self.source == "builtin"

    @property
    def module_class(self) -> str:
        """The `module:Class` a bot process imports it by alone (a name would build every
        installed plugin's registry there first)."""
        return f"{self.factory.__module__}:{self.factory.__qualname__}"


class Registry:
    """Bots, rule sets and plugins' formats by name; duplicates are errors naming both origins."""

    def __init__(self) -> None:
        self.bots: dict[str, BotSpec] = {}
        self.formats: dict[str, Any] = {}
        """Plugins' tournament formats by type (arena/tournament/formats/registry.py adds
        the built-in ones; this layer knows no format)."""

    @functools.cached_property
    def rules(self) -> dict[str, RuleSet]:
        """Rule sets by id: the built-in ones (loaded when first asked for), then plugins'."""
        return dict(rule_sets.RULESETS)

    def register(self, factory: type[Bot], origin: str, version: str = "",
                 name: str | None = None, source: Source = "plugin") -> BotSpec:
        """Add a bot class; raise PluginError if its name is taken."""
        bot_name = checked_name(factory, origin, name)
        if bot_name in self.bots:
            first = self.bots[bot_name].origin
            raise PluginError(
                f"duplicate bot name {bot_name!r}: registered by {first} and by {origin}"
            )
        spec = BotSpec(bot_name, factory, tuple(factory.rules), factory.summary(), origin,
                       version, source)
        self.bots[bot_name] = spec
        return spec

    def register_rules(self, ruleset: RuleSet, origin: str) -> None:
        """Add a rule set; raise PluginError if its id is taken or it does not describe
        itself (the codec, narrator and report read its description)."""
        if not isinstance(getattr(ruleset, "description", None), Description):
            raise PluginError(f"{origin}: rule set {getattr(ruleset, 'id', ruleset)!r} has no "
                              "description (an arena.rules.base.Description)")
        if ruleset.id in self.rules:
            raise PluginError(f"duplicate rule set {ruleset.id!r}: registered again by {origin}")
        self.rules[ruleset.id] = ruleset

    def register_format(self, fmt: Any, origin: str) -> None:
        """Add a plugin's tournament format (an arena.tournament.formats.base.Format)."""
        kind = getattr(fmt, "type", None)
        if not isinstance(kind, str) or not callable(getattr(fmt, "plan", None)):
            raise PluginError(f"{origin}: {fmt!r} is not a tournament format (a "
                              "arena.tournament.formats.base.Format with a type)")
        if kind in self.formats:
            raise PluginError(f"duplicate format {kind!r}: registered again by {origin}")
        self.formats[kind] = fmt

    def names(self) -> list[str]:
        """Registered bot names, sorted."""
        return sorted(self.bots)

    def specs(self) -> Iterator[BotSpec]:
        """Registered bots, sorted by name."""
        return (self.bots[name] for name in self.names())

    def resolve(self, ref: str) -> BotSpec:
        """Find a bot by registered name, Python file path (`path.py[:Class]`) or `module:Class`."""
        if ref in self.bots:
            return self.bots[ref]
        spec = load_reference(ref)
        if spec is None:
            raise PluginError(unknown_bot_message(ref, self.names()))
        return spec

    def exists(self, ref: str) -> bool:
        """Whether a bot reference resolves."""
        return self.problem(ref) is None

    def problem(self, ref: str) -> str | None:
        """Why a bot reference does not resolve (file missing, import error, no such class),
        or None when it does."""
        try:
            self.resolve(ref)
        except PluginError as exc:
            return str(exc)
        return None


def load_reference(ref: str) -> BotSpec | None:
    """Load the bot a folder, `path.py[:Class]` or `module:Class` reference names, without
    looking for plugins; None for a reference of another kind (a registered name)."""
    if is_folder(ref):
        from pathlib import Path

        return bot_from_folder(Path(ref))
    file = BotFile.parse(ref)
    if file is not None:
        return bot_from_file(file.path, file.cls or None)
    return bot_from_module(ref) if ":" in ref else None


def unknown_bot_message(ref: str, names: list[str]) -> str:
    """Say that a bot is unknown, with the nearest registered names."""
    import difflib  # (imports here cost every command and bot process that never asks)

    near = difflib.get_close_matches(ref, names, n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else f" (known: {', '.join(names)})"
    return f"unknown bot {ref!r}{hint}"


def bot_from_file(path: str | Path, cls_name: str | None = None,
                  named: str | Path | None = None) -> BotSpec:
    """Load a bot class from a Python file; with several classes, name one as `file.py:Class`.
    A copy of the file the user named (`named`) is loaded, named and reported as that file."""
    factory, origin = file_class(path, cls_name, named)
    return _spec(factory, origin, "file")


FOLDER_BOT = "bot.py"
"""The file of a bot folder that holds its bot class; its siblings are importable from it."""


def is_folder(ref: str) -> bool:
    """Whether a reference names a bot folder: a path (it has a '/'), not a file or a class."""
    return "/" in ref and ":" not in ref and not ref.endswith(".py")


def folder_problem(ref: str) -> str | None:
    """Why a bot folder cannot be loaded (no bot.py, a symlink inside), or None; said without
    loading it. A symlink could show the bot a file outside its folder, so none is allowed."""
    from pathlib import Path

    folder, shown = Path(ref), ref.rstrip("/") or ref
    bot = folder / FOLDER_BOT
    if not bot.is_file() and not bot.is_symlink():
        return f"bot folder {shown!r} has no {FOLDER_BOT}: looked at {bot.resolve()}"
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            return (f"bot folder {shown!r} holds a symlink ({path.relative_to(folder)} -> "
                    f"{os.readlink(path)}); a bot folder must hold its own files")
    return None


def bot_from_folder(folder: Path) -> BotSpec:
    """Load the bot class of a bot folder's bot.py, with the folder importable first."""
    problem = folder_problem(str(folder))
    if problem is not None:
        raise PluginError(problem)
    where = str(folder.resolve())
    if where not in sys.path:
        sys.path.insert(0, where)
    return bot_from_file(folder / FOLDER_BOT)


def bot_from_module(ref: str) -> BotSpec:
    """Load a bot class from an importable `module:Class` reference."""
    factory, origin = module_class(ref)
    return _spec(factory, origin, "module")


def _spec(factory: type[Bot], origin: str, source: Source) -> BotSpec:
    """A resolved bot's spec, named by its class (`name`, else the class's name)."""
    registry = Registry()
    return registry.register(factory, origin, name=own_name(factory), source=source)


def make_plugin_manager(load_entry_points: bool = True) -> pluggy.PluginManager:
    """Return a plugin manager with arena's hookspecs and the installed plugins loaded."""
    import pluggy  # only where plugins are looked for: a bot file's process never is

    from arena import hookspecs

    pm = pluggy.PluginManager(GROUP)
    pm.add_hookspecs(hookspecs)
    blocked = os.environ.get("ARENA_DISABLE_PLUGINS", "")
    for name in filter(None, (b.strip() for b in blocked.split(","))):
        pm.set_blocked(name)
    if load_entry_points:
        pm.load_setuptools_entrypoints(GROUP)
    pm.check_pending()
    return pm


def _origin(pm: pluggy.PluginManager, plugin: object) -> tuple[str, str]:
    for owner, dist in pm.list_plugin_distinfo():
        if owner is plugin:
            # arena's own bots name arena, not its distribution's name on the package index
            name = "arena" if _is_builtin(plugin) else dist.metadata["name"]
            return f"{name} {dist.version}", dist.version
    module = getattr(plugin, "__file__", None) or getattr(plugin, "__name__", repr(plugin))
    return f"plugin {module}", ""


def build_registry(pm: pluggy.PluginManager | None = None) -> Registry:
    """Run the register hooks of every plugin, recording each bot's origin."""
    pm = pm or make_plugin_manager()
    registry = Registry()
    for impl in reversed(pm.hook.register_bots.get_hookimpls()):
        origin, version = _origin(pm, impl.plugin)
        source: Source = "builtin" if _is_builtin(impl.plugin) else "plugin"

        def register(factory: type[Bot], name: str | None = None, _origin: str = origin,
                     _version: str = version, _source: Source = source) -> None:
            registry.register(factory, _origin, _version, name, _source)

        impl.function(register=register)
    for impl in reversed(pm.hook.register_rules.get_hookimpls()):
        origin, _ = _origin(pm, impl.plugin)
        impl.function(register=_rules_adder(registry, origin))
    for impl in reversed(pm.hook.register_formats.get_hookimpls()):
        origin, _ = _origin(pm, impl.plugin)
        impl.function(register=_format_adder(registry, origin))
    return registry


def _is_builtin(plugin: object) -> bool:
    """Whether a plugin is arena's own module of built-in bots (the object, not its name)."""
    return plugin is sys.modules.get(BUILTIN_PLUGIN)


def _rules_adder(registry: Registry, origin: str) -> Callable[[Any], None]:
    return lambda ruleset: registry.register_rules(ruleset, origin)


def _format_adder(registry: Registry, origin: str) -> Callable[[Any], None]:
    return lambda fmt: registry.register_format(fmt, origin)


_DEFAULT: Registry | None = None


def default_registry() -> Registry:
    """The registry of installed plugins, built once per process."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = build_registry()
    return _DEFAULT


def installed_rules() -> dict[str, RuleSet]:
    """Every rule set of the installed plugins' registry by id (arena.rules.RULE_SETS reads
    them from here, the first time it is asked for one not built in)."""
    return default_registry().rules
