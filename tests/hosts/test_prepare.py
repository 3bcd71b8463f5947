"""A bot class's prepare(): called once per process, before the class's first game there and
outside every decision's clock, inline and in the bot's own process alike; one that raises
is a crash fault of that game (in the bot's own words), and is asked again before the next
(in the bot's own process, a new process after its `error`).
And a file bot's own process loads only what a bot needs: no referee, no rules' engine, no
tournament, no plugin machinery, no command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from isolation_support import LIMITS

from arena import play_game
from arena.bot import Limits
from arena.entrants import Reference, resolve
from arena.hosts.pipe import ProcessHost
from arena.hosts.sandbox import exposed_for
from arena.referee import GameRecord, Player

SLOW = Limits(decision=0.2, wall_factor=2.0)
"""A decision limit below prepare()'s sleep (0.5 s: 2.5 limits, over the 0.4 s wall limit): a
prepare() on any clock would be late. Not longer: the tests sleep it six times."""
PREPARED = """\
import time

import arena


class Prepared(arena.Bot):
    name = "prepared"
    calls = 0

    @classmethod
    def prepare(cls):
        cls.calls += 1
        time.sleep(0.5)  # over the 0.4 s wall limit: on any decision's clock, it would be late
        if cls.calls == {fails}:
            raise RuntimeError("no table today")

    def start(self, context):
        if type(self).calls != {expected}:
            raise RuntimeError(f"prepared {{type(self).calls}} times before this game")

    def act(self, observation):
        return arena.random_action(observation.legal, self.rng)
"""


def _bot(tmp_path: Path, fails: int = 0, expected: int = 1) -> Path:
    path = tmp_path / "prepared_bot.py"
    path.write_text(PREPARED.format(fails=fails, expected=expected))
    return path


def _games(seat: Any, games: int = 3) -> list[GameRecord]:
    return [play_game("dice", [seat, "random"], seed=seed, limits=SLOW)
            for seed in range(games)]


def test_prepare_runs_once_in_a_bots_process_before_its_first_game_off_the_clock(
        tmp_path: Path) -> None:
    with ProcessHost(str(_bot(tmp_path)), LIMITS) as host:
        records = _games(Player("prepared", host))
    assert [record.faults for record in records] == [(), (), ()]


def test_prepare_runs_once_inline_before_the_first_game_off_the_clock(tmp_path: Path) -> None:
    from arena.plugins import bot_from_file

    factory = bot_from_file(_bot(tmp_path)).factory
    records = _games(factory)
    assert [record.faults for record in records] == [(), (), ()]


@pytest.mark.parametrize("mode", ["process", "inline"])
def test_a_prepare_that_raises_is_that_games_crash_and_is_asked_again(
        tmp_path: Path, mode: str) -> None:
    from arena.plugins import bot_from_file

    bot = _bot(tmp_path, fails=1, expected=2)  # the first prepare() raises, the second not
    if mode == "inline":
        records = _games(bot_from_file(bot).factory, games=2)
    else:
        with ProcessHost(str(bot), LIMITS) as host:
            records = _games(Player("prepared", host), games=2)
    for record in records[:1] if mode == "inline" else records:  # a new process: a new try
        [fault] = record.faults
        assert (fault.kind, fault.seat) == ("crash", 0)
        assert fault.message == "while preparing: RuntimeError: no table today"
        where = 'prepared_bot.py:15 in Prepared.prepare: raise RuntimeError("no table today")'
        assert fault.trace == (where,)
    if mode == "inline":  # the same process: asked again, and this time it is prepared
        assert records[1].faults == ()


LEAN = """\
import sys

import arena

HEAVY = ("arena.referee", "arena.rules.dice", "arena.rules.cards", "arena.rules.engine",
         "arena.tournament", "arena.odds", "arena_bots", "click", "yaml", "pluggy",
         "arena.hookspecs")


class Lean(arena.Bot):
    name = "lean"

    def start(self, context):
        loaded = [m for m in HEAVY if any(n == m or n.startswith(m + ".") for n in sys.modules)]
        if loaded:
            raise RuntimeError("the bot's process loaded " + ", ".join(loaded))

    def act(self, observation):
        return arena.random_action(observation.legal, self.rng)
"""


def test_a_file_bots_process_loads_no_referee_engine_tournament_plugins_or_cli(
        tmp_path: Path) -> None:
    bot = tmp_path / "lean_bot.py"
    bot.write_text(LEAN)
    with ProcessHost(str(bot), LIMITS) as host:
        record = play_game("dice", [Player("lean", host), "random"], seed=3)
    assert record.faults == ()


def test_a_built_in_bots_process_imports_its_one_module_without_the_plugin_registry(
        tmp_path: Path) -> None:
    """The referee resolved its name, so its process is given the built-in's `module:Class`
    (not the name, which built every installed plugin's registry there), whose package
    imports no other built-in's module (and the sandbox, which shows arena's packages to
    every bot, copies nothing more for it); it says hello by its name and plays."""
    entrant = resolve(Reference("random", mode="process"))
    assert entrant.loaded_by == "arena_bots.random_bot:RandomBot"
    assert exposed_for({"bot": entrant.loaded_by}) == []  # shown under /arena, not copied
    assert ProcessHost("random").bot == entrant.loaded_by  # a host given the name, the same
    assert ProcessHost("no-such-bot").bot == "no-such-bot"  # its process says it is unknown
    bot = tmp_path / "file_bot.py"
    bot.write_text(LEAN)
    assert resolve(Reference(str(bot), mode="process")).loaded_by == str(bot)
    code = ("import sys, arena_bots.random_bot; print(sorted(m for m in sys.modules if "
            "m.startswith(('arena_bots', 'importlib.metadata', 'arena.plugins'))))")
    imported = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True).stdout
    assert imported.split() == ["['arena_bots',", "'arena_bots.random_bot']"]
    host = entrant.host()
    try:
        record = play_game("dice", [Player("random", host), "honest"], seed=3)
        assert record.faults == ()
        assert host.card is not None and host.card.name == "random"
    finally:
        host.shutdown()


IMPOSTOR = """\
from arena_bots.honest import Honest


class Impostor(Honest):
    name = "honest"  # a built-in's name, its class, and its module's and class's own names


Impostor.__module__, Impostor.__qualname__ = "arena_bots.honest", "Honest"
"""


def test_a_participants_bot_calling_itself_a_built_in_is_started_from_its_own_file(
        tmp_path: Path) -> None:
    """Attack (4d610e9, ca68aec): a participant's file or folder whose bot takes a built-in's
    name, subclasses it and forges its module and class names is never handed the
    built-in's `module:Class` (the built-in would play, and be credited, in its place, and
    its process would be shown none of the participant's files): it starts from its file or
    folder, and a `module:Class` of arena's packages shows the sandbox nothing of the host."""
    bot = tmp_path / "honest.py"
    bot.write_text(IMPOSTOR)
    folder = tmp_path / "honest"
    folder.mkdir()
    (folder / "bot.py").write_text(IMPOSTOR)
    for ref, where in ((str(bot), str(bot)), (f"{bot}:Impostor", f"{bot}:Impostor"),
                       (str(folder), str(folder))):
        entrant = resolve(Reference(ref, mode="process"))
        assert entrant.spec is None or not entrant.spec.builtin
        assert entrant.loaded_by == ref
        assert ProcessHost(ref).bot == where
        assert exposed_for({"bot": ProcessHost(ref).bot}) == [where.partition(":")[0]]
    assert exposed_for({"bot": "arena_bots.honest:Honest"}) == []
    assert exposed_for({"bot": "arena.hosts.launch:main"}) == []
