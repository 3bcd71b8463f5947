"""The entrants of a tournament config checked into `EntrantConfig`s: a bot reference or a
command, an alias (or the name the bot reference gives), options and mode; names unique.

A bot file's path is relative to the config file's folder and kept as a path from the
current folder; a reference that does not resolve is refused with the installed names'
near miss (`bot_problem` and `known_bots` are passed in). A command's relative path to
something in the config's folder is made a path from the current folder the same way;
neither ever resolves a symlink (`os.path.normpath`, not `Path.resolve`).

This module must not import the rules, the referee, pluggy or click, and never loads a bot
itself; it never starts a game.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.botfile import BotFile
from arena.plugins import is_folder
from arena.tournament.config import (
    ENTRANT_MODES,
    ENTRANT_NAME_PATTERN,
    EntrantConfig,
    KeyPath,
    Options,
    describe,
    suggestion,
)
from arena.tournament.config.checks import FieldChecks

__all__ = ["EntrantChecks", "names_a_path"]


def names_a_path(part: str, program: bool) -> bool:
    """Whether a command's part is a relative path: a program with a '/' (one without is
    looked up on the PATH), an argument with a '/' or a file suffix."""
    if os.path.isabs(part):
        return False
    return "/" in part or (not program and bool(Path(part).suffix))


def program_path(path: str) -> str:
    """A relative program path that stays one: `okbot` would be looked up on the PATH, so a
    program in the current folder is `./okbot`."""
    return path if "/" in path else "./" + path

_ENTRANT_KEYS = ("bot", "command", "alias", "options", "mode", "network")


class EntrantChecks(FieldChecks):
    """Checks the `entrants` list, entrant by entrant."""

    def entrants(self, raw: Any, default_mode: str | None) -> tuple[EntrantConfig, ...]:
        if not isinstance(raw, list):
            self.doc.fail(("entrants",), f"must be a list of entrants, got {describe(raw)}")
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
            self.doc.fail(path, f"must be a bot reference or a mapping, got {describe(raw)}")
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
                network=self.flag((*path, "network"), item.get("network", False)),
            )
        bot_path = path if short else (*path, "bot")
        bot = self.bot(bot_path, item["bot"])
        return EntrantConfig(
            name=self.alias(path, item, (bot_path, bot)),
            bot=bot,
            options=options,
            mode=self.bot_mode(path, item.get("mode"), default_mode),
            network=self.flag((*path, "network"), item.get("network", False)),
        )

    def bot(self, path: KeyPath, raw: Any) -> str:
        ref = self.located(path, self.text(path, raw))
        problem = self.bot_problem(ref)
        if problem is None:
            return ref
        if ref.endswith(".py") or ":" in ref or is_folder(ref):
            self.doc.fail(path, problem)  # what went wrong loading the file or module
        hint = suggestion(ref, self.known_bots, "")
        self.doc.fail(
            path,
            f"unknown bot {ref!r}{hint or ' (not a registered name, .py file or module:Class)'}",
        )

    def located(self, path: KeyPath, ref: str) -> str:
        """A bot file or folder reference made to work from the current folder: its path is
        relative to the config file's folder; a file not there is named where it was looked
        for (a folder keeps a '/', so it stays a folder's reference)."""
        if is_folder(ref):
            if self.folder is None or Path(ref).is_absolute():
                return ref
            found = os.path.normpath(self.folder / ref)
            return found if "/" in found else found + "/"
        file = BotFile.parse(ref)
        if file is None or self.folder is None or Path(file.path).is_absolute():
            return ref
        found = os.path.normpath(self.folder / file.path)
        if not Path(found).is_file():
            self.doc.fail(path, _not_found(file.path, found, self.folder))
        return str(file.at(found))

    def command(self, path: KeyPath, raw: Any) -> tuple[str, ...]:
        if not isinstance(raw, list) or not raw:
            self.doc.fail(
                path, f"must be a non-empty list like [node, bot.js], got {describe(raw)}"
            )
        return tuple(self.argument(self.text((*path, i), part), i == 0)
                     for i, part in enumerate(raw))

    def argument(self, part: str, program: bool) -> str:
        """A command's part as its bot gets it: a relative path to something in the config's
        folder becomes a path from the current folder (no symlink resolved), anything else
        stays as written. A program with a '/' is always the config folder's (one found
        only from the current folder excepted), and keeps a '/', so no PATH lookup."""
        if self.folder is None or not names_a_path(part, program):
            return part
        found = os.path.normpath(self.folder / part)
        if program:
            found = program_path(found)
            return part if not os.path.exists(found) and os.path.exists(part) else found
        return found if os.path.exists(found) else part

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
    return Path(ref).name if is_folder(ref) else ref

