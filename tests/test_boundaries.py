"""What crosses the bot boundary is immutable: a bot that writes to an event, an observation or
what they hold changes nothing in the game or its record."""

from __future__ import annotations

import ast
import contextlib
from pathlib import Path

import arena_bots.random_bot
import pytest
from arena_bots.random_bot import RandomBot

import arena
from arena.hosts.inline import InlineHost
from arena.referee import Player
from arena.rules import RULESETS


class Vandal(RandomBot):
    """Plays as `random` does, but first tries to rewrite everything it is shown."""

    name = "vandal"

    def notify(self, event: arena.Event) -> None:
        _deface(event)

    def act(self, observation: arena.Observation) -> arena.Action:
        for event in observation.history:
            _deface(event)
        return super().act(observation)


def _deface(event: arena.Event) -> None:
    """Write over every value of the event's data, then empty it (ignoring refusals)."""
    for key in list(event.data):
        with contextlib.suppress(TypeError, AttributeError):
            event.data[key] = "defaced"  # type: ignore[index]
    with contextlib.suppress(TypeError, AttributeError):
        event.data.clear()  # type: ignore[attr-defined]


def _events(record: arena.GameRecord) -> list[str]:
    return [f"{e!s} to={e.to}" for e in record.log if isinstance(e, arena.Event)]


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_a_bot_writing_to_events_changes_nothing_in_the_record(rules: str) -> None:
    clean = arena.play_game(rules, [RandomBot] * 3, seed=12)
    attacked = arena.play_game(rules, [Vandal, RandomBot, Vandal], seed=12)
    assert _events(attacked) == _events(clean)
    assert attacked.result == clean.result


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_what_an_observation_holds_cannot_be_written(rules: str) -> None:
    seen: list[arena.Observation] = []

    class Watcher(RandomBot):
        def act(self, observation: arena.Observation) -> arena.Action:
            seen.append(observation)
            return super().act(observation)

    arena.play_game(rules, [Watcher, RandomBot, RandomBot], seed=5)
    space = seen[-1].legal.space
    top = space.claims[-1]
    with pytest.raises(TypeError):
        space.index[top] = space.index[top]  # type: ignore[index]
    with pytest.raises(AttributeError):
        seen[-1].legal.min_index = 0  # type: ignore[misc]


def test_the_random_bot_is_written_with_the_public_api_only() -> None:
    """The example every bot writer reads first reaches nothing behind `arena`'s public names."""
    source = Path(arena_bots.random_bot.__file__).read_text(encoding="utf-8")
    tree = ast.parse(source)
    imported = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names]
    from_imports = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert imported == ["arena"] and from_imports == ["__future__"]
    used = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name) and node.value.id == "arena"}
    assert used <= set(arena.__all__)


def test_options_have_one_shape_wherever_a_bot_or_a_record_holds_them() -> None:
    """Rule options and bot options reach a bot, and the record, as read-only, hashable
    `arena.Options`, equal to the plain mapping they were given as."""
    given: list[arena.BotContext] = []

    class Keeper(RandomBot):
        options = {"care": 1}  # noqa: RUF012 - a bot's declared defaults

        def start(self, context: arena.BotContext) -> None:
            given.append(context)

    seats = [Player("keeper", InlineHost(Keeper), options=arena.Options.of({"care": 2})),
             RandomBot]
    record = arena.play_game("dice", seats, seed=1, options={"max_points": 2})
    context = given[0]
    for options in (context.options, context.bot_options, record.options):
        assert isinstance(options, arena.Options)
        assert hash(options) == hash(arena.Options.of(dict(options)))
        with pytest.raises(TypeError):
            options["max_points"] = 9  # type: ignore[index]
    assert context.bot_options == {"care": 2}
    assert context.options == record.options and record.options["max_points"] == 2
