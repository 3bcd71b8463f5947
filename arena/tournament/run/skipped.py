"""Entrants left out of a run because they fail their dry run (`arena run --skip-broken`):
the tournament played without them, and `skipped.json` in the results folder says who and
why, so a resume leaves out the same entrants, whatever their dry runs say by then.

    kept = without(cfg, left_out, min_players)   # TournamentError: cannot play without them

The run's `config.yaml` is the configuration without them (the tournament that was played);
`skipped.json` holds `{"skipped": [{"entrant": NAME, "reason": LINE}, ...]}` in the config's
order, and is written only when someone was left out: a run that leaves out no one writes
the same files as a run without the option. A ladder goes on without a broken submission its
own way (arena/tournament/formats/ladder/validation.py); this is for the other formats.

This module plays no game, never knows a rule of the game (the smallest table a rule set
allows is passed in), and never prints.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena.hosts.inline import printable
from arena.tournament.config import TournamentConfig
from arena.tournament.errors import TournamentError
from arena.tournament.formats.ladder.validation import REASON_CHARS
from arena.tournament.formats.registry import plan_for
from arena.tournament.run import results as folder_files

__all__ = ["LeftOut", "record", "recorded", "results_folder", "without"]


@dataclass(frozen=True, slots=True)
class LeftOut:
    """An entrant the run plays without, and why: its dry run's one line."""

    name: str
    reason: str

    @classmethod
    def of(cls, name: str, reason: str) -> LeftOut:
        """One printable line of at most REASON_CHARS (a bot's words never drive a terminal)."""
        line = printable(" ".join(reason.split()))
        return cls(name, line if len(line) <= REASON_CHARS else line[: REASON_CHARS - 1] + "…")


def results_folder(cfg: TournamentConfig, out: str | os.PathLike[str] | None) -> Path:
    """Where a run of `cfg` writes: `out`, else the config's output, else results/<name>."""
    return Path(out if out is not None else (cfg.output or f"results/{cfg.name}"))


def without(cfg: TournamentConfig, left_out: Sequence[LeftOut],
            min_players: int) -> TournamentConfig:
    """The tournament without these entrants; TournamentError, in one line, when what is
    left cannot be played (a champion or a grade's bot gone, too few for a table)."""
    gone = {entry.name: entry.reason for entry in left_out}
    if not gone.keys() & {e.name for e in cfg.entrants}:
        return cfg
    for name in (*cfg.format.champions, *(bot for _, bot in cfg.grades)):
        if name in gone:
            role = "champion" if name in cfg.format.champions else "grade's bot"
            raise TournamentError(f"cannot play without the {role} {name!r}, which fails its "
                                  f"dry run: {gone[name]}")
    kept = replace(cfg, entrants=tuple(e for e in cfg.entrants if e.name not in gone))
    n, seats = len(kept.entrants), cfg.format.seats
    lacking = _lacking(kept, n, seats, min_players)
    if lacking is not None:
        raise TournamentError(f"without the {len(cfg.entrants) - n} entrants that fail their "
                              f"dry run, {lacking}")
    return kept


def _lacking(kept: TournamentConfig, n: int, seats: int, min_players: int) -> str | None:
    """Why the entrants left cannot play this format, or None."""
    if n < seats:
        return f"{n} entrant{'s' * (n != 1)} left, fewer than the {seats} seats of a table"
    challengers = n - len(kept.format.champions)
    if kept.format.champions and challengers < seats - 1:  # a gauntlet's
        return (f"{challengers} challenger{'s' * (challengers != 1)} left, fewer than the "
                f"{seats - 1} a gauntlet of {seats} seats needs")
    if kept.grades and not kept.graded:
        return "every entrant left is a grade's bot; there is no one to grade"
    smallest = plan_for(kept).smallest_table()
    if smallest is not None and smallest[1] < min_players:
        return (f"{smallest[0]} would have a table of {smallest[1]}, fewer than the "
                f"{min_players} players the rule set needs")
    return None


def recorded(folder: Path) -> tuple[LeftOut, ...] | None:
    """Who the run in this folder was started without: None when no run was started there
    (no config.yaml), else what skipped.json says (no one, without it)."""
    if not (folder / folder_files.CONFIG).is_file():
        return None
    path = folder / folder_files.SKIPPED
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ()
    except (OSError, ValueError) as exc:
        raise TournamentError(f"{path}: cannot read who the run left out: {exc}") from None
    entries = data.get("skipped") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not all(_entry(e) for e in entries):
        raise TournamentError(f"{path}: not a list of skipped entrants, each an entrant's "
                              "name and a reason")
    return tuple(LeftOut(e["entrant"], e["reason"]) for e in entries)


def _entry(item: object) -> bool:
    return (isinstance(item, dict) and isinstance(item.get("entrant"), str)
            and isinstance(item.get("reason"), str))


def record(folder: Path, left_out: Sequence[LeftOut]) -> None:
    """Write skipped.json for a run started without these entrants (nothing for no one)."""
    if not left_out:
        return
    data = {"skipped": [{"entrant": e.name, "reason": e.reason} for e in left_out]}
    folder_files.write_atomic(folder / folder_files.SKIPPED,
                              json.dumps(data, indent=2, ensure_ascii=False) + "\n")
