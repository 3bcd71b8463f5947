"""What a bot says about itself, as data: its name, the rule sets it plays, the bot options
it takes, its version and one-line summary, and where it came from.

A registered bot's card is read from its class in the organiser's process (built-in bots and
installed plugins, which pluggy loaded); an untrusted bot's card is what it said at `hello`
from inside its own process (arena.hosts.pipe), so that no code of an untrusted bot runs in
the organiser's processes. `origin` is always the organiser's words, never the bot's. This
module holds values only: it imports no bot, host or rule set.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["CARD_ITEMS", "BotCard", "plain", "read_card"]

CARD_ITEMS = 64
"""Most rule sets, and most bot options, a bot may name at hello."""


@dataclass(frozen=True, slots=True)
class BotCard:
    """A bot's metadata. `rules` or `options` is None when the bot did not say (a command
    that sends only its name): then nothing is checked before its games."""

    name: str
    rules: tuple[str, ...] | None = None
    options: tuple[tuple[str, Any], ...] | None = None
    """The bot options it takes, each with its default, sorted by name."""
    version: str = ""
    summary: str = ""
    origin: str = ""

    @property
    def option_names(self) -> list[str] | None:
        """The names of the bot options it takes, sorted (None: it did not say)."""
        return None if self.options is None else [name for name, _ in self.options]

    def plays(self) -> str:
        """The rule sets it plays, as a listing says them."""
        if self.rules is None:
            return "rule sets not said"
        return "plays " + (", ".join(self.rules) or "nothing")


def read_card(hello: Mapping[str, Any], clean: Callable[[str], str]) -> BotCard | str:
    """The card in a bot's hello (its texts passed through `clean`), or what is wrong with
    it: a field sent in a form arena cannot read. A field left out is not said."""
    rules, options = hello.get("rules"), hello.get("options")
    if rules is not None and not (isinstance(rules, list) and len(rules) <= CARD_ITEMS
                                  and all(map(_short, rules))):
        return '"rules" is not a list of rule set ids'
    if options is not None and not (isinstance(options, dict) and len(options) <= CARD_ITEMS
                                    and all(map(_short, options))
                                    and all(map(_plain, options.values()))):
        return '"options" is not an object of bot options and their defaults'
    return BotCard(
        clean(str(hello.get("name", ""))[:100]),
        None if rules is None else tuple(map(clean, rules)),
        None if options is None else tuple(sorted((clean(k), v) for k, v in options.items())),
        clean(str(hello.get("version") or "")[:100]),
        clean(str(hello.get("summary") or "")[:200]))


def _plain(value: object, depth: int = 0) -> bool:
    """An option's default as a card holds it: a number, a short text, true, false, null, or
    a short list of them (never a structure deep enough to trouble whoever reads it)."""
    if value is None or isinstance(value, bool | int | float):
        return True
    if isinstance(value, str):
        return len(value) <= 200
    return (isinstance(value, list) and depth == 0 and len(value) <= CARD_ITEMS
            and all(_plain(v, 1) for v in value))


def _short(value: object) -> bool:
    """A rule set id or an option name as a card holds it: short text."""
    return isinstance(value, str) and 0 < len(value) <= 100


def plain(value: Any) -> Any:
    """A bot option's default as JSON can carry it at hello (else as its text)."""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)[:200]
    return value
