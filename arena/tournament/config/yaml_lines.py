"""Tournament YAML read with the line of every key path, so each error points at its line.

`parse` turns YAML text into plain values (mappings, lists, scalars) and a `KeyLines`;
`key_lines` gives the lines of a valid file for checks made after loading. Duplicate keys,
unsupported tags and aliases that contain themselves are refused here, as `ConfigError`s;
so is a file a stranger crafted to exhaust the reader: nesting deeper than DEPTH, or
aliases that expand to more than VALUES values ("billion laughs"), is refused at once.

This module only reads YAML: it must not check what the values mean (checks.py and the
modules beside it do), import the rules, the referee, pluggy or click, or start a game.
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path
from typing import Any, NoReturn

import yaml

from arena.tournament.config import ConfigError, KeyLines, KeyPath, describe, dotted

__all__ = ["DEPTH", "VALUES", "key_lines", "parse", "read_yaml"]

DEPTH = 50
"""How deep lists and mappings may nest: a real config nests 5 deep."""
VALUES = 100_000
"""Values a file may hold once its aliases are expanded: a 1,000-entrant config holds 10,000."""


def key_lines(path: str | PathLike[str]) -> KeyLines:
    """The lines of a valid tournament file's key paths, for checks made after loading by
    callers that know more than this layer (which rule sets a bot plays, its options)."""
    return parse(Path(path).read_text(encoding="utf-8"), str(path))[1]


def parse(text: str, source: str) -> tuple[Any, KeyLines]:
    """Plain values of YAML text and the line of each key path; ConfigError if unreadable."""
    loader: _BoundedLoader | None = None
    try:
        loader = _BoundedLoader(text)
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


def read_yaml(text: str, source: str) -> Any:
    """Plain values of YAML text read as boundedly as a config (a results folder's
    config.yaml, from whoever sent the folder); ConfigError if unreadable."""
    return parse(text, source)[0]


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, composing no deeper than DEPTH (its composer recurses)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self.depth += 1
        try:
            if self.depth > DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise yaml.composer.ComposerError(None, None, f"nested deeper than {DEPTH}", mark)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


_STANDARD_COLLECTIONS = ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")


class _NodeReader:
    """Turns composed YAML nodes into plain values, recording the line of every key path."""

    def __init__(self, loader: yaml.SafeLoader, source: str) -> None:
        self.loader = loader
        self.source = source
        self.values = 0
        self.lines: dict[KeyPath, int] = {}
        self.open: set[int] = set()
        self.written: dict[int, set[int]] = {}  # per mapping: key nodes written in it, not merged

    def read(self, node: yaml.Node) -> Any:
        self.lines[()] = node.start_mark.line + 1
        return self.value(node, ())

    def fail(self, node: yaml.Node, path: KeyPath, message: str) -> NoReturn:
        raise ConfigError(self.source, node.start_mark.line + 1, dotted(path), message)

    def value(self, node: yaml.Node, path: KeyPath) -> Any:
        self.values += 1
        if self.values > VALUES:  # named at the top-level key, not deep inside the aliases
            raise ConfigError(self.source, self.lines.get(path[:1]), dotted(path[:1]),
                              f"more than {VALUES:,} values once its aliases are expanded; "
                              "aliases (*name) that repeat aliases are refused")
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

