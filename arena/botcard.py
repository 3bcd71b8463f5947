"""What a bot says about itself, as data: its name, the rule sets it plays, the bot options
it takes, its version and one-line summary, and where it came from.

A registered bot's card is read from its class in the organiser's process (built-in bots and
installed plugins, which pluggy loaded); an untrusted bot's card is what it said at `hello`
from inside its own process (arena.hosts.pipe), so that no code of an untrusted bot runs in
the organiser's processes. `origin` is always the organiser's words, never the bot's. This
module holds values only: it imports no bot, host or rule set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["BotCard"]


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
