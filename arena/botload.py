"""A bot class loaded from a Python file (`path.py[:Class]`) or picked from a module: the file
imported once per process, the one `arena.Bot` class in it picked, and its name checked.

A Python bot's own process loads its bot file or `module:Class` (a built-in's, as the
referee names it) with this alone (`arena.hosts.server`, at hello), so it makes no dataclass,
looks for no plugin and loads no `pathlib` for a path in Path's form: `arena.plugins`, which
builds on it, costs a bot's start 6M instructions more (a bare Python start is 144M). The
registry and bot folders are `arena.plugins`'.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

from arena.bot import Bot

if TYPE_CHECKING:
    from pathlib import Path


class PluginError(Exception):
    """A bot or rule set that cannot be found or registered; the message says why."""


def file_class(path: str | Path, cls_name: str | None = None,
               named: str | Path | None = None) -> tuple[Any, str]:
    """The bot class of a Python file (as `pick_class` picks it) and its origin (`file
    PATH`); with several classes, name one as `file.py:Class`. A copy of the file the user
    named (`named`) is loaded, named and reported as that file."""
    path = path_text(path)
    if not os.path.isfile(path):
        from pathlib import Path  # Path's own test: a file it cannot stat raises, as ever

        if not Path(path).is_file():
            raise PluginError(f"bot file {path!r} not found: looked at {Path(path).resolve()}")
    module = _import_file(path, named)
    origin = f"file {named or path}"
    return pick_class(module, cls_name, origin, "file"), origin


def module_class(ref: str) -> tuple[Any, str]:
    """The bot class an importable `module:Class` reference names (as `pick_class` picks
    it) and its origin (`module REF`)."""
    module_name, _, cls_name = ref.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise PluginError(f"cannot import module {module_name!r} for bot {ref!r}: {exc}") from exc
    origin = f"module {ref}"
    return pick_class(module, cls_name or None, origin, "module"), origin


def checked_name(factory: object, origin: str, name: str | None) -> str:
    """The name a bot class is known by (`name`, else its own), or PluginError: it is no
    `arena.Bot` class, or it has no name."""
    if not (inspect.isclass(factory) and issubclass(factory, Bot)):
        raise PluginError(f"{origin}: {factory!r} is not a subclass of arena.Bot")
    bot_name = name or factory.name
    if not bot_name:
        raise PluginError(f"{origin}: bot class {factory.__name__} has no name")
    return bot_name


def own_name(factory: type[Bot]) -> str:
    """The name a resolved bot class goes by: its `name`, else its class's name in lower case
    (one rule for the organiser's registry and the card a bot's own process says at hello)."""
    return factory.name or factory.__name__.lower()


def pick_class(module: ModuleType, cls_name: str | None, origin: str, source: str) -> Any:
    """What a reference names in a module (`checked_name` says whether it is a bot class), or
    the module's one `arena.Bot` class; PluginError when there is none or several."""
    if cls_name:
        factory = getattr(module, cls_name, None)
        if factory is None:
            found = ", ".join(c.__name__ for c in _bot_classes(module))
            raise PluginError(f"{origin}: no class {cls_name!r}"
                              + (f" (its arena.Bot classes: {found})" if found else ""))
        candidates = [factory]
    else:
        candidates = _bot_classes(module)
    if len(candidates) != 1:
        found = ", ".join(c.__name__ for c in candidates) or "none"
        raise PluginError(f"{origin}: expected one arena.Bot subclass, found {found}"
                          + _pick_hint(origin, source, bool(candidates)))
    return candidates[0]


def _bot_classes(module: ModuleType) -> list[type[Bot]]:
    return [obj for obj in vars(module).values()
            if inspect.isclass(obj) and issubclass(obj, Bot) and obj is not Bot
            and obj.__module__ == module.__name__]


def _import_file(path: str | Path, named: str | Path | None = None) -> ModuleType:
    """The module of a bot file, imported once per process under the name of the file the
    user named (`named`, when `path` is a copy of it: one module, whichever was read), found
    by os.path, as Path.resolve finds it (pathlib would cost a bot's start 16M instructions)."""
    try:  # hashlib's OpenSSL would cost a bot process's start 13M instructions more
        from _sha1 import sha1  # type: ignore[import-not-found]
    except ImportError:  # a Python built without it
        from hashlib import sha1

    resolved = os.path.realpath(path)
    known = os.path.realpath(named or path)
    digest = sha1(known.encode()).hexdigest()[:10]
    name = f"arena_botfile_{os.path.splitext(os.path.basename(known))[0]}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise PluginError(f"{path}: cannot load as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise PluginError(f"{path}: {type(exc).__name__}: {exc}") from exc
    return module


def path_text(path: str | Path) -> str:
    """A path as str(Path(path)) says it (the form a bot's origin and faults name), without
    importing pathlib where the text is in that form already (a sandboxed bot's file)."""
    if isinstance(path, str) and path and "//" not in path and "/./" not in path \
            and not path.startswith("./") and not path.endswith(("/", "/.")):
        return path
    from pathlib import Path

    return str(Path(path))


def _pick_hint(origin: str, source: str, several: bool) -> str:
    """What to type instead: name a class among several, or run a file with no Bot class
    (most likely a program speaking the JSON-lines protocol) as a command bot."""
    if several or source != "file":
        return " (name one as FILE.py:Class)"
    path = origin.removeprefix("file ")
    return (f" (name one as FILE.py:Class; a program that speaks the protocol runs as "
            f"'cmd:python3 {path}')")
