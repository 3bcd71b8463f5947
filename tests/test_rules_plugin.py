"""A rule set from a plugin plays end to end: a dice variant registered under a new id by an
installed distribution's entry point, played inline, in its own process and as a command bot,
then narrated, replayed, verified and reported, all under its own id."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from needs import require
from plugin_support import installed_plugin

import arena
from arena import plugins
from arena.cli.main import cli
from arena.replay import read_replay
from arena.rules import RulesError
from arena.rules.playout import random_action

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "bots" / "examples" / "example_bot.py"
RULES_ID = "dice-short"

PLUGIN = '''
import arena
from arena.rules.cards import CardsRules
from arena.rules.dice import DiceRules
from arena.rules.playout import random_action

SHORT = DiceRules(cards=False, id="dice-short", defaults={"max_points": 2})
POOR = CardsRules(id="cards-poor", defaults={"chips": 3})


class Shorty(arena.Bot):
    """Plays the short dice game at random."""

    name = "shorty"
    rules = ("dice-short", "cards-poor")

    def act(self, observation):
        return random_action(observation.legal, self.rng)


@arena.hookimpl
def register_rules(register):
    register(SHORT)
    register(POOR)


@arena.hookimpl
def register_bots(register):
    register(Shorty)
'''

BOT_FILE = '''
import arena
from arena.rules.playout import random_action


class Student(arena.Bot):
    """A student's bot for the short dice game."""

    name = "student"
    rules = ("dice-short",)

    def act(self, observation):
        assert observation.rules == "dice-short"
        return random_action(observation.legal, self.rng)
'''


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The plugin on sys.path, with the registry built afresh from the entry points."""
    with installed_plugin(tmp_path_factory.mktemp("site"), "arena_test_rules_short", "short",
                          PLUGIN) as root:
        yield root


@pytest.fixture(scope="module")
def folder(installed: Path) -> Path:
    """One tournament of the variant: a bot inline, the same bot file in its own process,
    and the example command bot."""
    bot = installed / "student.py"
    bot.write_text(BOT_FILE)
    config = installed / "short.yaml"
    config.write_text(textwrap.dedent(f"""
        name: short
        rules: {RULES_ID}
        entrants:
          - bot: {bot}
            alias: inline-student
            mode: inline
          - bot: {bot}
          - command: ["{sys.executable}", "{EXAMPLE}"]
            alias: py-command
        format: {{type: round-robin, seats: 3, games: 2}}
        seed: 11
    """))
    out = installed / "out"
    result = CliRunner().invoke(cli, ["run", str(config), "--out", str(out), "--workers", "1",
                                      "-q"])
    assert result.exit_code == 0, result.output
    return out


def _games(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]


def _modes(folder: Path) -> set[tuple[str, str]]:
    return {(seat["name"], seat["mode"])
            for path in (folder / "replays").glob("*.json.gz")
            for seat in read_replay(path).header["entrants"]}


def test_the_plugins_rule_set_is_listed_with_its_own_default(installed: Path) -> None:
    result = CliRunner().invoke(cli, ["rules"])
    assert result.exit_code == 0, result.output
    block = result.output[result.output.index(f"{RULES_ID} (version 1)"):].splitlines()
    assert block[0] == f"{RULES_ID} (version 1): 2-6 players"
    assert block[3].split()[:2] == ["max_points", "2"]


def test_it_plays_inline(folder: Path) -> None:
    games = _games(folder)
    assert len(games) == 6
    assert ("inline-student", "inline") in _modes(folder)
    assert all(g["faults"] == [] for g in games)
    # max_points 2 is the variant's default: the loser of each game is out at 2 points
    assert all(max(g["scores"]) == 2 for g in games), games


def test_it_plays_in_a_bots_own_process(folder: Path) -> None:
    assert ("student", "process") in _modes(folder)
    assert all(g["faults"] == [] for g in _games(folder))


def test_it_plays_as_a_command_bot(folder: Path) -> None:
    assert ("py-command", "command") in _modes(folder)
    assert all(g["faults"] == [] for g in _games(folder))


def test_it_is_narrated_as_a_dice_game(installed: Path) -> None:
    bot = installed / "student.py"
    bot.write_text(BOT_FILE)
    result = CliRunner().invoke(cli, ["play", "--rules", RULES_ID, "--bots",
                                      f"shorty,{bot}", "--seed", "4", "--reveal",
                                      "--isolation", "none"])  # the sandbox shows no test site
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"{RULES_ID}, seed 4: seat 0 shorty, seat 1 {bot}"
    assert any(" looks" in line for line in lines), result.output
    assert any(" challenges seat " in line and ": the hand is [" in line for line in lines)
    assert not any("picks up the cards" in line or "rejects" in line for line in lines)
    assert lines[-2].endswith("2 points") or lines[-1].endswith("2 points")


def test_it_is_replayed(folder: Path) -> None:
    result = CliRunner().invoke(cli, ["replay", str(folder), "rr-000001"])
    assert result.exit_code == 0, result.output
    assert f": {RULES_ID}, seed " in result.output.splitlines()[0]
    assert " challenges seat " in result.output
    assert "rejects" not in result.output
    assert result.output.rstrip().endswith("points")


def test_it_is_verified(folder: Path) -> None:
    result = CliRunner().invoke(cli, ["replay", str(folder), "--verify"])
    assert result.exit_code == 0, result.output
    assert "verified" in result.output


def test_it_is_reported(folder: Path) -> None:
    result = CliRunner().invoke(cli, ["report", str(folder)])
    assert result.exit_code == 0, result.output
    page = (folder / "report.html").read_text()
    assert RULES_ID in page
    assert '"score_word": "penalty points"' in page or '"score_word":"penalty points"' in page


def _viewer_lines(folder: Path, game: str, tmp_path: Path) -> list[str]:
    """The viewer's story of a game at its last step, run by Node on a stand-in page that
    loads the report's scripts as a browser would (the pack, and viewer-rules.js)."""
    from test_replay_cli import VIEWER_HARNESS

    harness = VIEWER_HARNESS.replace(
        "head.appendChild = (script) => setTimeout(() => script.onload(), 0);",
        "head.appendChild = (script) => setTimeout(() => { const rules = process.argv[5];"
        " if (script.src.endsWith('viewer-rules.js') && fs.existsSync(rules))"
        " vm.runInContext(fs.readFileSync(rules, 'utf8'), context); script.onload(); }, 0);")
    assert harness != VIEWER_HARNESS
    script = tmp_path / "harness.js"
    script.write_text(harness)
    packed = tmp_path / "g1.b64"
    replay = folder / "replays" / f"{game}.json.gz"
    packed.write_text(base64.b64encode(replay.read_bytes()).decode())
    steps = len(read_replay(replay).lines())
    viewer = ROOT / "arena" / "report" / "static" / "viewer.js"
    shown = subprocess.run(["node", str(script), str(viewer), str(packed), str(steps),
                            str(folder / "viewer-rules.js")],
                           capture_output=True, text=True, check=True, timeout=60)
    return json.loads(shown.stdout)  # type: ignore[no-any-return]


def test_the_viewer_reads_the_rule_sets_description(folder: Path, tmp_path: Path) -> None:
    require(shutil.which("node"), "needs Node.js to run the viewer (apt-get install nodejs)")
    result = CliRunner().invoke(cli, ["report", str(folder)])
    assert result.exit_code == 0, result.output
    told = _viewer_lines(folder, "rr-000001", tmp_path)
    assert any(" challenges seat " in line and ": the hand is [" in line for line in told), told
    assert not any("rejects" in line or "picks up the cards" in line for line in told), told


def test_arena_play_game_plays_the_plugins_rule_set_by_its_id(installed: Path) -> None:
    # It failed with "unknown rule set 'dice-short'": the referee looked only at the
    # built-in rule sets, not at the registry the plugins fill.
    class Player(arena.Bot):
        name = "player"
        rules = (RULES_ID,)

        def act(self, observation: arena.Observation) -> arena.Action:
            return random_action(observation.legal, self.rng)

    record = arena.play_game(RULES_ID, [Player, Player], seed=4)
    assert (record.rules, record.faults) == (RULES_ID, ())
    assert max(record.result.scores) == 2  # the variant's own max_points
    with pytest.raises(RulesError, match=r"unknown rule set 'dice-long' \(known: cards, "
                                         r"cards-poor, dice, dice-cards, dice-short\)"):
        arena.play_game("dice-long", [Player, Player])


def test_every_layer_finds_the_plugins_rule_set_in_the_one_registry(installed: Path) -> None:
    # The referee, the rules' own lookup and the description every narrator reads looked
    # only at the built-in rule sets: 'unknown rule set' for a plugin's, unless the caller
    # had found it in the plugin registry first.
    from arena import referee
    from arena.rules import description_of, get_rules

    class Player(arena.Bot):
        name = "player"
        rules = (RULES_ID,)

        def act(self, observation: arena.Observation) -> arena.Action:
            return random_action(observation.legal, self.rng)

    assert get_rules(RULES_ID) is plugins.default_registry().rules[RULES_ID]
    assert description_of(RULES_ID).id == RULES_ID
    record = referee.play_game(RULES_ID, [Player, Player], seed=4)
    assert (record.rules, record.faults, max(record.result.scores)) == (RULES_ID, (), 2)
    with pytest.raises(RulesError, match=r"unknown rule set 'dice-long' \(known: cards, "
                                         r"cards-poor, dice, dice-cards, dice-short\)"):
        get_rules("dice-long")


def test_a_rule_set_that_does_not_describe_itself_is_refused() -> None:
    class Bare:
        id = "bare"

    with pytest.raises(plugins.PluginError, match=r"rule set 'bare' has no description"):
        plugins.Registry().register_rules(Bare(), "plugin x")  # type: ignore[arg-type]


def test_a_rule_set_id_no_plugin_registered_is_an_error_naming_the_known_ones(
    installed: Path,
) -> None:
    result = CliRunner().invoke(cli, ["play", "--rules", "dice-long", "--bots", "random,random"])
    assert (result.exit_code, result.output) == (2, (
        "arena: error: unknown rule set 'dice-long' "
        "(known: cards, cards-poor, dice, dice-cards, dice-short)\n"))


def test_a_central_hand_variant_is_narrated_as_the_cards_game(installed: Path) -> None:
    result = CliRunner().invoke(cli, ["play", "--rules", "cards-poor", "--bots",
                                      "shorty,shorty,shorty", "--seed", "2", "--reveal",
                                      "--isolation", "none"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "cards-poor, seed 2: seat 0 shorty, seat 1 shorty, seat 2 shorty"
    assert any(line.startswith("-- central hand 1: ") for line in lines)
    assert any(" rejects seat " in line and ": the central hand is [" in line
               for line in lines), result.output
    assert not any(" challenges " in line or " looks" in line for line in lines)
    assert lines[-1].endswith((" chips", " chip"))


def test_the_human_prompt_reads_the_description(installed: Path) -> None:
    result = CliRunner().invoke(cli, ["play", "--rules", "cards-poor", "--bots",
                                      "human,shorty,shorty", "--seed", "2",
                                      "--isolation", "none"], input="help\n")
    shown = result.output.splitlines()
    assert "  chips: seat 0: 3  seat 1: 3  seat 2: 3" in shown, result.output
    assert any(line.startswith("  your cards: ") for line in shown)
    assert not any("points" in line or "under the cup" in line for line in shown)
