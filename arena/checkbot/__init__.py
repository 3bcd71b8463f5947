"""`arena check-bot`: start one bot as a contest would, play a short series of games that put
it in every decision of each rule set it plays (and the rare positions: only a challenge
legal, a reroll of nothing, a turn with face-up cards, a claim after the deck was
reshuffled), and say in a checklist what passed and what failed, and why.

scenarios (the games and their scripts), positions (which position a decision is), stage
(the scripted opponents and the bot's watched seat), run (the games), checklist (the words).
The bot is named, hosted and checked by `arena.entrants`, as every command does; this
package prints nothing and parses no command line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from arena.checkbot.checklist import Checklist, Line, checklist, not_started
from arena.checkbot.run import play_checks
from arena.checkbot.scenarios import SCENARIOS
from arena.entrants import (
    EntrantError,
    Reference,
    Resolved,
    command_problem,
    introduced,
    problem,
    resolve,
)
from arena.limits import Limits
from arena.plugins import Registry

__all__ = ["SHUTDOWN_WAIT", "CheckError", "Checklist", "Line", "check_bot", "rules_to_check"]

SHUTDOWN_WAIT = 1.0
"""Seconds a bot process has to exit on its own once told `shutdown`."""


class CheckError(EntrantError):
    """A reference or rule set the check cannot start with (a usage error, not a failed check)."""


def check_bot(reference: Reference, rules: Sequence[str] | None = None,
              limits: Limits | None = None, registry: Registry | None = None) -> Checklist:
    """Check one bot: start it as a contest hosts it, play the check games of each rule set
    it plays (or of `rules`), and return the checklist. Raise CheckError (or EntrantError)
    for a reference that names no bot or a rule set it cannot be checked on."""
    limits = limits or Limits()
    command = reference.command
    if command is not None and (found := command_problem(command)) is not None:
        raise CheckError(f"bot {reference.ref!r}: {found}")
    entrant = resolve(reference, registry)
    host = entrant.host()
    try:
        if entrant.mode != "inline":
            try:
                entrant = introduced(entrant, host)
            except EntrantError as exc:
                return not_started(str(exc))
        chosen = rules_to_check(entrant, rules)
        evidence, replays = play_checks(entrant, host, chosen, limits)
    finally:
        ended = host.shutdown(SHUTDOWN_WAIT)
    result = checklist(chosen, evidence, replays, limits, entrant.mode == "inline",
                       ended, entrant.mode != "command")
    return _unchecked(result, entrant, rules)


def _unchecked(result: Checklist, entrant: Resolved, rules: Sequence[str] | None) -> Checklist:
    """Say which rule sets the bot plays that check-bot has no games for (a plugin's)."""
    plays = () if entrant.card is None or rules else entrant.card.rules or ()
    others = [r for r in plays if r not in SCENARIOS]
    if not others:
        return result
    note = Line(None, f"plays {', '.join(others)} too, which check-bot has no games for")
    return replace(result, lines=(*result.lines, note))


def rules_to_check(entrant: Resolved, rules: Sequence[str] | None) -> list[str]:
    """The rule sets to check: those asked for, else those the bot says it plays (all
    three when it does not say), of the ones check-bot has games for."""
    known = list(SCENARIOS)
    if rules:
        for rules_id in rules:
            if rules_id not in SCENARIOS:
                raise CheckError(f"check-bot has games for {', '.join(known)}, not "
                                 f"{rules_id!r}")
            found = problem(entrant, rules_id)
            if found is not None:
                raise CheckError(found.message)
        return list(dict.fromkeys(rules))
    card = entrant.card
    plays = known if card is None or card.rules is None else list(card.rules)
    chosen = [r for r in known if r in plays]
    if not chosen:
        raise CheckError(f"bot {entrant.reference.label!r} plays {', '.join(plays) or 'nothing'}"
                         f": check-bot has games for {', '.join(known)} only (use --rules)")
    return chosen
