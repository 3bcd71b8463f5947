"""Scripted games for the rules tests: fixed dice and decks, actions written as text.

Test support only: it drives the engines through their public interface and never reaches
into an engine's private helpers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arena import hands
from arena.rules import CHANCE, RuleSet
from arena.rules.actions import Action, Chance, parse_action
from arena.rules.base import Event

Move = Action | Chance | str


def roll(text: str) -> Chance:
    """Dice faces written as text, e.g. roll('9 9 T J A'), as a chance outcome."""
    return Chance(tuple(hands.rank_of(face) for face in text.split()))


def cards(text: str) -> tuple[int, ...]:
    """Card numbers of cards written as text, e.g. cards('Ah Kd')."""
    return tuple(hands.card_id(card) for card in text.split())


def deck(*parts: str) -> Chance:
    """A full 52-card order: the named cards first, in the order given, then the rest ascending."""
    top = cards(" ".join(parts))
    assert len(set(top)) == len(top), f"a card is named twice in {parts}"
    rest = tuple(c for c in range(52) if c not in set(top))
    return Chance(top + rest)


def move_of(state: Any, move: Move) -> Action | Chance:
    """Turn a scripted move into an action: text is read with the game's category order."""
    if isinstance(move, str):
        return parse_action(move, bool(state.opts["straight_over_full"]))
    return move


def play(rules: RuleSet, state: Any, *moves: Move) -> Any:
    """Apply moves in order, checking that a Chance arrives exactly when chance is due."""
    for move in moves:
        action = move_of(state, move)
        to_act = rules.to_act(state)
        assert (to_act == CHANCE) == isinstance(action, Chance), f"{action} at to_act={to_act}"
        state = rules.apply(state, action)
    return state


def kinds(events: Iterable[Event]) -> list[str]:
    """The kinds of some events, in order."""
    return [event.kind for event in events]


def find(events: Iterable[Event], kind: str) -> Event:
    """The one event of a kind among some events."""
    found = [event for event in events if event.kind == kind]
    assert len(found) == 1, f"expected one {kind!r} event, got {found}"
    return found[0]


def public(events: Iterable[Event]) -> list[Event]:
    """The events every seat sees."""
    return [event for event in events if event.to is None]
