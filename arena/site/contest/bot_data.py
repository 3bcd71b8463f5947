"""What a bot's page shows, read from the games index (SQL aggregates, so a page stays fast
at 100,000 games) and from the results folder (the ladder's ranking, the replays' faults and
seat views, read as a stranger's files through arena.tournament.run.safe_read).

No path here is ever built from a request: a game is found in the index first, among the
bot's own seats, and its replay is the one its results folder lists under replays/.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db.models import Count, F, Q, QuerySet

from arena.replay import Replay, ReplayError, read_listed
from arena.report.publish import STDERR
from arena.site.contest import standings
from arena.site.contest.contest import Contest
from arena.site.contest.models import Bot, Game, Seat, Version
from arena.tournament.run import safe_read

__all__ = ["Fault", "Record", "fault_of", "faults", "folder_of", "home", "own_id", "ranking",
           "recent", "record", "replay_of", "seats_of"]

RECENT = 20
"""Games the public page lists, newest first."""
FAULTS = 20
"""Faults the owner's part lists (newest first), each with its replay read for its trace."""


@dataclass(frozen=True, slots=True)
class Record:
    """A bot's games against one opponent (a bot, all its versions together)."""

    opponent: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass(frozen=True, slots=True)
class Fault:
    """One of the bot's faults as its owner sees it: the game, what went wrong, the lines
    its bot wrote to stderr in that game, and where in its own code it raised."""

    seat: Seat
    kind: str
    message: str
    stderr: tuple[str, ...] = ()
    trace: tuple[str, ...] = ()
    note: str = ""
    """Why the replay's details are missing (none kept, or unreadable), else empty."""
    game_id: str = field(default="")


def seats_of(bot: Bot) -> QuerySet[Seat]:
    """Every seat a version of this bot sat in."""
    return Seat.objects.filter(version__bot=bot)


def record(bot: Bot) -> list[Record]:
    """Wins, draws and losses against each opponent, counted by the database over every
    pair of seats of a game not voided, from the bot's own seats (the version index) to the
    other seats of their games; its versions against each other left out."""
    versions = Version.objects.filter(bot=bot).values_list("id", flat=True)
    other = "game__seats__placement"
    rows = (Seat.objects.filter(version__in=list(versions), game__voided=False)
            .values("game__seats__entrant")
            .annotate(wins=Count("id", filter=Q(**{f"{other}__gt": F("placement")})),
                      draws=Count("id", filter=Q(**{other: F("placement")})),
                      losses=Count("id", filter=Q(**{f"{other}__lt": F("placement")})))
            .order_by())
    merged: dict[str, list[int]] = {}
    for row in rows:
        counts = merged.setdefault(str(row["game__seats__entrant"]).partition("@")[0],
                                   [0, 0, 0])
        for i, key in enumerate(("wins", "draws", "losses")):
            counts[i] += row[key]
    own = bot.name.casefold()  # a name is unique case-folded: only its versions have it
    return [Record(name, *counts) for name, counts in sorted(merged.items(),
                                                             key=lambda kv: kv[0].casefold())
            if name.casefold() != own]


def recent(bot: Bot, count: int = RECENT) -> list[Seat]:
    """The bot's newest seats with their games, for the public list."""
    return list(seats_of(bot).select_related("game", "version")
                .order_by("-game__number")[:count])


def ranking(contest: Contest) -> dict[str, Mapping[str, Any]]:
    """The ladder's ranking rows by player (`alice@2`): empty for a class, before the first
    batch, or while ladder.json cannot be read."""
    if contest.graded:
        return {}
    try:
        rows = standings.ranking(contest)
    except safe_read.Unreadable:
        return {}
    return {str(row["player"]): row for row in rows if "player" in row}


def folder_of(contest: Contest, seat: Seat) -> Path:
    """The results folder that holds a seat's game: the season's, or for a class the
    version's own gauntlet's (Contest.gauntlet: results/<name>-versions/<bot>@<n>/)."""
    if contest.graded and seat.version is not None:
        return contest.gauntlet(seat.version.entrant)
    return contest.results


def own_id(contest: Contest, seat: Seat) -> str:
    """The seat's game's id in its own results folder: a class version's gauntlet names its
    games without the `<bot>@<n>-` the index puts before them to keep ids unique."""
    if contest.graded and seat.version is not None:
        return seat.game.game_id.removeprefix(f"{seat.version.entrant}-")
    return seat.game.game_id


def home(contest: Contest, game: Game) -> tuple[Path, str]:
    """The results folder that holds a game, and its id there: a class version's game (an id
    the index prefixed with the version's `<bot>@<n>-`) is in its gauntlet's folder."""
    for seat in game.seats.select_related("version", "version__bot"):
        if contest.graded and seat.version is not None \
                and game.game_id.startswith(f"{seat.version.entrant}-"):
            return folder_of(contest, seat), own_id(contest, seat)
    return contest.results, game.game_id


def replay_of(contest: Contest, seat: Seat) -> Replay:
    """The replay of a seat's game, as its results folder lists it (replays/<id>.json.gz),
    read boundedly and through no link; ReplayError when it is missing or unreadable, saying
    why without the server's folders."""
    folder = folder_of(contest, seat)
    try:
        return read_listed(folder, f"{safe_read.REPLAYS}/{own_id(contest, seat)}.json.gz")
    except ReplayError as exc:
        raise ReplayError(str(exc).replace(f"{folder}{os.sep}", "")) from None


def faults(contest: Contest, bot: Bot, count: int = FAULTS) -> list[Fault]:
    """The bot's newest faults first, each with its stderr and trace from its replay."""
    seats = (seats_of(bot).exclude(fault="").select_related("game", "version")
             .order_by("-game__number")[:count])
    return [fault_of(contest, seat) for seat in seats]


def fault_of(contest: Contest, seat: Seat) -> Fault:
    """A faulted seat told from its game's replay (the index's message when it has none)."""
    try:
        listed = [f for f in replay_of(contest, seat).result.get("faults") or ()
                  if isinstance(f, dict) and f.get("seat") == seat.seat]
    except ReplayError as exc:
        return _told(seat, seat.fault, seat.fault_message, (), f"no details: {exc}")
    if not listed:
        return _told(seat, seat.fault, seat.fault_message, (), "")
    first = listed[0]
    trace = first.get("trace")
    frames = tuple(str(f) for f in trace) if isinstance(trace, list) else ()
    return _told(seat, str(first.get("kind", seat.fault)), str(first.get("message", "")),
                 frames, "")


def _told(seat: Seat, kind: str, message: str, trace: Sequence[str], note: str) -> Fault:
    """A fault with its message cut where the bot's stderr begins (`; stderr: a | b`)."""
    said, _, stderr = message.partition(STDERR)
    lines = tuple(line for line in stderr.split(" | ") if line) if stderr else ()
    return Fault(seat, kind, said, lines, tuple(trace), note, seat.game.game_id)
