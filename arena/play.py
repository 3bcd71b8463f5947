"""`arena play`: one game in the terminal, narrated as it happens, with human seats prompted.

Glue between the plugin registry, the referee and the narrator; the rules and referee know
nothing of terminals.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from arena.bot import Limits
from arena.entrants import (
    EntrantError,
    Reference,
    Resolved,
    command_problem,
    introduced,
    problem,
    resolve,
)
from arena.hosts.inline import Host, InlineHost
from arena.kept import KeptHosts
from arena.limits import START_TIMEOUT
from arena.narrative import Narrator, result_lines
from arena.primer import primer
from arena.referee import Player, play_game
from arena.rules import RulesError, RuleSet, get_rules
from arena.rules.actions import Action
from arena.rules.base import Event, Observation

NO_LIMIT = 1e9


class PlayError(Exception):
    """A bad bot, rule set, option or player count for `arena play`."""


class OutputClosed(BaseException):
    """Whoever reads the game's lines went away (`arena play | head`). A BaseException, so
    the referee does not take it for a bug of its own: the game just stops."""


def guard_pipe(echo: Callable[[str], None]) -> Callable[[str], None]:
    """Turn a broken pipe under `echo` into OutputClosed."""
    def guarded(line: str) -> None:
        try:
            echo(line)
        except BrokenPipeError:
            raise OutputClosed() from None
    return guarded


class TerminalHost(InlineHost):
    """A human's seat: a person thinks as long as they like, whatever the bots' limit."""

    def act(self, observation: Observation, timeout: float) -> Action:
        """Ask the person, with no time limit and the bots' alarm held off: a Ctrl-C that
        landed inside an alarm tick would surface as a SystemError, not as the stop it is."""
        held = {signal.SIGALRM}
        signal.pthread_sigmask(signal.SIG_BLOCK, held)
        try:
            return super().act(observation, NO_LIMIT)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, held)


def make_players(refs: Sequence[str], rules_id: str, hosts: KeptHosts,
                 trust: bool = False, isolation: str | None = None,
                 start_timeout: float = START_TIMEOUT) -> list[Player]:
    """Resolve bot references as every command reads them (names, FILE.py, module:Class,
    `cmd:PROGRAM ARGS`, each with `?key=value` bot options), and 'human', into players
    hosted by the trust policy (`trust`: every Python bot inline), each with `start_timeout`
    seconds to start."""
    from arena.human import HumanBot

    players = []
    for seat, ref in enumerate(refs):
        if ref == "human":
            players.append(Player("human", TerminalHost(HumanBot), "terminal"))
            continue
        try:
            reference = Reference.parse(ref)
            reference = reference.trusted() if trust else replace(reference, isolation=isolation)
            reference = replace(reference, start_timeout=start_timeout)
            entrant = resolve(reference)
        except EntrantError as exc:
            raise PlayError(str(exc)) from None
        unrunnable = reference.command and command_problem(reference.command)
        if unrunnable:  # said as compare says it, before a process is started for nothing
            raise PlayError(f"bot {reference.ref!r}: {unrunnable}")
        host = hosts.host(seat, entrant, seat=seat)
        _check(entrant, host, rules_id)
        players.append(entrant.player(host))
    return players


def _check(entrant: Resolved, host: Host, rules_id: str) -> None:
    """Refuse a bot that does not play these rules or take its options, by its card: a bot
    in its own process says it at hello, from there (this process never loads it)."""
    try:
        if entrant.mode == "process":
            entrant = introduced(entrant, host)
    except EntrantError as exc:
        raise PlayError(str(exc)) from None
    found = problem(entrant, rules_id, who=entrant.reference.ref)
    if found is not None:
        raise PlayError(found.message)


def check_starts(players: Sequence[Player], rules_id: str, options: dict[str, Any],
                 limits: Limits, start_timeout: float = START_TIMEOUT) -> None:
    """Start each bot once as it will play, so a bot that refuses its options or these rules
    is a usage error, not a game it can only forfeit."""
    from arena.trial import start_problem, trial_context

    names = [p.name for p in players]
    for player in players:
        if isinstance(player.host, TerminalHost):
            continue
        context = trial_context(rules_id, options, len(players), limits, player.options, names)
        problem = start_problem(player.host, context, start_timeout)
        if problem is not None:
            raise PlayError(f"bot {player.name!r} does not start for a {rules_id!r} game of "
                            f"{len(players)} seats: {problem}")


def play_in_terminal(rules_id: str, refs: Sequence[str], seed: int, options: dict[str, Any],
                     time_limit: float | None, reveal: bool,
                     echo: Callable[[str], None], trust: bool = False,
                     isolation: str | None = None,
                     start_timeout: float = START_TIMEOUT) -> None:
    """Play and narrate one game; humans see their own private events only."""
    echo = guard_pipe(echo)
    try:
        ruleset = get_rules(rules_id)
        ruleset.check_players(len(refs))
        options = ruleset.check_options(options)
    except RulesError as exc:
        raise PlayError(str(exc)) from None
    limit = time_limit or 1.0
    hosts = KeptHosts()
    try:
        _play(ruleset, refs, seed, options, limit, reveal, echo, trust, hosts, isolation,
              start_timeout)
    finally:
        hosts.close()


def _play(ruleset: RuleSet, refs: Sequence[str], seed: int, options: dict[str, Any],
          limit: float, reveal: bool, echo: Callable[[str], None], trust: bool,
          hosts: KeptHosts, isolation: str | None = None,
          start_timeout: float = START_TIMEOUT) -> None:
    """Seat, start, play and narrate the game on these kept hosts."""
    players = make_players(refs, ruleset.id, hosts, trust, isolation, start_timeout)
    check_starts(players, ruleset.id, options, Limits(decision=limit), start_timeout)
    humans = [seat for seat, ref in enumerate(refs) if ref == "human"]
    viewer = humans[0] if len(humans) == 1 else (None if reveal and not humans else -1)
    narrator = Narrator(ruleset.description, [p.name for p in players], viewer)

    def show(event: Event) -> None:
        for line in narrator.feed(event):
            echo(line)

    echo(f"{ruleset.id}, seed {seed}: " + ", ".join(
        f"seat {s} {p.name}" for s, p in enumerate(players)))
    if humans:  # once, before a person's first decision: what is at stake
        for line in primer(ruleset, options):
            echo(line)
    record = play_game(ruleset, players, seed=seed, options=options,
                       limits=Limits(decision=limit), spectator=show)
    for line in narrator.flush():
        echo(line)
    echo("result:")
    names = [p.name for p in players]
    for line in result_lines(names, record.result.placements, record.result.scores,
                             ruleset.description):
        echo(line)
