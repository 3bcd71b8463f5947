"""The derived files of a results folder: ratings.json, standings.csv/.md, crosstable.csv
and stages.json, and, for a config with `grades:`, grades.json and grades.csv, all from one
pass over games.jsonl (or from the totals a run fed as it appended each game: `Totals`).

Each is written atomically (temp file, then rename), so a reader never sees half a file,
and memory does not grow with the games. This module never plays a game, never appends to
games.jsonl and never builds the report (arena/report/ reads these files).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.ratings.grades import Deals, grade, grades_csv, grades_json, sentence
from arena.ratings.render import crosstable_csv, ratings_json, standings_csv, standings_md
from arena.ratings.summary import Summary, summarise
from arena.tournament.config import TournamentConfig
from arena.tournament.formats.plan import Placements, Plan, json_parts
from arena.tournament.run import results as folder_files

__all__ = ["Derived", "Totals", "write_derived"]


@dataclass(frozen=True, slots=True)
class Derived:
    """What the derived files tell the user at the end of a run."""

    standings: str
    """standings.md: the standings as a Markdown table."""
    warnings: tuple[str, ...]
    """One line for each entrant that faulted in every game it played."""
    grades: tuple[str, ...] = ()
    """One sentence per graded entrant: the grade it reached and how (grades.json)."""


class Totals:
    """The derived tables' totals and the grades' meetings, fed each game as it is appended
    or as another pass reads the log (the audit's at the end of a run), so the end never
    reads the log for them; the tables' given up, and the log read again by `write_derived`,
    if the games come out of id order (an elimination's)."""

    def __init__(self, cfg: TournamentConfig) -> None:
        self.summary: Summary | None = Summary([e.name for e in cfg.entrants])
        self.deals = Deals(cfg.grades, cfg.graded) if cfg.grades else None

    def __call__(self, game: Mapping[str, Any]) -> None:
        """Count one game, in the log's order."""
        if self.deals is not None:
            self.deals.add(game)
        if self.summary is None:
            return
        try:
            self.summary.add(game)
        except ValueError:  # out of id order (or twice): summarise sorts it, or says so
            self.summary = None


def write_derived(
    folder: Path, cfg: TournamentConfig, plan: Plan, results: Mapping[str, Placements],
    totals: Totals | None = None,
) -> Derived:
    """Write ratings.json, standings.csv/.md, crosstable.csv and stages.json from one pass
    over games.jsonl, each atomically; return the standings as Markdown, and warnings.

    Memory does not grow with the games: the log is read one game at a time (a second time
    only if it is not in id order, as an elimination's is, see arena/ratings/summary.py), and
    stages.json, which lists every game, is encoded and written in parts. `totals`, fed
    every game of the log already, spare reading it here."""
    games = folder_files.GameFile(folder / folder_files.GAMES)
    summary = totals.summary if totals is not None and totals.summary is not None else \
        summarise(games, [e.name for e in cfg.entrants])
    bracket = plan.stages(results) if plan.ranks_itself else None
    ranking = bracket["ranking"] if bracket else None  # a bracket's or a Swiss's own order
    champions = cfg.format.champions  # a gauntlet's: none for another format
    rows = summary.standings(ranking, champions)  # champions who never met are not ranked
    swiss = ranking is not None and plan.own_ranking == "scores"
    derived = {
        "ratings.json": ratings_json(summary.openskill(), summary.elo()),
        "standings.csv": standings_csv(rows),
        "standings.md": standings_md(rows, bracket=ranking is not None and not swiss,
                                     swiss=swiss, champions=champions),
        "crosstable.csv": crosstable_csv(summary.crosstable()),
    }
    for name, text in derived.items():
        folder_files.write_atomic(folder / name, text)
    ranked = [row.entrant for row in rows if row.rank is not None]
    document = bracket or plan.stages(results, ranked)
    stages = itertools.chain(json_parts(document), ["\n"])
    folder_files.write_atomic(folder / "stages.json", stages)
    warnings = tuple(
        f"entrant {name!r} faulted in "
        f"{'the one game' if games == 1 else f'all {games} games'} it played; "
        f"commonest fault: {fault}"
        for name, games, fault in summary.always_faulted()
    )
    deals = totals.deals if totals is not None else None
    return Derived(derived["standings.md"], warnings, write_grades(folder, cfg, deals))


def write_grades(folder: Path, cfg: TournamentConfig,
                 deals: Deals | None = None) -> tuple[str, ...]:
    """Write grades.json and grades.csv atomically for a config with grades; return each
    sentence. `deals`, fed every game of the log already, spare reading it here."""
    if not cfg.grades:
        return ()
    games = folder_files.GameFile(folder / folder_files.GAMES)
    gradings = deals.gradings() if deals is not None else grade(games, cfg.grades, cfg.graded)
    folder_files.write_atomic(folder / folder_files.GRADES, grades_json(gradings, cfg.grades))
    folder_files.write_atomic(folder / folder_files.GRADE_SHEET, grades_csv(gradings, cfg.grades))
    return tuple(sentence(g) for g in gradings)
