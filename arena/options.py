"""Options, the one shape of rule options and bot options everywhere: in a config, in a
game's record, in what a bot is given.

It imports nothing from arena, so every layer (the rules and the config too) can hold it.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn


class Options(dict[str, Any]):
    """A read-only, hashable mapping of option names to values.

    A `dict` underneath, so reading it is as fast as a dict (the rules read theirs on every
    decision) and it is JSON as it is; every way to change it raises TypeError. `Options.of`
    also freezes nested mappings and lists and sorts the names, as the config tree needs.
    """

    __slots__ = ()

    @classmethod
    def of(cls, mapping: Mapping[str, Any] | None = None) -> Options:
        """Freeze a plain mapping, nested values too, with its names sorted."""
        items = (mapping or {}).items()
        return cls(sorted(((str(k), _freeze(v)) for k, v in items), key=lambda kv: kv[0]))

    def dict(self) -> builtins.dict[str, Any]:
        """Return a plain, mutable copy (nested mappings as dicts, tuples as lists)."""
        return {name: _thaw(value) for name, value in self.items()}

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))  # equal options hash alike, in any order

    def __repr__(self) -> str:
        return f"Options({self.dict()!r})"

    def __reduce__(self) -> tuple[type[Options], tuple[builtins.dict[str, Any]]]:
        return (type(self), (dict(self),))

    def _read_only(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("options are read-only")

    __setitem__ = __delitem__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __ior__(self, other: Iterable[Any]) -> NoReturn:  # type: ignore[override,misc]
        raise TypeError("options are read-only")


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return Options.of(value)
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, Options):
        return value.dict()
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


NO_OPTIONS = Options()
