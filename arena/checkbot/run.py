"""Play the check games of `arena check-bot` with one bot: each scenario of each rule set on
the bot's own host (kept across the games, as a contest's worker keeps it), then the first
game of each rule set again on a fresh host, to see the same seed give the same game.

It hosts the bot through `arena.entrants` and plays through the referee; it prints nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.checkbot.scenarios import SCENARIOS, Scenario
from arena.checkbot.stage import Director, Evidence, ScriptedHost, WatchedHost
from arena.entrants import Resolved
from arena.hosts.inline import Host
from arena.limits import Limits
from arena.referee import ActionEntry, FaultEntry, GameRecord, Player, play_game

__all__ = ["Replay", "play_checks"]


@dataclass(frozen=True, slots=True)
class Replay:
    """A game played twice from one seed: where the bot's answers first differ (None: never)."""

    scenario: Scenario
    decision: int | None = None
    first: str = ""
    second: str = ""


def play_checks(entrant: Resolved, host: Host, rules: Sequence[str],
                limits: Limits) -> tuple[Evidence, list[Replay]]:
    """Play every check game of these rule sets on `host`, then replay the first of each
    on a fresh host of the entrant; return what was seen and each replay."""
    evidence = Evidence()
    firsts: dict[str, GameRecord] = {}
    for rules_id in rules:
        for scenario in SCENARIOS[rules_id]:
            record = play_one(entrant, host, scenario, limits, evidence)
            firsts.setdefault(rules_id, record)
    replays = []
    for rules_id in rules:
        scenario = SCENARIOS[rules_id][0]
        again = entrant.host()
        try:
            record = play_one(entrant, again, scenario, limits, Evidence())
        finally:
            again.shutdown()
        replays.append(compared(scenario, firsts[rules_id], record))
    return evidence, replays


def play_one(entrant: Resolved, host: Host, scenario: Scenario, limits: Limits,
             evidence: Evidence) -> GameRecord:
    """One check game: the bot in its seat on `host`, scripted opponents in the others."""
    director = Director(scenario.script)
    watched = WatchedHost(host, director, evidence, scenario.rules, scenario.target,
                          scenario.options)
    players = [entrant.player(watched) if seat == scenario.seat
               else Player(f"scripted-{seat}", ScriptedHost(director))
               for seat in range(scenario.seats)]
    evidence.games += 1
    return play_game(scenario.rules, players, seed=scenario.seed,
                     options=dict(scenario.options), limits=limits)


def compared(scenario: Scenario, first: GameRecord, second: GameRecord) -> Replay:
    """Where the bot's answers in two plays of one game first differ."""
    ours, theirs = _moves(first, scenario.seat), _moves(second, scenario.seat)
    for index, (one, two) in enumerate(zip(ours, theirs, strict=False)):
        if one != two:
            return Replay(scenario, index + 1, one, two)
    if len(ours) != len(theirs):
        index = min(len(ours), len(theirs))
        end = "the end of its game"
        return Replay(scenario, index + 1, ours[index] if index < len(ours) else end,
                      theirs[index] if index < len(theirs) else end)
    return Replay(scenario)


def _moves(record: GameRecord, seat: int) -> list[str]:
    """The bot's answers in a game, in order, as text (a fault by its kind)."""
    moves = []
    for entry in record.log:
        if isinstance(entry, ActionEntry) and entry.seat == seat:
            moves.append(str(entry.action))
        elif isinstance(entry, FaultEntry) and entry.seat == seat:
            moves.append(f"a {entry.kind} fault")
    return moves
