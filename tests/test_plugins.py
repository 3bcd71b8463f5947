"""Bot discovery: entry points of installed distributions, files, module:Class, duplicates."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from arena_bots.random_bot import RandomBot

from arena.plugins import (
    PluginError,
    Registry,
    bot_from_file,
    bot_from_module,
    build_registry,
    make_plugin_manager,
)

BOT_SOURCE = '''
import arena
from arena.rules.playout import random_action


class {cls}(arena.Bot):
    """{doc}"""

    name = "{name}"
    rules = ("dice",)

    def act(self, observation):
        return random_action(observation.legal, self.rng)
'''


def _write_distribution(root: Path, package: str, bot_name: str, version: str) -> None:
    """A real installed distribution: a package plus its .dist-info with entry_points.txt."""
    pkg = root / package
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        BOT_SOURCE.format(cls="Plugged", doc="A bot from a plugin.", name=bot_name)
        + "\n\n@arena.hookimpl\ndef register_bots(register):\n    register(Plugged)\n"
    )
    info = root / f"{package}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[arena]\n{package} = {package}\n")
    (info / "RECORD").write_text("")


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("arena_test_plugin")]:
        del sys.modules[name]


def test_builtin_bots_come_through_the_projects_own_entry_point() -> None:
    registry = build_registry()
    spec = registry.bots["random"]
    assert spec.origin.startswith("arena ")
    assert spec.builtin
    assert spec.factory is RandomBot


def test_a_bot_from_an_installed_distributions_entry_point(on_path: Path) -> None:
    _write_distribution(on_path, "arena_test_plugin_a", "plugged", "1.2.3")
    registry = build_registry(make_plugin_manager())
    spec = registry.bots["plugged"]
    assert spec.origin == "arena_test_plugin_a 1.2.3"
    assert spec.version == "1.2.3"
    assert spec.rules == ("dice",)
    assert spec.description == "A bot from a plugin."
    assert not spec.builtin
    assert registry.names() == sorted(registry.names())


def test_a_duplicate_name_is_an_error_naming_both_origins(on_path: Path) -> None:
    _write_distribution(on_path, "arena_test_plugin_b", "random", "0.1")
    with pytest.raises(PluginError) as caught:
        build_registry(make_plugin_manager())
    message = str(caught.value)
    assert "duplicate bot name 'random'" in message
    assert message.startswith("duplicate bot name 'random': registered by arena ")
    assert message.endswith(" and by arena_test_plugin_b 0.1")


def test_plugins_can_be_blocked_by_environment(on_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    _write_distribution(on_path, "arena_test_plugin_c", "random", "0.1")
    monkeypatch.setenv("ARENA_DISABLE_PLUGINS", "arena_test_plugin_c")
    assert "random" in build_registry(make_plugin_manager()).bots


def test_a_bot_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "my_bot.py"
    path.write_text(BOT_SOURCE.format(cls="Mine", doc="Mine.", name="mine"))
    spec = bot_from_file(path)
    assert (spec.name, spec.origin) == ("mine", f"file {path}")
    assert Registry().resolve(str(path)).factory.__name__ == "Mine"


def test_a_file_with_two_bots_needs_a_class_name(tmp_path: Path) -> None:
    path = tmp_path / "two.py"
    path.write_text(BOT_SOURCE.format(cls="One", doc="1", name="one")
                    + BOT_SOURCE.format(cls="Two", doc="2", name="two").split("\n\n\n")[1])
    with pytest.raises(PluginError, match=r"expected one arena\.Bot subclass, found One, Two"):
        bot_from_file(path)
    assert Registry().resolve(f"{path}:Two").name == "two"


def test_a_bot_from_module_and_class(on_path: Path) -> None:
    (on_path / "arena_test_plugin_mod.py").write_text(
        BOT_SOURCE.format(cls="ModBot", doc="m", name="modbot"))
    spec = bot_from_module("arena_test_plugin_mod:ModBot")
    assert spec.name == "modbot"
    assert spec.origin == "module arena_test_plugin_mod:ModBot"


@pytest.mark.parametrize(("ref", "message"), [
    ("statisitcian-x", "unknown bot 'statisitcian-x'"),
    ("nope.py", f"bot file 'nope.py' not found: looked at {Path.cwd()}/nope.py"),
    ("no_such_module_xyz:Bot", "cannot import module 'no_such_module_xyz'"),
    ("arena_bots.random_bot:Missing", "module arena_bots.random_bot:Missing: no class 'Missing'"),
])
def test_unresolvable_references_say_why(ref: str, message: str) -> None:
    with pytest.raises(PluginError, match=message.replace(".", r"\.")):
        build_registry().resolve(ref)


def test_a_near_miss_is_suggested() -> None:
    registry = Registry()
    registry.register(RandomBot, "test")
    with pytest.raises(PluginError, match=r"unknown bot 'randon' \(did you mean 'random'\?\)"):
        registry.resolve("randon")


def test_a_broken_bot_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text(textwrap.dedent("""
        import arena
        raise RuntimeError("broken on import")
    """))
    with pytest.raises(PluginError, match=r"broken\.py: RuntimeError: broken on import"):
        bot_from_file(path)
