"""A tournament format from a plugin plays end to end: an installed distribution registers a
king-of-the-hill format through the `register_formats` hook, with a key of its own, and
`arena validate`, `arena run`, `--resume` and the report take it like a built-in format."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from plugin_support import installed_plugin

from arena.cli.main import cli
from arena.plugins import PluginError, Registry
from arena.tournament.formats.registry import formats

PLUGIN = '''
import arena
from arena.seeds import derive_seed
from arena.tournament.formats.base import Format
from arena.tournament.formats.plan import Plan
from arena.tournament.formats.schedule import GameSpec


class HillPlan(Plan):
    """The winner of each game holds the hill; the next entrant challenges it."""

    def batch(self, results):
        holder, games = 0, []
        for number in range(1, self.cfg.format.extra["challenges"] + 1):
            challenger = (holder + number) % len(self.names)
            if challenger == holder:
                challenger = (challenger + 1) % len(self.names)
            seed = derive_seed(self.cfg.planned_seed, "hill", number)
            game = GameSpec(f"hill-{number:03d}", "hill", number, (holder, challenger), seed)
            if game.id not in results:
                return (game,)
            holder = game.seats[results[game.id].index(1)]
        return ()

    def stages(self, results, ranking=None):
        stage = self._flat_stage("hill", "hill", self._played(results), results, ranking)
        return {"format": "hill", "stages": [stage], "ranking": stage["ranking"]}

    def _played(self, results):
        played, games = {}, []
        while (batch := self.batch(played)) and batch[0].id in results:
            played[batch[0].id] = results[batch[0].id]
            games.append(batch[0])
        return games


class Hill(Format):
    type = "hill"
    keys = ("challenges",)

    def settings(self, checks, section, seats, entrants):
        if seats != 2:
            checks.doc.fail(("format", "seats"), "a hill is held by one: 2 seats")
        return {"challenges": checks.whole(("format", "challenges"),
                                           section.get("challenges", 3), 1)}

    def plan(self, cfg):
        return HillPlan(cfg)


@arena.hookimpl
def register_formats(register):
    register(Hill())
'''

CONFIG = """\
name: hill
rules: dice
entrants: [honest, statistician, random, bluffer]
format: {type: hill, seats: 2, challenges: 5}
seed: 3
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The plugin on sys.path, with the registry built afresh from the entry points."""
    with installed_plugin(tmp_path_factory.mktemp("site"), "arena_test_format_hill", "hill",
                          PLUGIN) as root:
        yield root


def _arena(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def _games(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]


def test_validate_counts_the_plugins_games(installed: Path) -> None:
    config = installed / "hill.yaml"
    config.write_text(CONFIG)
    code, output = _arena("validate", config)
    assert code == 0, output
    assert output.startswith("ok: 4 entrants, 5 games\n")


def test_its_own_key_is_checked_by_it_at_its_line(installed: Path) -> None:
    config = installed / "bad.yaml"
    config.write_text(CONFIG.replace("challenges: 5", "challenges: 0"))
    code, output = _arena("validate", config)
    assert code == 2 and "bad.yaml:4: format.challenges: " in output, output
    config.write_text(CONFIG.replace("challenges: 5", "cap: 5"))
    code, output = _arena("validate", config)
    assert code == 2 and "'cap' applies only to round-robin, not hill" in output, output


def test_it_plays_each_game_after_the_one_it_depends_on(installed: Path) -> None:
    config = installed / "hill.yaml"
    config.write_text(CONFIG)
    out = installed / "out"
    code, output = _arena("run", config, "--out", out, "--workers", "2", "-q")
    assert code == 0, output
    games = _games(out)
    assert [g["id"] for g in games] == [f"hill-{n:03d}" for n in range(1, 6)]
    for before, after in itertools.pairwise(games):
        winner = before["entrants"][before["placements"].index(1)]
        assert winner in after["entrants"]  # the hill's holder plays the next challenge
    saved = yaml.safe_load((out / "config.yaml").read_text())
    assert saved["format"] == {"type": "hill", "seats": 2, "games": 1, "challenges": 5}
    stages = json.loads((out / "stages.json").read_text())
    assert stages["format"] == "hill" and stages["stages"][0]["complete"] is True
    assert (out / "report.html").exists()


def test_a_cut_run_resumes_to_the_same_games(installed: Path) -> None:
    config = installed / "hill.yaml"
    config.write_text(CONFIG)
    whole, cut = installed / "whole", installed / "cut"
    assert _arena("run", config, "--out", whole, "--workers", "1", "-q")[0] == 0
    assert _arena("run", config, "--out", cut, "--workers", "1", "-q")[0] == 0
    lines = (cut / "games.jsonl").read_text().splitlines(keepends=True)
    (cut / "games.jsonl").write_text("".join(lines[:2]))
    code, output = _arena("run", config, "--out", cut, "--workers", "1", "-q", "--resume")
    assert code == 0, output
    assert (cut / "games.jsonl").read_bytes() == (whole / "games.jsonl").read_bytes()
    assert (cut / "stages.json").read_bytes() == (whole / "stages.json").read_bytes()


def test_a_plugin_cannot_take_a_built_in_formats_type() -> None:
    registry = Registry()
    registry.register_format(type("Fake", (), {"type": "swiss", "plan": len})(), "evil")
    with pytest.raises(PluginError, match="'swiss' is arena's own"):
        formats(registry)


def test_what_is_no_format_is_refused_at_registration() -> None:
    with pytest.raises(PluginError, match="is not a tournament format"):
        Registry().register_format(object(), "careless")
    registry = Registry()
    registry.register_format(type("Hill", (), {"type": "hill", "plan": len})(), "one")
    with pytest.raises(PluginError, match="duplicate format 'hill': registered again by two"):
        registry.register_format(type("Hill", (), {"type": "hill", "plan": len})(), "two")
    with pytest.raises(PluginError, match=r"'hill' is not an arena\.tournament\.formats"):
        formats(registry)
