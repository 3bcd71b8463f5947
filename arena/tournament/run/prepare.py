"""A results folder made ready for a run: checked against the flags (--resume, --force) and
the saved configuration, its torn last line and temporaries gone, and the run's seed.

A resume must play the tournament the folder was started with: its config.yaml (the
configuration as run) and its secret (the root seed, owner-only) are compared with this
run's, and any difference is one line that says how to go on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.seeds import draw_secret
from arena.tournament.config import ConfigError, TournamentConfig
from arena.tournament.config.as_run import (
    config_as_run,
    config_differences,
    dump_config,
)
from arena.tournament.config.yaml_lines import read_yaml
from arena.tournament.errors import TournamentError
from arena.tournament.formats.plan import Placements
from arena.tournament.run import results as folder_files
from arena.tournament.run import safe_read, secret, skipped
from arena.tournament.run.skipped import LeftOut

__all__ = ["RESUME_IGNORES", "prepare", "run_seed"]

RESUME_IGNORES = ("workers", "output", "isolation", "cluster")
"""Config keys that may change between a run and its resume without changing results (each
replay header says at which isolation level its game was played)."""


def prepare(
    folder: Path, cfg: TournamentConfig, *, resume: bool, force: bool,
    left_out: tuple[LeftOut, ...] = (),
) -> list[tuple[str, Placements]]:
    """Check the folder against the flags and the saved config; return the games on disk."""
    games_path, config_path = folder / folder_files.GAMES, folder / folder_files.CONFIG
    if force:
        folder_files.clear(folder)
    folder_files.remove_temporaries(folder)
    folder_files.repair_games(games_path)
    recorded = [(str(g["id"]), tuple(g["placements"])) for g in folder_files.iter_games(games_path)]
    if recorded and not resume:
        raise TournamentError(
            f"{folder} already holds {len(recorded)} games of a run; add --resume to play "
            "the rest, or --force to start over"
        )
    if recorded and not config_path.exists():
        raise TournamentError(
            f"cannot resume: {config_path} is missing, so the games cannot be checked "
            "against the configuration; start over with --force"
        )
    if resume and config_path.exists():
        _check_unchanged(config_path, cfg)
        if skipped.recorded(folder) != left_out:
            raise TournamentError(f"cannot resume: {folder} was started without other "
                                  f"entrants than this run leaves out; start over with --force")
    else:
        folder_files.clear(folder)  # nothing worth keeping: no stale replays or tables
        folder_files.write_atomic(config_path, dump_config(cfg, folder))
        skipped.record(folder, left_out)
    if cfg.replays:
        folder_files.own(folder / folder_files.REPLAYS, folder=True, make=True)
    return recorded


def run_seed(folder: Path, cfg: TournamentConfig) -> tuple[int, bool]:
    """The run's root seed, saved as the folder's secret, and whether it was drawn now: the
    secret already there (a resume), else the config's seed, else a fresh secret."""
    saved = secret.read_secret(folder)
    if saved is not None and cfg.seed is not None and saved != cfg.seed:
        raise TournamentError(
            f"the configuration changed since {folder} was started: its seed is not the one "
            f"saved in {folder / folder_files.SECRET} (resume with the original "
            "configuration, or --force to start over)"
        )
    seed = saved if saved is not None else cfg.seed
    if seed is None:
        seed = draw_secret()
    secret.write_secret(folder, seed)
    return seed, cfg.seed is None and saved is None


def _saved_config(config_path: Path) -> dict[str, Any]:
    try:
        saved = read_yaml(safe_read.read_file(config_path).decode("utf-8"), str(config_path))
    except (safe_read.Unreadable, ConfigError, UnicodeDecodeError) as exc:  # bounded YAML
        raise TournamentError(
            f"{config_path}: cannot read the saved configuration: {exc}"
        ) from None
    return saved if isinstance(saved, dict) else {}


def _check_unchanged(config_path: Path, cfg: TournamentConfig) -> None:
    saved = _saved_config(config_path)
    changes = config_differences(saved, config_as_run(cfg, config_path.parent),
                                 ignore=RESUME_IGNORES)
    if changes:
        raise TournamentError(
            f"the configuration changed since {config_path.parent} was started: "
            + "; ".join(changes)
            + " (resume with the original configuration, or --force to start over)"
        )
