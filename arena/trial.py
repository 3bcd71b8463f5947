"""Start each entrant once, the way it will run, before any game: a bot that can only fail
(a program that is not there, an option value the bot refuses, a rule set it will not play)
is refused up front with one line, instead of faulting in every game.

An entrant is started as every command hosts it (`arena.entrants`: inline in this process,
`process` behind the launcher with its limits, `command` as its program) for a game of the
tournament's (or comparison's, or game's) rule set, options, table size and time limits, and
then stopped. This start is the dry run of an untrusted bot: its name, rule sets and options
(its card) are what it says at hello from inside its own process, and are checked here; its
code never runs in the organiser's processes.
A start has a time limit: the entrant's `start_timeout` (a config's `limits.start`; by default
`START_TIMEOUT`), the one its process host keeps, and an inline bot's here.
This module plays no game and never writes the results folder.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from types import FrameType
from typing import Any

from arena import entrants
from arena.bot import BotContext, Limits
from arena.entrants import (
    EntrantError,
    Problem,
    Resolved,
    command_problem,
    introduced,
    problem,
)
from arena.hosts.inline import BotFault, Host
from arena.limits import START_TIMEOUT
from arena.options import Options
from arena.tournament.config import ConfigError, EntrantConfig, KeyLines, TournamentConfig

__all__ = [
    "START_TIMEOUT", "TRIALS", "CardError", "StartError", "check_entrants", "dry_run",
    "entrant_problem", "start_problem", "trial_context", "try_entrants",
]

TRIALS = os.cpu_count() or 1
"""Entrants in their own process whose dry runs are under way at once: 200 distinct file bots
are tried in half the wall time on two cores."""


class _StartTimeout(BaseException):
    """Raised in an inline bot at its start deadline; a BaseException so the host's
    `except Exception` does not turn it into a crash."""


def entrant_problem(entrant: Resolved, rules: str, options: Mapping[str, Any], seats: int,
                    limits: Limits, names: Sequence[str],
                    bot_options: Mapping[str, Any] | None = None,
                    host: Host | None = None) -> str | None:
    """Start an entrant once as every command hosts it (arena.entrants), for seat 0 of a
    game of `seats` (on `host`, whose process may already be up, else a new one): why it did
    not start, or None. `bot_options` replace its own. A command whose program cannot run is
    each caller's first check (`entrants.command_problem`), so it can say where."""
    own = dict(entrant.reference.options) if bot_options is None else bot_options
    context = trial_context(rules, options, seats, limits, own, names[:seats])
    return start_problem(host or entrant.host(), context, entrant.reference.start_timeout)


def dry_run(entrant: Resolved, rules: str, options: Mapping[str, Any], seats: int,
            limits: Limits, names: Sequence[str], who: str | None = None) -> Resolved:
    """Start an entrant once, in its own process where it runs in one: what it says at hello
    (its card: a file is never loaded here) is checked against these rules and its options,
    then one game is started; return it with its card. Raise EntrantError with the one line
    why it cannot play, in each check's words (a `Problem`'s where is in `.where`)."""
    host = entrant.host()
    try:
        if entrant.mode == "process":
            entrant = introduced(entrant, host)
        _check_card(entrant, rules, who)
        refused = entrant_problem(entrant, rules, options, seats, limits, names, host=host)
        said = host.card  # a command says what it is at its start's hello
        if entrant.mode == "command" and said is not None:
            entrant = replace(entrant, card=replace(said, origin=entrant.origin))
            _check_card(entrant, rules, who)
    finally:
        _stop(host)
    if refused is not None:
        raise StartError(refused)
    return entrant


class StartError(EntrantError):
    """An entrant said hello and passed its card's checks, but did not start for a game."""


class CardError(EntrantError):
    """What an entrant's card says does not fit (a rule set it does not play, an option it
    does not take); `where` is the key of its entry that is wrong."""

    def __init__(self, found: Problem) -> None:
        super().__init__(found.message)
        self.where = found.where


def _check_card(entrant: Resolved, rules: str, who: str | None) -> None:
    found = problem(entrant, rules, who)
    if found is not None:
        raise CardError(found)


def _stop(host: Host) -> None:
    """Close a host after its trial and stop its bot process, if it has one."""
    host.close()
    host.shutdown()


def start_problem(host: Host, context: BotContext, timeout: float = START_TIMEOUT) -> str | None:
    """Start the host's bot for one game and stop it again: why it did not start, or None."""
    try:
        with _deadline(timeout if host.mode == "inline" else None):
            host.start(context)
    except BotFault as fault:
        at = f" (at {fault.trace[-1]})" if fault.trace else ""  # where its own code raised
        return " ".join(fault.message.removeprefix("while starting: ").split()) + at
    except _StartTimeout:
        return f"did not start within {timeout:.3g}s"
    finally:
        _stop(host)
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
    from arena.rules import get_rules

    return BotContext(0, players, rules, Options.of(options), limits,
                      random.Random(0), Options.of(bot_options), tuple(names),
                      get_rules(rules).description)


# --- a tournament's entrants --------------------------------------------------------------


def check_entrants(cfg: TournamentConfig, lines: KeyLines,
                   registry: Any = None) -> tuple[Resolved, ...]:
    """Start every distinct entrant once (a dry run); raise the ConfigError of the first that
    cannot play. Return each entrant with its card, in the config's order."""
    tried = try_entrants(cfg, lines, registry)
    for outcome in tried:
        if isinstance(outcome, ConfigError):
            raise outcome
    return tuple(o for o in tried if not isinstance(o, ConfigError))


def try_entrants(cfg: TournamentConfig, lines: KeyLines, registry: Any = None,
                 resolved: Sequence[Resolved] = ()) -> tuple[Resolved | ConfigError, ...]:
    """Start every distinct entrant once (a dry run), all of them whatever the others do, so
    an organiser hears of every broken entrant at once: each entrant with its card, or the
    one-line ConfigError why it cannot play (the same one for the same bot), in order.
    `resolved`, by entrant, are the entrants resolved already (arena.tournament.load): those
    in their own process are tried `TRIALS` at a time (a start mostly waits for its process),
    inline ones in this thread (their start's deadline is a signal)."""
    firsts: dict[tuple[Any, ...], int] = {}
    for index, entrant in enumerate(cfg.entrants):
        firsts.setdefault((entrant.bot, entrant.command, entrant.options, entrant.mode), index)

    def attempt(index: int) -> Resolved | ConfigError:
        given = resolved[index] if resolved else None
        try:
            return _check_entrant(cfg, index, cfg.entrants[index], lines, registry, given)
        except ConfigError as exc:
            return exc

    apart = [i for i in firsts.values() if resolved and resolved[i].mode != "inline"]
    with ThreadPoolExecutor(max_workers=max(1, min(TRIALS, len(apart)))) as pool:
        trials = pool.map(attempt, apart)  # all under way now; the inline ones meanwhile here
        outcomes = {i: attempt(i) for i in firsts.values() if i not in apart}
        outcomes |= dict(zip(apart, trials, strict=True))
    return tuple(outcomes[firsts[(e.bot, e.command, e.options, e.mode)]] for e in cfg.entrants)


def _check_entrant(
    cfg: TournamentConfig, index: int, entrant: EntrantConfig, lines: KeyLines, registry: Any,
    given: Resolved | None = None,
) -> Resolved:
    """Refuse one entrant whose program cannot run, whose bot does not load or say hello,
    does not play the rules or take its options, or does not start."""
    here = ("entrants", index)
    source = "command" if entrant.command is not None else "bot"
    if entrant.command is not None:
        found = command_problem(entrant.command)
        if found is not None:
            raise lines.error((*here, "command"), found)
    try:
        return _start(cfg, entrant, given or entrants.resolve(entrant.reference, registry))
    except CardError as exc:
        raise lines.error((*here, *exc.where), str(exc)) from None
    except StartError as exc:
        refused = str(exc)
    except EntrantError as exc:  # it does not load, or said no hello
        raise lines.error((*here, source), str(exc)) from None
    if entrant.options and _starts_plain(cfg, entrant, registry):
        raise _option_error(entrant, here, lines, refused)
    game = f"a {cfg.rules!r} game of {cfg.format.seats} seats"
    raise lines.error((*here, source), f"does not start for {game}: {refused}")


def _start(cfg: TournamentConfig, entrant: EntrantConfig, resolved: Resolved) -> Resolved:
    """Dry-run the entrant once as the tournament will host it."""
    names = [entrant.name, *(e.name for e in cfg.entrants if e is not entrant)]
    return dry_run(resolved, cfg.rules, cfg.options, cfg.format.seats, cfg.limits, names)


def _starts_plain(cfg: TournamentConfig, entrant: EntrantConfig, registry: Any) -> bool:
    """Whether the entrant starts without its bot options (so they are what it refuses)."""
    plain = replace(entrant.reference, options=())
    try:
        _start(cfg, entrant, entrants.resolve(plain, registry))
    except EntrantError:
        return False
    return True


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
