"""A bot named by its Python file, `path.py` or `path.py:Class`: the one reader of that text.

The loader, the entrants, the hosts, the config, its copy as run and the cluster's shipment
all split a reference here, so a file's path and its class are told apart one way. A value:
this module reads no file and imports nothing of arena.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["BotFile"]

SEPARATOR = ".py:"
"""Between a bot file's path and the class it names (a path may hold ':' elsewhere)."""


@dataclass(frozen=True, slots=True)
class BotFile:
    """A bot file reference split: its path (ending in .py) and the class it names, if any."""

    path: str
    cls: str | None = None
    """The class after `.py:` (None: the reference names none, so the file holds one bot)."""

    @classmethod
    def parse(cls, ref: str) -> BotFile | None:
        """The file and class a reference names, or None when it names no Python file (a
        registered name, a `module:Class`, a folder or a command)."""
        if SEPARATOR in ref:
            path, _, name = ref.partition(SEPARATOR)
            return cls(path + ".py", name)
        return cls(ref) if ref.endswith(".py") else None

    @property
    def suffix(self) -> str:
        """What follows the path in the reference: `:Class`, or nothing."""
        return "" if self.cls is None else ":" + self.cls

    def at(self, path: str) -> BotFile:
        """The same class in the file at another path (a copy, or the path made absolute)."""
        return replace(self, path=path)

    def __str__(self) -> str:
        return self.path + self.suffix
