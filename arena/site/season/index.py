"""Step 4 of a turn: what the ladder wrote since the last turn, read into the database for
the pages: games.jsonl's new lines as Game and Seat rows (only the bytes after
Season.games_offset, read as arena.tournament.run.safe_read reads a results file), and
ladder-log.jsonl's new events as the versions' statuses, mapped to the site's versions by
the ladder's digest.

It guarantees that the index is a function of the files (a Game per whole line, in order;
a torn last line waits for the next turn), that rows and the offsets move in one
transaction (a kill loses nothing and indexes nothing twice), and that only a version's own
fault or rejection mails its owner, once a version.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from django.db import transaction

from arena.site.contest.contest import Contest
from arena.site.contest.models import Game, Season, Seat, Version
from arena.site.season.mail import tell
from arena.tournament.formats.ladder.log import read_log
from arena.tournament.run import safe_read
from arena.tournament.run.results import GAMES

__all__ = ["game_folder", "index_events", "index_games", "new_lines", "record_games"]

Status = Version.Status
CHUNK = 1 << 20
"""Bytes read at a time from games.jsonl."""
_PREFIXED = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.-]*@[0-9]+)-(.+)")
"""A class version's game id: its player, then the id in its own games.jsonl."""
_STATUS = {"active": Status.ACTIVE, "rejected": Status.REJECTED, "retired": Status.RETIRED}


def new_lines(path: Path, offset: int) -> tuple[list[dict[str, Any]], int]:
    """The whole lines of a games log after `offset` bytes, each a bounded JSON object, and
    the offset after the last whole one."""
    if not path.exists():
        return [], offset
    found, end = [], offset
    with safe_read.open_regular(path) as handle:
        handle.seek(offset)
        rest = b""
        while chunk := handle.read(CHUNK):
            rest += chunk
            *whole, rest = rest.split(b"\n")
            for line in whole:
                end += len(line) + 1
                if line.strip():
                    found.append(safe_read.json_object(line))
            if len(rest) > safe_read.LINE_BYTES:
                raise safe_read.Unreadable(f"{path}: a line longer than the limit")
    return found, end


def index_games(results: Path) -> int:
    """Index games.jsonl's new lines; how many."""
    season = Season.current()
    games, end = new_lines(results / GAMES, season.games_offset)
    if not games:
        return 0
    with transaction.atomic():
        record_games(games, _players())
        Season.objects.filter(pk=season.pk).update(
            games_offset=end, games_indexed=season.games_indexed + len(games))
    return len(games)


def record_games(games: Sequence[Mapping[str, Any]], players: Mapping[str, Version],
                 prefix: str = "", names: Mapping[str, str] | None = None) -> None:
    """Game and Seat rows for these games, numbered on from the season's count (ids with
    `prefix`, entrants renamed by `names`); a version's fault mails its owner once."""
    first = Season.current().games_indexed
    for number, line in enumerate(games, first):
        entrants = [(names or {}).get(e, e) for e in line["entrants"]]
        faults = {int(f["seat"]): f for f in line.get("faults", [])}
        game = Game.objects.create(
            number=number, game_id=prefix + str(line["id"]), seed=str(line["seed"]),
            players=entrants, placements=line["placements"], faulted=bool(faults))
        seats = []
        for seat, (entrant, placement) in enumerate(zip(entrants, line["placements"],
                                                        strict=True)):
            fault = faults.get(seat, {})
            seats.append(Seat(game=game, seat=seat, entrant=entrant,
                              version=players.get(entrant), placement=placement,
                              fault=str(fault.get("kind", ""))[:32],
                              fault_message=" ".join(str(fault.get("message", "")).split())))
        Seat.objects.bulk_create(seats)
        _told(seats, game.game_id)


def _told(seats: Iterable[Seat], game_id: str) -> None:
    """One mail to the owner of each version that faulted (the first time it does)."""
    for seat in seats:
        if seat.fault and seat.version is not None and not seat.version.notified:
            tell(seat.version, f"{seat.entrant} faulted in game {game_id}: {seat.fault}: "
                               f"{seat.fault_message}")


def _players() -> dict[str, Version]:
    """The site's versions by the ladder's name for them."""
    found = Version.objects.exclude(player="").select_related("bot", "bot__owner")
    return {v.player: v for v in found}


def index_events(results: Path) -> int:
    """Read ladder-log.jsonl's new events into the versions' statuses; how many."""
    season = Season.current()
    events = read_log(results)
    fresh = events[season.log_offset:]
    with transaction.atomic():
        for number, event in enumerate(fresh, season.log_offset):
            _apply(event, number)
        _settle(events)
        Season.objects.filter(pk=season.pk).update(log_offset=len(events))
    return len(fresh)


def _apply(event: Mapping[str, Any], number: int) -> None:
    """One event: its version (by bot and digest) takes the ladder's name and status."""
    found = (Version.objects.filter(bot__name=str(event["entrant"]), digest=str(event["digest"]))
             .select_related("bot", "bot__owner").order_by("-number").first())
    if found is None:  # a house entrant, or content no site version holds now
        return
    status = _STATUS.get(str(event["status"]))
    if status is None:
        return
    if status == Status.RETIRED and found.bot.disabled:
        status = Status.DISABLED
    found.player, found.status = str(event["player"]), status
    if found.retry_from is not None and number >= found.retry_from:
        found.retry_from = None
    if status == Status.REJECTED:
        found.problem = str(event.get("reason") or "")
    found.save(update_fields=["player", "status", "problem", "retry_from"])
    if status == Status.REJECTED:
        tell(found, f"{found.player} was rejected by its validation deal: {found.problem}")


def _settle(events: Sequence[Mapping[str, Any]]) -> None:
    """A version checked again whose content the ladder still holds (no event to come):
    back to the status of its player's last event."""
    last = {str(e["player"]): str(e["status"]) for e in events}
    for version in Version.objects.filter(status=Status.WAITING, retry_from=None).exclude(
            player=""):
        status = _STATUS.get(last.get(version.player, ""))
        if status is not None and status != Status.REJECTED:
            Version.objects.filter(pk=version.pk).update(status=status)


def game_folder(contest: Contest, game_id: str) -> Path:
    """The results folder holding a game's replay: a class version's own gauntlet's (its id
    prefixed `<bot>@<n>-`), else the season's."""
    found = _PREFIXED.fullmatch(game_id)
    return contest.gauntlet(found[1]) if found else contest.results

