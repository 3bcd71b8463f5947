"""A new version's validation game: before a submission is scheduled it starts as a contest
starts it (a dry run, in its sandbox) and plays one deal against the house bot at every
seat rotation, through the same executor and limits as every ladder game (issue 17).

It guarantees that a submission that cannot start, or faults in its validation game, is
rejected with the one line that says why (in the loader's or the referee's words) and never
scheduled, and that a house bot's own fault never rejects it; and that a submission's file
name, which becomes its entrant name, follows a config alias's rule and differs from every
other name in more than case, or is refused with the line that says why (issue 32). It must
not write the results folder: the runner logs what it returns.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arena.entrants import EntrantError, resolve
from arena.hosts.inline import printable
from arena.plugins import default_registry
from arena.seeds import derive_seed
from arena.tournament.config import ENTRANT_NAME_PATTERN, EntrantConfig, TournamentConfig
from arena.tournament.formats.schedule import GameSpec, seatings

__all__ = ["HOUSE", "REASON_CHARS", "cannot_start", "house", "name_refusal", "shown",
           "validation_specs", "verdict"]

HOUSE = "honest"
"""The built-in bot a submission's validation game is played against."""
REASON_CHARS = 300
"""A rejection's reason is cut to this many characters (a bot's message can be long)."""


def house(seats: int) -> tuple[EntrantConfig, ...]:
    """The validation game's other seats: the house bot, once a seat."""
    return tuple(EntrantConfig(f"house-{n}", bot=HOUSE) for n in range(1, seats))


def cannot_start(cfg: TournamentConfig, entrant: EntrantConfig) -> str | None:
    """Why the version does not start as the contest would start it, or None."""
    from arena.trial import dry_run

    names = [entrant.name, *(e.name for e in house(cfg.format.seats))]
    try:
        found = resolve(entrant.reference, default_registry())
        dry_run(found, cfg.rules, cfg.options, cfg.format.seats, cfg.limits, names)
    except EntrantError as exc:
        return _clip(f"cannot start: {exc}")
    return None


def name_refusal(name: str, taken: Mapping[str, str]) -> str | None:
    """Why a submission may not be called `name`, or None: a name people read in the tables
    must be one they can tell apart (`taken`: each other name, and whose it is)."""
    if not ENTRANT_NAME_PATTERN.fullmatch(name):
        return _clip(f"its name {shown(name)} {_unlike_an_alias(name)}: a name may use only "
                     "letters, digits, '.', '-' and '_', start with a letter or digit, and be "
                     "at most 64 long (rename the file)")
    for other, whose in sorted(taken.items()):
        if other.casefold() == name.casefold():
            how = "is" if other == name else "differs only in case from"
            return _clip(f"its name {shown(name)} {how} {whose} {shown(other)} "
                         "(rename the file)")
    return None


def shown(name: str) -> str:
    """A name quoted in ASCII, so a look-alike letter, an override or a newline shows."""
    return ascii(name)


def _unlike_an_alias(name: str) -> str:
    """The first thing in `name` that the alias rule does not allow."""
    if not name or len(name) > 64:
        return "is empty" if not name else "is longer than 64 characters"
    if not ENTRANT_NAME_PATTERN.fullmatch(name[:1]):
        return f"starts with {_character(name[0])}"
    bad = next(c for c in name if not ENTRANT_NAME_PATTERN.fullmatch("a" + c))
    return f"has {_character(bad)}"


def _character(c: str) -> str:
    """A character as a reader can tell it from its look-alikes."""
    if c == "@":
        return "'@' (the version separator)"
    named = unicodedata.name(c, "") if not c.isascii() else ""
    return shown(c) + (f" ({named})" if named else "")


def validation_specs(seed: int, player: str, index: int, others: Sequence[int]) -> list[GameSpec]:
    """One deal, the candidate (entrant `index`) at every seat in turn among the house."""
    deal = derive_seed(seed, f"vd-{player}")
    return [GameSpec(f"vd-{player}-{turn}", "validation", 0, seated, deal, f"vd-{player}")
            for turn, seated in enumerate(seatings([index, *others]), 1)]


def verdict(player: str, games: Iterable[Mapping[str, Any]]) -> str | None:
    """Why the validation games reject the player (its first fault), or None."""
    for game in games:
        for fault in game["faults"]:
            if game["entrants"][fault["seat"]] == player:
                return _clip(f"{fault['kind']} in its validation game {game['id']}: "
                             f"{fault['message']}")
    return None


def _clip(text: str) -> str:
    """One printable line (a bot's words never drive the organiser's terminal), at most
    REASON_CHARS characters."""
    line = printable(" ".join(text.split()))
    return line if len(line) <= REASON_CHARS else line[: REASON_CHARS - 1] + "…"

