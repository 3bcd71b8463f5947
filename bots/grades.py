"""The built-in bots' measured strength, as `arena bots` shows it: each one's Elo per rule set
against the others, and the grade a student earns by beating it.

The numbers are data, not code: bots/grades.json, written by
`python benchmarks/strength.py --write` (which also writes the table in docs/writing-a-bot.md).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def measured() -> dict[str, Any]:
    """The measurement as written by the strength benchmark."""
    text = resources.files("arena_bots").joinpath("grades.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def elo(bot: str) -> dict[str, int] | None:
    """The bot's Elo by rule set (`random` at 0), or None for a bot never measured."""
    found: dict[str, int] | None = measured()["elo"].get(bot)
    return found


def grade(bot: str) -> str | None:
    """The grade a student earns by beating this bot (pass, merit, distinction), if any."""
    return next((g for g, b in measured()["grades"].items() if b == bot), None)
