"""Tournament YAML read with the line of every key path, so each error points at its line.

`parse` turns YAML text into plain values (mappings, lists, scalars) and a `KeyLines`;
`key_lines` gives the lines of a valid file for checks made after loading. Duplicate keys,
unsupported tags and aliases that contain themselves are refused here, as `ConfigError`s.

This module only reads YAML: it must not check what the values mean (config_checks.py and
the modules beside it do), import the rules, the referee, pluggy or click, or start a game.
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path
from typing import Any, NoReturn

import yaml

from arena.tournament.config import ConfigError, KeyLines, KeyPath, describe, dotted

__all__ = ["key_lines", "parse"]


def key_lines(path: str | PathLike[str]) -> KeyLines:
    """The lines of a valid tournament file's key paths, for checks made after loading by
    callers that know more than this layer (which rule sets a bot plays, its options)."""
    return parse(Path(path).read_text(encoding="utf-8"), str(path))[1]


def parse(text: str, source: str) -> tuple[Any, KeyLines]:
    """Plain values of YAML text and the line of each key path; ConfigError if unreadable."""
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
        raise ConfigError(self.source, node.start_mark.line + 1, dotted(path), message)

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
                f"key {node.value!r} is read as {describe(key)}, not text; put it in quotes",
            )
        return key

