"""Start each entrant once, the way it will run, before any game: a bot that can only fail
(a program that is not there, an option value the bot refuses, a rule set it will not play)
is refused up front with one line, instead of faulting in every game.

An entrant is started as every command hosts it (`arena.entrants`: inline in this process,
`process` behind the launcher with its limits, `command` as its program) for a game of the
tournament's (or comparison's, or game's) rule set, options, table size and time limits, and
then stopped.
A start has a time limit (`START_TIMEOUT`; process hosts keep their own `start_timeout`).
This module plays no game and never writes the results folder.
"""

from __future__ import annotations

import contextlib
import random
import signal
import threading
from collections.abc import Iterator, Mapping, Sequence
from types import FrameType
from typing import Any

from arena.bot import BotContext, Limits
from arena.entrants import Resolved, command_problem, resolve
from arena.hosts.inline import BotFault, Host
from arena.hosts.processes import ProcessLimits
from arena.options import Options
from arena.tournament.config import ConfigError, EntrantConfig, KeyLines, TournamentConfig

__all__ = [
    "START_TIMEOUT", "check_entrants", "entrant_problem", "start_problem",
    "trial_context",
]

START_TIMEOUT = ProcessLimits().start_timeout
"""Seconds an inline bot may take to be built and started, as long as a process bot may."""


class _StartTimeout(BaseException):
    """Raised in an inline bot at its start deadline; a BaseException so the host's
    `except Exception` does not turn it into a crash."""


def entrant_problem(entrant: Resolved, rules: str, options: Mapping[str, Any], seats: int,
                    limits: Limits, names: Sequence[str],
                    bot_options: Mapping[str, Any] | None = None) -> str | None:
    """Start an entrant once as every command hosts it (arena.entrants), for seat 0 of a
    game of `seats`: why it did not start, or None. `bot_options` replace its own. A command
    whose program cannot run is each caller's first check (`entrants.command_problem`), so
    it can say where."""
    own = dict(entrant.reference.options) if bot_options is None else bot_options
    context = trial_context(rules, options, seats, limits, own, names[:seats])
    return start_problem(entrant.host(), context)


def start_problem(host: Host, context: BotContext, timeout: float = START_TIMEOUT) -> str | None:
    """Start the host's bot for one game and stop it again: why it did not start, or None."""
    try:
        with _deadline(timeout if host.mode == "inline" else None):
            host.start(context)
    except BotFault as fault:
        return " ".join(fault.message.removeprefix("while starting: ").split())
    except _StartTimeout:
        return f"did not start within {timeout:.3g}s"
    finally:
        host.close()
        shutdown = getattr(host, "shutdown", None)
        if shutdown is not None:
            shutdown()
    return None


@contextlib.contextmanager
def _deadline(seconds: float | None) -> Iterator[None]:
    """Interrupt the code inside after `seconds` of wall time (main thread only)."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise _StartTimeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def trial_context(
    rules: str,
    options: Mapping[str, Any],
    players: int,
    limits: Limits,
    bot_options: Mapping[str, Any],
    names: Sequence[str],
) -> BotContext:
    """The context of seat 0 at a table of the tournament, as a game would build it."""
    from arena.plugins import find_rules

    return BotContext(0, players, rules, Options.of(options), limits,
                      random.Random(0), Options.of(bot_options), tuple(names),
                      find_rules(rules).description)


# --- a tournament's entrants --------------------------------------------------------------


def check_entrants(cfg: TournamentConfig, lines: KeyLines, registry: Any = None) -> None:
    """Start every distinct entrant once; raise ConfigError at the first that cannot start."""
    tried: set[tuple[Any, ...]] = set()
    for index, entrant in enumerate(cfg.entrants):
        key = (entrant.bot, entrant.command, entrant.options, entrant.mode)
        if key not in tried:
            tried.add(key)
            _check_entrant(cfg, index, entrant, lines, registry)


def _check_entrant(
    cfg: TournamentConfig, index: int, entrant: EntrantConfig, lines: KeyLines, registry: Any
) -> None:
    """Refuse one entrant whose program cannot run or whose bot does not start."""
    here = ("entrants", index)
    if entrant.command is not None:
        problem = command_problem(entrant.command)
        if problem is not None:
            raise lines.error((*here, "command"), problem)
    problem = _start(cfg, entrant, registry, entrant.options)
    if problem is None:
        return
    if entrant.options and _start(cfg, entrant, registry, {}) is None:
        raise _option_error(entrant, here, lines, problem)
    game = f"a {cfg.rules!r} game of {cfg.format.seats} seats"
    source = "command" if entrant.command is not None else "bot"
    raise lines.error((*here, source), f"does not start for {game}: {problem}")


def _start(
    cfg: TournamentConfig, entrant: EntrantConfig, registry: Any, bot_options: Mapping[str, Any]
) -> str | None:
    """Start the entrant once as the tournament will host it, with these bot options."""
    names = [entrant.name, *(e.name for e in cfg.entrants if e is not entrant)]
    return entrant_problem(resolve(entrant.reference, registry), cfg.rules, cfg.options,
                           cfg.format.seats, cfg.limits, names, bot_options)


def _option_error(
    entrant: EntrantConfig, here: tuple[str | int, ...], lines: KeyLines, problem: str
) -> ConfigError:
    """The bot starts without its options: point at the option it names (or the only one)."""
    named = [key for key in entrant.options if key in problem]
    keys = named if len(named) == 1 else list(entrant.options)
    who = f"bot {entrant.bot!r}" if entrant.bot is not None else "the command"
    if len(keys) == 1:
        return lines.error((*here, "options", keys[0]),
                           f"{who} does not start with this option: {problem}")
    return lines.error((*here, "options"), f"{who} does not start with these options: {problem}")
