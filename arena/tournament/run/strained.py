"""load.json: what the machine cost a run's decisions, none of it billed to a bot
(arena.hosts.strain, docs/rules.md "Time"): how many waited longer than their limit for a
CPU or while the referee was not running, the longest such wait, and how many were let run
past their wall limit for it. Written only when the machine strained a decision, so the
results of a run on a machine that kept up are the same files as ever; a resumed run adds
its own to what is there. The organiser is told in one line, at the end of the run and in
the report's header.
"""

from __future__ import annotations

import json
from pathlib import Path

from arena.hosts.strain import Strain
from arena.tournament.run import results as folder_files
from arena.tournament.run import safe_read


def read(folder: Path) -> Strain | None:
    """What load.json says, or None when there is none (or it is not one arena wrote)."""
    path = folder / folder_files.LOAD
    if not path.exists():
        return None
    try:
        return Strain.from_json(safe_read.json_file(path))
    except (safe_read.Unreadable, OSError, ValueError):
        return None


def record(folder: Path, strain: Strain | None) -> str | None:
    """Add this run's strain to load.json; return the organiser's warning, or None when the
    machine kept up with every decision of the run and of the runs it resumed."""
    earlier = read(folder)
    if strain is None:
        return None if earlier is None else earlier.sentence()
    total = strain if earlier is None else earlier + strain
    folder_files.write_atomic(folder / folder_files.LOAD,
                              json.dumps(total.to_json(), sort_keys=True) + "\n")
    return total.sentence()
