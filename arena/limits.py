"""A game's time limits: the one class the referee, the hosts, the config and replays use.

It imports nothing from arena, so every layer (the config too, which knows no rules) can
hold it.
"""

from __future__ import annotations

from dataclasses import dataclass

START_TIMEOUT = 10.0
"""Seconds a bot may take to start, by default: its process to be spawned and say hello, a
game to be started or ended in it, an inline bot's dry run (config key `limits.start`)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Time limits for each bot: seconds per decision, an optional per-game time bank, and
    the wall-clock limit of a decision as a multiple of its time (`wall_factor`): past its
    time a decision is billed the smaller of its wall and CPU time, and it is stopped at
    `time × wall_factor` of wall time however little CPU it used (docs/rules.md, Faults)."""

    decision: float = 1.0
    bank: float | None = None
    wall_factor: float = 2.0

    def __post_init__(self) -> None:
        if not self.decision > 0:
            raise ValueError(f"decision time limit must be positive, not {self.decision!r}")
        if self.bank is not None and self.bank < 0:
            raise ValueError(f"time bank must be zero or more seconds, not {self.bank!r}")
        if not 1 <= self.wall_factor < float("inf"):
            raise ValueError(f"wall_factor must be at least 1 and finite, not {self.wall_factor!r}")
