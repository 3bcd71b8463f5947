"""A ladder's results folder as its runner leaves it (issue 17's contract, section 3), made
by a small scripted season instead of bots, so the report's tests need no ladder runner:
games.jsonl and ladder.json, and (with `derived`) the derived tables every format has.

The season: four entrants play batches 1-2; then alice's changed file replaces alice@1
(retired, its games kept), erin joins and frank's submission is rejected with a reason full
of markup; gina joins before batch 5; then the top 3 play a complete final. Late joiners
stay provisional. `ladder_folder` is the one function the tests call: point it at a real
ladder's folder to run them against one.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.ratings.render import crosstable_csv, ratings_json, standings_csv
from arena.ratings.summary import summarise

REASON = (
    'could not start: <img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
    " & exited 1"
)
"""What frank's bot printed when it failed its validation game."""
MIN_GAMES, TABLES, SEATS, TOP = 24, 8, 2, 3
STRENGTH = {"alice@1": 0, "alice@2": 320, "bob@1": 220, "carol@1": 200, "dave@1": -120,
            "erin@1": 160, "gina@1": 40}  # fmt: skip
"""Each player's true Elo, which its results follow."""
SEASON = (
    ("alice@1", "bob@1", "carol@1", "dave@1"),
    ("alice@1", "bob@1", "carol@1", "dave@1"),
    ("alice@2", "bob@1", "carol@1", "dave@1", "erin@1"),
    ("alice@2", "bob@1", "carol@1", "dave@1", "erin@1"),
    ("alice@2", "bob@1", "carol@1", "dave@1", "erin@1", "gina@1"),
)
"""The active players of each batch."""
CONFIG = """\
name: spring-ladder
rules: dice
options: {max_points: 2}
submissions: entries/
format: {type: ladder, seats: 2, min_games: 24, batch: 8, band: 3, final_games: 1}
"""


class _Season:
    """The games and the ladder's log as a season is played."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.games: list[dict[str, Any]] = []
        self.table = 0

    def played(self, player: str) -> int:
        return sum(player in g["entrants"] for g in self.games)

    def _game(self, game_id: str, stage: str, seats: Sequence[str], group: str) -> None:
        a, b = seats
        faulted = "dave@1" in seats and self.rng.random() < 0.2
        chance = 1 / (1 + 10 ** ((STRENGTH[b] - STRENGTH[a]) / 400))
        first = a if (self.rng.random() < chance) != (faulted and a == "dave@1") else b
        if faulted:
            first = b if a == "dave@1" else a
        places = [1 if p == first else 2 for p in seats]
        faults = [{"seat": seats.index("dave@1"), "kind": "crash",
                   "message": "Traceback: ZeroDivisionError"}] if faulted else []  # fmt: skip
        self.games.append({
            "id": game_id, "stage": stage, "table": self.table, "group": group,
            "seed": self.rng.randrange(2**32), "entrants": list(seats), "placements": places,
            "scores": [0 if p == 1 else 2 for p in places], "faults": faults,
            "decisions": self.rng.randint(4, 30), "replay": None,
        })  # fmt: skip

    def batch(self, active: Sequence[str]) -> list[list[str]]:
        """Fewest games first, against a random other; each table at both seat orders."""
        tables = []
        for _ in range(TABLES):
            first = min(active, key=lambda p: (self.played(p), p))
            other = self.rng.choice([p for p in active if p != first])
            self.table += 1
            for seats in ((first, other), (other, first)):
                self._game(f"ld-{len(self.games) + 1:08d}", "ladder", seats, f"ld-t{self.table}")
            tables.append([first, other])
        return tables

    def final(self, top: Sequence[str]) -> None:
        pairs = [(a, b) for i, a in enumerate(top) for b in top[i + 1:]]
        for number, (a, b) in enumerate(pairs, 1):
            self.table = number
            for seats in ((a, b), (b, a)):
                count = sum(g["stage"] == "final" for g in self.games)
                self._game(f"fn-{count + 1:06d}", "final", seats, f"fn-t{number}-d1")


def _ratings(games: list[dict[str, Any]], players: Sequence[str]) -> dict[str, Any]:
    names = sorted({n for g in games for n in g["entrants"]} | set(players))
    fit = {r.entrant: r for r in summarise(games, names).elo()}
    return {p: None if fit[p].rating is None else [fit[p].rating, fit[p].low, fit[p].high]
            for p in players}  # fmt: skip


def _ranking(games: list[dict[str, Any]], active: Sequence[str]) -> list[dict[str, Any]]:
    ratings = _ratings(games, active)
    rows = []
    for player in active:
        played = [g for g in games if player in g["entrants"]]
        faults = sum(any(g["entrants"][f["seat"]] == player for f in g["faults"]) for g in played)
        elo, low, high = ratings[player] or (None, None, None)
        rows.append({"player": player, "entrant": player.split("@")[0],
                     "version": int(player.split("@")[1]), "games": len(played),
                     "faults": faults, "elo": elo, "low": low, "high": high})  # fmt: skip
    ranked = sorted((r for r in rows if r["games"] >= MIN_GAMES), key=lambda r: -r["elo"])
    waiting = sorted((r for r in rows if r["games"] < MIN_GAMES), key=lambda r: -(r["elo"] or 0))
    for number, row in enumerate(ranked, 1):
        above = ranked[number - 2] if number > 1 else None
        row.update(rank=number, provisional=False,
                   tied=above is not None and above["low"] <= row["high"])  # fmt: skip
    for row in waiting:
        row.update(rank=None, provisional=True, tied=False)
    return ranked + waiting


def _unresolved(ranking: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Adjacent pairs of the top TOP + 1 ranked whose difference is under 1.96 errors (each
    error from its interval; a real ladder takes the fit's covariance)."""
    ranked = [r for r in ranking if not r["provisional"]][: TOP + 1]
    found = []
    for above, below in itertools.pairwise(ranked):
        error = math.hypot(*((r["high"] - r["low"]) / (2 * 1.959964) for r in (above, below)))
        z = (above["elo"] - below["elo"]) / error
        if z < 1.959964:
            found.append({"above": above["player"], "below": below["player"], "z": round(z, 2)})
    return found


def _versions(games: list[dict[str, Any]], active: Sequence[str]) -> list[dict[str, Any]]:
    made = [("alice@1", 0), ("bob@1", 0), ("carol@1", 0), ("dave@1", 0), ("alice@2", 64),
            ("erin@1", 64), ("frank@1", 64), ("gina@1", 128)]  # fmt: skip
    rows = []
    for player, after in sorted(made):
        entrant, version = player.split("@")
        status = "rejected" if entrant == "frank" else "active" if player in active else "retired"
        rows.append({
            "entrant": entrant, "version": int(version), "player": player,
            "digest": "sha256:" + hashlib.sha256(player.encode()).hexdigest(),
            "source": f"entries/{entrant}.py", "status": status,
            "reason": REASON if status == "rejected" else None, "after": after,
            "games": sum(player in g["entrants"] for g in games),
        })  # fmt: skip
    return rows


def history_of(folder: Path) -> list[dict[str, Any]]:
    """ladder-history.jsonl's lines: each batch's ratings."""
    text = (folder / "ladder-history.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _write(folder: Path, name: str, value: Mapping[str, Any]) -> None:
    (folder / name).write_text(json.dumps(value, sort_keys=True) + "\n", encoding="utf-8")


def ladder_folder(root: Path, *, derived: bool = True, final: bool = True, seed: int = 9) -> Path:
    """The season's results folder under `root`: games.jsonl, ladder.json,
    ladder-history.jsonl, config.yaml and,
    with `derived`, standings.csv, ratings.json and crosstable.csv as every format has."""
    folder = root / "spring-ladder"
    folder.mkdir(parents=True)
    season, history = _Season(seed), []
    for number, active in enumerate(SEASON, 1):
        after = len(season.games)
        history.append({"batch": number, "after": after,
                        "ratings": _ratings(season.games, active)})  # fmt: skip
        season.batch(active)
    active = SEASON[-1]
    ranking = _ranking(season.games, active)
    top = [r["player"] for r in ranking[:TOP]]
    if final:
        season.final(top)
    ladder_games = [g for g in season.games if g["stage"] == "ladder"]
    lines = "".join(json.dumps(g, sort_keys=True) + "\n" for g in season.games)
    (folder / "games.jsonl").write_text(lines, encoding="utf-8")
    (folder / "config.yaml").write_text(CONFIG, encoding="utf-8")
    finals = [g for g in season.games if g["stage"] == "final"]
    wins = {p: sum(g["entrants"][g["placements"].index(1)] == p for g in finals) for p in top}
    _write(folder, "ladder.json", {
        "format": "ladder", "rules": "dice", "seats": SEATS, "min_games": MIN_GAMES,
        "games": len(season.games), "batches": len(SEASON), "top": TOP,
        "ranking": ranking, "unresolved": _unresolved(ranking),
        "versions": _versions(ladder_games, active),
        "final": {"top": top, "games": len(finals), "played": len(finals), "complete": True,
                  "ranking": sorted(top, key=lambda p: -wins[p])} if final else None,
    })  # fmt: skip
    (folder / "ladder-history.jsonl").write_text(
        "".join(json.dumps(line, sort_keys=True) + "\n" for line in history), encoding="utf-8")
    if derived:
        _derived(folder, season.games)
    return folder


def _derived(folder: Path, games: list[dict[str, Any]]) -> None:
    names = sorted({n for g in games for n in g["entrants"]})
    summary = summarise(games, names)
    (folder / "standings.csv").write_text(standings_csv(summary.standings()), encoding="utf-8")
    ratings = ratings_json(summary.openskill(), summary.elo())
    (folder / "ratings.json").write_text(ratings, encoding="utf-8")
    (folder / "crosstable.csv").write_text(crosstable_csv(summary.crosstable()), encoding="utf-8")
