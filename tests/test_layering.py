"""The arrows of the architecture point one way (README, "How it is built"): the rules import
nothing above them, the referee reads no YAML, plugins or config (nor do the hosts it plays
through read YAML or config; the launcher loads plugins in the bot's own process), the
tournament knows no rule of the game, and the runner never imports the report.

Imports are read with `ast` from the source files, so an import inside a function counts as
much as one at the top. A layer is a list of module names, each covering its submodules; when
modules move into subpackages, only the lists in LAYERS change, never the rules below them.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "arena"

LAYERS: dict[str, tuple[str, ...]] = {
    "rules": ("arena.rules", "arena.hands"),
    "odds": ("arena.odds",),
    "values": ("arena.options", "arena.botcard", "arena.botfile"),
    "referee": ("arena.referee",),
    "hosts": ("arena.hosts",),
    "plugins": ("arena.plugins", "arena.hookspecs"),
    "config": ("arena.tournament.config",),
    "tournament": ("arena.tournament",),
    "report": ("arena.report",),
    "checkbot": ("arena.checkbot",),
    "cli": ("arena.cli",),
}
"""Which modules make up each layer; a name covers the module and everything under it.
`values` are plain immutable values every layer may hold (a read-only options mapping)."""

RULES_FACE = "arena.rules"
"""The rule sets' public face: the one rules module the tournament may import."""
RULES_FACE_NAMES = frozenset({"RuleSet", "OptionError", "RulesError", "RULESETS", "get_rules"})
"""What the tournament may take from it: the protocol, its errors and the table of ids."""
BUNDLED_BOTS = "arena_bots"
"""The built-in bots: a plugin of arena's, which arena's own layers never reach into."""
YAML_AND_PLUGINS = ("yaml", "pluggy")
"""Third-party packages that mean reading configs or discovering plugins."""


def module_name(path: Path) -> str:
    """'arena/rules/dice.py' -> 'arena.rules.dice'; a package's __init__ is the package."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def covers(prefixes: tuple[str, ...], name: str) -> bool:
    """Whether a module name is one of the prefixes or inside one of them."""
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def members(layer: str) -> list[str]:
    """The modules of a layer that exist today (a stale name in LAYERS fails below)."""
    return [name for name in MODULES if covers(LAYERS[layer], name)]


def imports(module: str) -> Iterator[tuple[str, frozenset[str]]]:
    """Every module an arena module imports, anywhere in it, with the names taken from it."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return imports_in(path.read_text(encoding="utf-8"), package)


def imports_in(source: str, package: str) -> Iterator[tuple[str, frozenset[str]]]:
    """The imports of a source file in `package`, at any depth; `from arena import hands`
    is an import of arena.hands, `from arena import __version__` one of arena."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, frozenset()
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            for alias in node.names:
                whole = f"{base}.{alias.name}"
                yield (whole, frozenset()) if whole in MODULES else (base, frozenset({alias.name}))


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    base = ".".join(parts[: len(parts) - node.level + 1])
    return f"{base}.{node.module}" if node.module else base


def is_standard(name: str) -> bool:
    return name.split(".")[0] in sys.stdlib_module_names


def violations(layer: str, allowed: object) -> list[str]:
    """'module imports name' for each import of the layer's modules that `allowed` refuses."""
    found = []
    for module in members(layer):
        for name, taken in imports(module):
            if not allowed(name, taken):  # type: ignore[operator]
                shown = f"{name} ({', '.join(sorted(taken))})" if taken else name
                found.append(f"{module} imports {shown}")
    return sorted(set(found))


def test_every_name_in_the_table_is_a_module_of_arena() -> None:
    stale = [name for names in LAYERS.values() for name in names if name not in MODULES]
    assert stale == [], "LAYERS names modules that do not exist (moved? rename them here)"
    assert RULES_FACE in MODULES


def test_the_rules_import_only_the_standard_library_and_each_other() -> None:
    def allowed(name: str, taken: frozenset[str]) -> bool:
        return is_standard(name) or covers(LAYERS["rules"] + LAYERS["values"], name)

    assert violations("rules", allowed) == []


def test_the_odds_import_only_the_standard_library_the_rules_and_each_other() -> None:
    """The claim odds (tables, a seat's memory) are pure: the bots and the report use them."""
    def allowed(name: str, taken: frozenset[str]) -> bool:
        return is_standard(name) or covers(
            LAYERS["odds"] + LAYERS["rules"] + LAYERS["values"], name)

    assert violations("odds", allowed) == []


@pytest.mark.parametrize("layer", ["rules", "odds", "referee", "hosts", "tournament", "report"])
def test_no_layer_below_the_command_line_imports_the_bundled_bots(layer: str) -> None:
    """The report tells a claim's odds from arena.odds, not from the statistician's own code."""
    def allowed(name: str, taken: frozenset[str]) -> bool:
        return not covers((BUNDLED_BOTS,), name)

    assert violations(layer, allowed) == []


@pytest.mark.parametrize("layer", ["referee", "hosts"])
def test_the_referee_and_its_hosts_read_no_yaml_and_no_config(layer: str) -> None:
    def allowed(name: str, taken: frozenset[str]) -> bool:
        above = LAYERS["config"] + LAYERS["tournament"] + LAYERS["report"] + LAYERS["cli"]
        return not covers((*above, "yaml"), name)

    assert violations(layer, allowed) == []


def test_the_referee_reaches_no_plugin_registry() -> None:
    def allowed(name: str, taken: frozenset[str]) -> bool:
        return not covers(LAYERS["plugins"] + YAML_AND_PLUGINS, name)

    assert violations("referee", allowed) == []


def test_the_tournament_knows_no_rule_of_the_game() -> None:
    def allowed(name: str, taken: frozenset[str]) -> bool:
        if name == RULES_FACE:
            return taken <= RULES_FACE_NAMES
        return not covers(LAYERS["rules"], name)

    assert violations("tournament", allowed) == []


def test_the_runner_does_not_import_the_report() -> None:
    def allowed(name: str, taken: frozenset[str]) -> bool:
        return not covers(LAYERS["report"] + LAYERS["cli"], name)

    assert violations("tournament", allowed) == []


@pytest.mark.parametrize("layer", ["rules", "referee", "hosts", "tournament", "report"])
def test_only_the_command_line_reaches_check_bot(layer: str) -> None:
    """`arena check-bot` plays through the referee and hosts; nothing it uses knows of it."""
    def allowed(name: str, taken: frozenset[str]) -> bool:
        return not covers(LAYERS["checkbot"], name)

    assert violations(layer, allowed) == []


def test_an_import_is_seen_wherever_and_however_it_is_written() -> None:
    """The reader finds imports in functions and blocks, and resolves every form."""
    source = (
        "import json\n"
        "from arena import hands, __version__\n"
        "from .base import Event\n"
        "def late():\n"
        "    from arena.report.html import build_report\n"
        "    if True:\n"
        "        import yaml\n"
    )
    assert sorted(imports_in(source, "arena.rules")) == [
        ("arena", frozenset({"__version__"})),
        ("arena.hands", frozenset()),
        ("arena.report.html", frozenset({"build_report"})),
        ("arena.rules.base", frozenset({"Event"})),
        ("json", frozenset()),
        ("yaml", frozenset()),
    ]


ACYCLIC = ("arena.tournament", "arena.cli.run", "arena.cli.ladder")
"""Where no two modules import each other (issue 33: `arena run` and its ladder had)."""


def test_no_two_modules_of_the_tournament_or_arena_run_import_each_other() -> None:
    edges = {m: {name for name, _ in imports(m) if name in MODULES and name != m}
             for m in MODULES}
    pairs = sorted({tuple(sorted((a, b))) for a in edges for b in edges[a]
                    if a in edges[b] and (covers(ACYCLIC, a) or covers(ACYCLIC, b))})
    assert pairs == []


def test_no_folder_holds_a_family_of_modules_named_with_one_prefix() -> None:
    """Three or more modules named `x`, `x_a`, `x_b` in one folder are a concept that wants
    its own package (issue 33): `x/` with `a` and `b` in it."""
    families = {}
    for folder in sorted({path.parent for path in PACKAGE.rglob("*.py")}):
        stems = [p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")]
        for prefix in {stem.split("_")[0] for stem in stems}:
            family = sorted(s for s in stems if s == prefix or s.startswith(prefix + "_"))
            if len(family) >= 3:
                families[f"{folder.relative_to(ROOT).as_posix()}/{prefix}"] = family
    assert families == {}


ECOSYSTEM = ("arena.openspiel", "arena.pettingzoo")
"""The optional bridges to OpenSpiel and PettingZoo: installed as extras, imported by no one."""
ECOSYSTEM_PACKAGES = ("pyspiel", "open_spiel", "pettingzoo", "gymnasium")
BASELINE = "arena.bench"
"""`arena bench` times OpenSpiel's own liars_dice as a baseline, when it is installed."""


def test_the_core_never_imports_openspiel_or_pettingzoo() -> None:
    """`import arena.openspiel` registers the games; nothing else of arena reaches them."""
    found = []
    for module in MODULES:
        if covers(ECOSYSTEM, module):
            continue
        for name, _ in imports(module):
            if covers(ECOSYSTEM, name) or (
                    covers(ECOSYSTEM_PACKAGES, name) and module != BASELINE):
                found.append(f"{module} imports {name}")
    assert found == []
