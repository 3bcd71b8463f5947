"""The limits of one bot process: what its launcher sets (RLIMITs), what its cgroup totals,
how long its lines and its stderr tail may be, how long it may take to start, and where it
runs (its isolation level, whether it may use the network). Plain data, checked once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from arena.limits import START_TIMEOUT

KiB = 1024
MiB = KiB * KiB


@dataclass(frozen=True, slots=True)
class ProcessLimits:
    """Limits for one bot process (bytes and seconds); None leaves an OS limit as it is.

    `memory` (RLIMIT_AS of each process and, where cgroups are delegated, the resident total
    of the bot and all its helpers, swap none), `cpu` (RLIMIT_CPU over the process's life: a
    backstop, since decisions are timed separately; the host starts a fresh process before a
    game once half is used), `file_size` (RLIMIT_FSIZE), `open_files` (RLIMIT_NOFILE),
    `processes` (tasks the bot may add to its user's count: RLIMIT_NPROC, which the kernel
    ignores for root; and the cgroup's pids.max, the bot's tasks in all, root's too),
    `line_bytes` (longest reply line), `stderr_bytes` (stderr tail kept), `start_timeout`
    (spawn, hello, start and end) and `pid_namespace` (None: use one when `unshare` works
    here; level `none` only). `isolation` is the level (`arena.hosts.walls`: strict,
    standard or none; None: the strongest this machine gives) and `network` lets the bot's
    sandbox share the machine's network; `seat` is the seat index whose images of the
    system's files a sandboxed bot is shown (`arena.hosts.view`: a table-mate's differ). A
    decision's own wall-clock limit is the game's (`arena.bot.Limits.wall_factor`).
    """

    memory: int | None = 1024 * MiB
    cpu: int | None = 600
    file_size: int | None = 8 * MiB
    open_files: int | None = 64
    processes: int | None = 64
    line_bytes: int = 64 * KiB
    stderr_bytes: int = 64 * KiB
    start_timeout: float = START_TIMEOUT
    pid_namespace: bool | None = None
    isolation: str | None = None
    network: bool = False
    seat: int = 0

    def __post_init__(self) -> None:
        for name in ("memory", "cpu", "file_size", "open_files", "processes"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < 0):
                raise ValueError(f"{name} must be a whole number of zero or more, not {value!r}")
        if type(self.seat) is not int or self.seat < 0:
            raise ValueError(f"seat must be a seat index (0 or more), not {self.seat!r}")
        if self.line_bytes < 64 or self.stderr_bytes < 0:
            raise ValueError("line_bytes must be at least 64 and stderr_bytes zero or more")
        if not self.start_timeout > 0:
            raise ValueError(f"start_timeout must be positive, not {self.start_timeout!r}")

    def rlimits(self) -> dict[str, int | None]:
        """The OS limits, as the launcher reads them."""
        keys = ("memory", "cpu", "file_size", "open_files", "processes")
        return {k: v for k, v in asdict(self).items() if k in keys}
