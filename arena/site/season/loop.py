"""The season's loop: turns until stopped, each cheap when there is nothing to do (it polls
the database between batches; no task queue), sleeping a little when idle. A turn of a
ladder: check the received uploads, hand the ladder the versions to play, play one batch
(or, once the season is closed, its final once), index what is new, beat the heart. While
a batch or a class's gauntlet plays, a Pulse (the runner's `progress`) beats the heart with
a status line of how far it is and indexes the games landed so far, every few seconds.

It guarantees that nothing played is lost when the process is killed (the ladder's and the
runner's resume; the index moves with its offsets in one transaction), and that a failure
of this machine or of a house bot is the season's status line, never a participant's fault.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.site.contest.contest import Contest
from arena.site.contest.models import Game, Season
from arena.site.season.checks import check_received
from arena.site.season.entrants import (
    ladder_config,
    materialise,
    note_digests,
    retries,
    wanted,
)
from arena.site.season.heart import Pulse, beat_now
from arena.site.season.index import index_events, index_games
from arena.tournament.config import TournamentConfig
from arena.tournament.formats.ladder.log import VOIDED
from arena.tournament.formats.ladder.season import run_ladder
from arena.tournament.run import results as folder_files
from arena.tournament.run import safe_read
from arena.tournament.run.runner import Interrupted

if TYPE_CHECKING:
    from arena.executor.dial import Cluster

__all__ = ["IDLE_SLEEP", "Turn", "batch_size", "ladder_turn", "loop"]

IDLE_SLEEP = 2.0
"""Seconds the loop sleeps after a turn that found nothing to do."""


@dataclass
class Turn:
    """What one turn did: versions checked, games played and indexed, events read, and the
    machine's trouble if any (the status line says it)."""

    checked: int = 0
    indexed: int = 0
    events: int = 0
    trouble: str = ""

    @property
    def busy(self) -> bool:
        return bool(self.checked or self.indexed or self.events)

    def line(self) -> str:
        """The season's status line: empty after an idle turn (the page says it is idle)."""
        said = (f"checked {self.checked}, indexed {self.indexed} games and {self.events} "
                "events" if self.busy else "idle")
        if self.trouble:
            return f"{said}; {self.trouble}"[:200]
        return said if self.busy else ""


def batch_size(cfg: TournamentConfig, given: int | None) -> int:
    """Games a batch: --batch-games, else the format's tables a batch at every rotation."""
    return given or (cfg.format.batch or 8) * cfg.format.seats


def ladder_turn(contest: Contest, level: str, *, workers: int = 1,
                cluster: Cluster | None = None, batch: int | None = None) -> Turn:
    """One turn of a ladder contest."""
    turn = Turn()
    turn.checked, turn.trouble = check_received(contest, level)
    versions = wanted()
    commands, trouble = materialise(contest, versions)
    turn.trouble = turn.trouble or trouble
    void(contest.results)
    cfg = ladder_config(contest, level, commands)
    note_digests(cfg, versions)
    pulse = Pulse("the ladder", lambda: landed(contest.results))
    if not Season.current().closed:
        pulse.what = "the ladder (a batch)"
        run_ladder(cfg, contest.results, batch_size(cfg, batch), workers=workers,
                   cluster=cluster, retry=retries(contest), progress=pulse)
    else:
        size = final_size(contest.results, cfg)
        if size:
            pulse.what = "the ladder's final"
            run_ladder(cfg, contest.results, 0, workers=workers, cluster=cluster, final=size,
                       progress=pulse)
    games, events = landed(contest.results)
    turn.indexed, turn.events = pulse.indexed + games, pulse.events + events
    return turn


def landed(results: Path) -> tuple[int, int]:
    """Index the ladder's new events (the versions' players first), then its new games."""
    events = index_events(results)
    return index_games(results), events


def void(results: Path) -> None:
    """The ladder folder's voided list as the admin set it (rewritten only when it changed)."""
    ids = sorted(Game.objects.filter(voided=True).values_list("game_id", flat=True))
    path = results / VOIDED
    old = safe_read.json_file(path) if path.exists() else []
    if ids != old and (ids or path.exists()):
        results.mkdir(parents=True, exist_ok=True)
        folder_files.write_atomic(path, json.dumps(ids) + "\n")


def final_size(results: Path, cfg: TournamentConfig) -> int:
    """The final still to play once the season is closed: the top band's ranked players
    (0: none to play, or already played)."""
    path = results / "ladder.json"
    ladder: dict[str, Any] = safe_read.json_file(path) if path.exists() else {}
    final = ladder.get("final")
    if final is not None:
        return 0 if final.get("complete") else len(final["top"])
    ranked = [r for r in ladder.get("ranking", []) if not r["provisional"]]
    size = min(cfg.format.band or 4, len(ranked))
    return size if size >= cfg.format.seats else 0


def beat(turn: Turn) -> None:
    """The heartbeat and status line the pages show, after a turn."""
    beat_now(turn.line())


def loop(turn: Callable[[], Turn], once: bool, say: Callable[[str], None]) -> None:
    """Turns until stopped (or one); a failed turn is said and tried again after a pause. A
    turn's games stopped by Ctrl-C or SIGTERM (`arena serve` stopping) stop the season, their
    finished games kept: taken as a failed turn, the next one started and the process was
    killed when `arena serve`'s grace ran out, 10 s later."""
    while True:
        try:
            done = turn()
        except Interrupted as exc:
            say(f"stopped: {exc}")
            if once:
                raise
            return
        except Exception as exc:  # the machine's or a house bot's: said, never a bot's fault
            done = Turn(trouble=f"the turn failed: {type(exc).__name__}: {exc}")
            if once:
                beat(done)
                raise
        beat(done)
        if done.trouble:
            say(done.trouble)
        if once:
            return
        if not done.busy:
            time.sleep(IDLE_SLEEP)
