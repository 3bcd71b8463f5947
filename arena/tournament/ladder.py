"""A ladder season's runner: `--games N` more games into the same results folder, whose
entrants may change between runs (issue 17).

It guarantees that games.jsonl only grows (nothing played is replayed or dropped), that a
bot is frozen per version (each accepted version's file or folder is copied into
`versions/<player>/` and that copy is what plays), and that the same config, seed and log
give the same tables. ladder-log.jsonl is the append-only log of versions; ladder.json is
derived from it and games.jsonl after every batch. It must not read a clock or the global
random generator to decide a game, and it plays through the one executor as run.py does.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena.executor.local import Executor
from arena.ratings.render import crosstable_csv, ratings_json, standings_csv
from arena.ratings.summary import summarise
from arena.seeds import derive_seed
from arena.tournament import results as folder_files
from arena.tournament.config import EntrantConfig, TournamentConfig
from arena.tournament.config_as_run import dump_config
from arena.tournament.ladder_log import (
    BATCHES,
    LOG,
    batch_of,
    batch_starts,
    ladder_json,
    read_log,
    versions_now,
)
from arena.tournament.matchmaking import Settings, field_of, next_tables
from arena.tournament.run import run_seed, tournament_setup
from arena.tournament.schedule import GameSpec
from arena.tournament.worker import LostGames, game_job

__all__ = ["digest_of", "run_ladder"]


def digest_of(entrant: EntrantConfig) -> str:
    """What makes a version: sha256 over a bot file's bytes or a folder's files (by path),
    else over the reference, so a built-in bot with other options is another version."""
    hasher = hashlib.sha256()
    path = Path(entrant.bot or "")
    if entrant.bot and path.is_file():
        hasher.update(path.read_bytes())
    elif entrant.bot and path.is_dir():
        for part in sorted(p for p in path.rglob("*") if p.is_file()):
            hasher.update(part.relative_to(path).as_posix().encode() + b"\0" + part.read_bytes())
    else:
        hasher.update(repr(entrant.reference).encode())
    return "sha256:" + hasher.hexdigest()


def _frozen(folder: Path, player: str, entrant: EntrantConfig) -> EntrantConfig:
    """The entrant as its version plays: a copy of its file or folder kept in the results."""
    path = Path(entrant.bot or "")
    if not (entrant.bot and (path.is_file() or path.is_dir())):
        return replace(entrant, name=player)
    target = folder / "versions" / player / path.name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            shutil.copytree(path, target)
        else:
            shutil.copyfile(path, target)
    return replace(entrant, name=player, bot=str(target))


def _record_versions(folder: Path, cfg: TournamentConfig, played: int) -> list[dict[str, Any]]:
    """Append the log's new events (joins, new versions, removals); return the whole log."""
    events = read_log(folder)
    now = versions_now(events)
    new: list[dict[str, Any]] = []
    wanted = {e.name: e for e in cfg.entrants}
    for name, entrant in wanted.items():
        digest, last = digest_of(entrant), now.get(name)
        if last is not None and last["digest"] == digest and last["status"] == "active":
            continue
        version = 1 + max((e["version"] for e in events if e["entrant"] == name), default=0)
        if last is not None and last["status"] == "active":
            new.append({**last, "status": "retired", "reason": "replaced", "after": played})
        new.append({"entrant": name, "version": version, "player": f"{name}@{version}",
                    "digest": digest, "source": entrant.bot or "", "status": "active",
                    "reason": None, "after": played})  # fmt: skip
    for name, last in sorted(now.items()):
        if name not in wanted and last["status"] == "active":
            new.append({**last, "status": "retired", "reason": "removed", "after": played})
    if new:
        with open(folder / LOG, "a", encoding="utf-8") as handle:
            handle.writelines(json.dumps(e, sort_keys=True) + "\n" for e in new)
    return events + new


def run_ladder(cfg: TournamentConfig, out: str | Path, games: int, *, workers: int = 1,
               info: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Play `games` more ladder games into `out` (whole tables at every rotation, the last
    batch cut at the budget) and return the ladder.json written."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    with folder_files.locked(folder):
        folder_files.remove_temporaries(folder)
        folder_files.repair_games(folder / folder_files.GAMES)
        seed, _ = run_seed(folder, cfg)
        folder_files.write_atomic(folder / folder_files.CONFIG,
                                  dump_config(replace(cfg, seed=None), folder))
        played = list(folder_files.iter_games(folder / folder_files.GAMES))
        events = _record_versions(folder, cfg, len(played))
        now = versions_now(events)
        order = list(dict.fromkeys(str(e["player"]) for e in events))
        wanted = {e.name: e for e in cfg.entrants}
        source = {str(e["player"]): str(e["source"]) for e in events}
        frozen = tuple(_frozen(folder, p, wanted.get(p.rpartition("@")[0])
                               or EntrantConfig(p, bot=source[p])) for p in order)
        active = sorted(v["player"] for v in now.values() if v["status"] == "active")
        setup = tournament_setup(replace(cfg, seed=seed, entrants=frozen, replays=False))
        executor = Executor(game_job(setup), workers, lost=LostGames(info or (lambda _: None)))
        try:
            with folder_files.GameLog(folder / folder_files.GAMES) as log:
                _play(folder, cfg, seed, played, order, active, games, executor, log)
        finally:
            executor.close()
        return _derive(folder, cfg, events, played)


def _play(folder: Path, cfg: TournamentConfig, seed: int, played: list[dict[str, Any]],
          order: Sequence[str], active: Sequence[str], budget: int, executor: Executor,
          log: folder_files.GameLog) -> None:
    fmt = cfg.format
    settings = Settings(fmt.seats, fmt.batch or 8, fmt.min_games or 0, fmt.band or 4)
    goal = len(played) + budget
    while len(played) < goal and len(active) >= fmt.seats:
        ladder = [g for g in played if g["stage"] == "ladder"]
        starts = batch_starts(folder)
        batch, table = len(starts) + 1, max((int(g["table"]) for g in ladder), default=0)
        last = {p: batch_of(starts, n) for n, g in enumerate(played) for p in g["entrants"]}
        field = field_of(summarise(ladder, sorted({*order, *active})), active, last, batch)
        specs: list[GameSpec] = []
        for number, seating in enumerate(next_tables(field, settings, seed), table + 1):
            deal = derive_seed(seed, f"ld-t{number}")
            for turn in range(len(seating)):
                if len(played) + len(specs) < goal:
                    seats = tuple(order.index(p) for p in (*seating[turn:], *seating[:turn]))
                    specs.append(GameSpec(f"ld-{len(played) + len(specs) + 1:08d}", "ladder",
                                          number, seats, deal, f"ld-t{number}"))
        if not specs:
            break
        with open(folder / BATCHES, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"batch": batch, "after": len(played)}) + "\n")
        for done in executor.map(specs):
            log.append((done.line,))
            played.append(json.loads(done.line))
    log.sync()


def _derive(folder: Path, cfg: TournamentConfig, events: list[dict[str, Any]],
            played: list[dict[str, Any]]) -> dict[str, Any]:
    """ladder.json and the derived tables every format has, from the games and the log."""
    value = ladder_json(cfg, events, played, batch_starts(folder))
    folder_files.write_atomic(folder / "ladder.json",
                              json.dumps(value, sort_keys=True, indent=1) + "\n")
    names = sorted({n for g in played for n in g["entrants"]})
    summary = summarise(played, names)
    folder_files.write_atomic(folder / "standings.csv", standings_csv(summary.standings()))
    folder_files.write_atomic(folder / "ratings.json",
                              ratings_json(summary.openskill(), summary.elo()))
    folder_files.write_atomic(folder / "crosstable.csv", crosstable_csv(summary.crosstable()))
    return value
