"""A seat a person plays in the browser against one of arena's own bots, a move a request.

Nothing of a game in progress is kept but its seed and the person's moves: each request plays
the game again through arena's own referee (`arena.referee.play_game`), the stored moves
answering for the person's seat, up to the person's next decision, where it stops. The game is
the same every time: the dice come from the seed and each bot's randomness from its own
generator, which the referee seeds from the game's seed and the seat. A new move is read as
the terminal's prompt reads it (`arena.human.take`), so an illegal one gets the same line.

Only arena's built-in bots sit here, in the web process: a participant's bot is code nobody
vetted and runs only in the sandbox, in the season process, never in a web request. This
module knows nothing of Django.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from arena.bot import Bot, BotContext, Limits
from arena.hosts.codec import action_from_json, action_to_json
from arena.hosts.inline import InlineHost
from arena.human import take
from arena.narrative import Narrator, result_lines
from arena.plugins import BotSpec, default_registry
from arena.referee import GameRecord, Player, play_game
from arena.replay import encode_game
from arena.rules import get_rules
from arena.rules.actions import Action
from arena.rules.base import Event, Observation
from arena.trial import start_problem, trial_context

__all__ = ["LIMITS", "PERSON", "Position", "ReplayError", "Table", "opponents", "play",
           "replay_bytes"]

PERSON = "you"
"""The person's seat's name in the narration and the replay."""
LIMITS = Limits(decision=1e9)
"""No time limit for anyone: a bot timed out on a loaded machine would make the same seed and
moves a different game, and a person thinks as long as they like (as `arena play` allows)."""
FEWEST = 2
"""Seats at a browser game: this many, or the fewest the rule set is played by."""


class ReplayError(Exception):
    """A stored move that the game no longer takes (the contest's rules or options changed)."""


@dataclass(frozen=True, slots=True)
class Table:
    """What a browser game is: its rule set and options, the bot, and the seed. The person
    plays the bot at a table of two, or of the fewest the rules allow, the bot in every other
    seat (`cards` is for 3 to 6 players)."""

    rules: str
    options: Mapping[str, Any]
    opponent: str
    seed: int

    @property
    def seats(self) -> int:
        return max(FEWEST, get_rules(self.rules).description.min_players)

    @property
    def seat(self) -> int:
        """The person's seat, drawn with the seed (so who throws first varies)."""
        return self.seed % self.seats

    @property
    def names(self) -> tuple[str, ...]:
        """The seats' names in seat order."""
        return tuple(PERSON if seat == self.seat else self.opponent
                     for seat in range(self.seats))


@dataclass(frozen=True, slots=True)
class Position:
    """Where the game stands for the person: what their seat saw, their decision now (None
    once the game is over, when `record` is the whole game), and the moves, the one just
    taken included; `refused` is the prompt's answer to a move it did not take."""

    table: Table
    moves: tuple[dict[str, Any], ...]
    lines: tuple[str, ...]
    observation: Observation | None
    record: GameRecord | None = None
    refused: str | None = None
    result: tuple[str, ...] = field(default=())

    @property
    def over(self) -> bool:
        return self.record is not None


class _Stop(BaseException):
    """Raised at the person's decision when no move is left to play: the game stops there. A
    BaseException, so that no host takes it for the seat's fault (as `arena.human.Quit`)."""

    def __init__(self, observation: Observation, refused: str | None = None) -> None:
        super().__init__("the person's decision")
        self.observation, self.refused = observation, refused


class _Stale(BaseException):
    """A stored move the game does not take now: the game cannot be played again."""


class _Person(Bot):
    """The person's seat: the stored moves in order, then the new one, read as typed."""

    name = PERSON

    def __init__(self, context: BotContext, moves: Sequence[Mapping[str, Any]],
                 text: str | None, taken: list[dict[str, Any]]) -> None:
        super().__init__(context)
        self.moves, self.text, self.taken = moves, text, taken
        self.sof = bool(context.options.get("straight_over_full", False))

    def act(self, observation: Observation) -> Action:
        """Answer with the next stored move; at the first decision past them, the new one."""
        done = len(self.taken)
        if done < len(self.moves):
            return self._stored(observation, self.moves[done])
        if self.text is None:
            raise _Stop(observation)
        answer, self.text = take(self.text, observation, self.sof), None
        if isinstance(answer, str):
            raise _Stop(observation, answer)
        self.taken.append(action_to_json(answer))
        return answer

    def _stored(self, observation: Observation, move: Mapping[str, Any]) -> Action:
        """A stored move, checked against the decision it answers."""
        try:
            action = action_from_json(move, self.sof)
        except Exception as exc:  # noqa: BLE001 - any unreadable move: the game is stale
            raise _Stale(f"move {len(self.taken) + 1} cannot be read: {exc}") from None
        problem = observation.legal.problem(action)
        if problem is not None:
            raise _Stale(f"move {len(self.taken) + 1} is not legal now: {problem}")
        self.taken.append(dict(move))
        return action


def play(table: Table, moves: Sequence[Mapping[str, Any]], text: str | None = None) -> Position:
    """Play the game again from its seed and the person's moves, then the move `text` (as
    typed at the terminal's prompt, if any), up to the person's next decision or the end."""
    ruleset = get_rules(table.rules)
    narrator = Narrator(ruleset.description, table.names, viewer=table.seat)
    lines: list[str] = []
    taken: list[dict[str, Any]] = []

    def seen(event: Event) -> None:
        lines.extend(narrator.feed(event))

    try:
        record = play_game(ruleset, _players(table, moves, text, taken), table.seed,
                           table.options, LIMITS, spectator=seen)
    except _Stop as stop:
        return Position(table, tuple(taken), tuple(lines + narrator.flush()), stop.observation,
                        refused=stop.refused)
    except _Stale as stale:
        raise ReplayError(str(stale)) from None
    if len(taken) < len(moves):
        raise ReplayError(f"the game ended after {len(taken)} of {len(moves)} moves")
    standings = result_lines(table.names, record.result.placements, record.result.scores,
                             ruleset.description)
    return Position(table, tuple(taken), tuple(lines + narrator.flush()), None, record,
                    refused=None if text is None or len(taken) > len(moves)
                    else "  the game is over", result=tuple(standings))


def _players(table: Table, moves: Sequence[Mapping[str, Any]], text: str | None,
             taken: list[dict[str, Any]]) -> list[Player]:
    """The person's seat and the bot's, in seat order."""
    def person(context: BotContext) -> Bot:
        return _Person(context, moves, text, taken)

    spec = _spec(table.opponent)
    return [Player(PERSON, InlineHost(person), "a person in the browser") if seat == table.seat
            else Player(spec.name, InlineHost(spec.factory), spec.origin, spec.version)
            for seat in range(table.seats)]


def _spec(name: str) -> BotSpec:
    """A built-in bot by name; anything else never runs here."""
    spec = default_registry().bots.get(name)
    if spec is None or not spec.builtin:
        raise ReplayError(f"{name!r} is not one of arena's built-in bots")
    return spec


@cache
def opponents(rules: str, options: tuple[tuple[str, Any], ...]) -> tuple[str, ...]:
    """The bots a person may play under these rules and options: arena's own built-in bots
    (arena's code, run in this process) that play the rule set and start with the options."""
    found = []
    for spec in default_registry().specs():
        if not spec.builtin or rules not in spec.rules:
            continue
        table = Table(rules, dict(options), spec.name, 0)
        context = trial_context(rules, dict(options), table.seats, LIMITS, {}, table.names)
        if start_problem(InlineHost(spec.factory), context) is None:
            found.append(spec.name)
    return tuple(found)


def replay_bytes(position: Position, game_id: str, tournament: str) -> bytes:
    """The finished game's replay file (every die shown), as the viewer reads it."""
    if position.record is None:
        raise ValueError("the game is not over")
    seats = [{"name": player.name, "bot": player.name if player.name != PERSON else None,
              "origin": player.origin, "version": player.version, "mode": player.host.mode}
             for player in position.record.players]
    about = {"id": game_id, "stage": "play", "table": 0, "tournament": tournament}
    return encode_game(position.record, about, seats)

