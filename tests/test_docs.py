"""The docs say what the code does: every example config validates, through `arena validate`,
and the events table of docs/writing-a-bot.md lists the events the rules emit (kinds, rule
sets, who sees them, data fields), so the next drift fails here instead of a user's bot."""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from stumbling import stumbler

import arena
from arena.cli.main import cli
from arena.rules import RULESETS
from arena.rules.playout import random_action
from arena.tournament.run import results

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BOT_PAGE = ROOT / "docs" / "writing-a-bot.md"
PLAYERS = {"dice": (2, 3, 6), "dice-cards": (2, 4, 6), "cards": (3, 4, 6)}


def _example_configs() -> list[tuple[str, str]]:
    """Every ```yaml block of README.md and docs/ that is a whole tournament config."""
    found = []
    for page in PAGES:
        blocks = re.findall(r"^```yaml\n(.*?)^```", page.read_text(encoding="utf-8"),
                            re.DOTALL | re.MULTILINE)  # fmt: skip
        for number, block in enumerate(blocks):
            data = yaml.safe_load(block)
            if isinstance(data, dict) and {"name", "rules", "entrants"} <= data.keys():
                found.append((f"{page.name} block {number}", block))
    return found


EXAMPLES = _example_configs()


def test_the_docs_have_example_configs() -> None:
    assert {name.split()[0] for name, _ in EXAMPLES} >= {"config.md"}
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize(("where", "text"), EXAMPLES, ids=[name for name, _ in EXAMPLES])
def test_every_example_config_validates(
    where: str, text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As a reader would try it: in a folder holding the repository's bots/ and the first bot
    # of docs/writing-a-bot.md saved as my_bot.py, the two files the examples name.
    (tmp_path / "bots").symlink_to(ROOT / "bots")
    first_bot = re.search(r"```python\n(.*?)```", BOT_PAGE.read_text(encoding="utf-8"), re.DOTALL)
    assert first_bot is not None
    (tmp_path / "my_bot.py").write_text(first_bot.group(1), encoding="utf-8")
    (tmp_path / "example.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["validate", "example.yaml"])
    assert result.exit_code == 0, f"{where}: {result.output}"
    assert result.stdout.startswith("ok: ")  # stderr: a written seed's warning, if any


# --- the events table -----------------------------------------------------------------------


def _event_rows() -> dict[tuple[str, str], tuple[bool, frozenset[str]]]:
    """(kind, rule set) -> (public, data fields), read from the events table of the page."""
    text = BOT_PAGE.read_text(encoding="utf-8")
    header = "| kind | rule sets | seen by | data | meaning |"
    assert header in text, "docs/writing-a-bot.md: no events table"
    table = text.split(header, 1)[1].split("\n\n", 1)[0].strip().splitlines()[1:]
    rows: dict[tuple[str, str], tuple[bool, frozenset[str]]] = {}
    for line in table:
        kind, rule_sets, seen_by, data, _ = (cell.strip() for cell in line.strip("|").split("|"))
        assert seen_by in ("everyone", "you"), f"{kind}: seen by {seen_by!r}"
        fields = frozenset(re.findall(r"`([a-z_]+)`", data))
        assert data == "-" or fields, f"{kind}: data {data!r}"
        ids = list(RULESETS) if rule_sets == "all" else [r.strip() for r in rule_sets.split(",")]
        for rules in ids:
            key = (kind.strip("`"), rules)
            assert key not in rows, f"{key} has two rows"
            rows[key] = (seen_by == "everyone", fields)
    return rows


class RerollsEverything(arena.Bot):
    """Looks at every claim and rerolls all five, so a dice-cards deck runs out."""

    name = "rerolls-everything"

    def act(self, observation: arena.Observation) -> arena.Action:
        if observation.decision == "respond" and observation.legal.can_claim():
            return arena.Look()
        if observation.decision == "reroll":
            return arena.Reroll((0, 1, 2, 3, 4))
        return random_action(observation.legal, self.rng)


def _games(rules: str) -> list[tuple[list[object], dict[str, object]]]:
    """Random games at several table sizes, plus faults under `penalty` and, for the dice
    engines, a bot that rerolls everything (reshuffles in dice-cards) and a loser who chooses
    the receiver."""
    games: list[tuple[list[object], dict[str, object]]] = []
    for players in PLAYERS[rules]:
        games += [(["random"] * players, {}), (["random"] * players, {"straight_over_full": True})]
    faulty = stumbler(lambda n: n % 3 == 0)
    games.append((["random", faulty, "random"], {"on_fault": "penalty", "max_faults": 2}))
    if rules != "cards":
        games.append(([RerollsEverything] * 2, {"max_points": 9}))
        games.append((["random"] * 3, {"receiver": "loser_chooses"}))
    return games


def _emitted(rules: str) -> dict[str, tuple[set[bool], set[str]]]:
    """kind -> (whether public, data fields) over a few games of every kind above."""
    seen: dict[str, tuple[set[bool], set[str]]] = defaultdict(lambda: (set(), set()))
    for players, options in _games(rules):
        for seed in range(6):
            record = arena.play_game(rules, players, seed=seed, options=options)
            for event in record.log:
                if isinstance(event, arena.Event):
                    seen[event.kind][0].add(event.to is None)
                    seen[event.kind][1].update(event.data)
    return seen


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_the_events_table_lists_the_events_the_rules_emit(rules: str) -> None:
    rows = _event_rows()
    documented = {kind: row for (kind, of), row in rows.items() if of == rules}
    emitted = _emitted(rules)
    assert sorted(emitted) == sorted(documented), f"{rules}: kinds emitted vs documented"
    listed = RULESETS[rules].event_kinds  # type: ignore[attr-defined]  # what check-bot tells
    assert sorted(listed) == sorted(documented), f"{rules}: kinds listed vs documented"
    for kind, (public, fields) in emitted.items():
        assert public == {documented[kind][0]}, f"{rules} {kind}: public {public}"
        assert fields == documented[kind][1], f"{rules} {kind}: data fields"


# --- citations ------------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_every_page_a_doc_cites_is_in_the_repository(page: Path) -> None:
    cited = set(re.findall(r"[\w./-]*\w\.md\b", page.read_text(encoding="utf-8")))
    cited -= set(results.DERIVED)  # standings.md is a file of a results folder, not a page
    missing = [name for name in sorted(cited) if not any(
        (where / name).is_file() for where in (page.parent, ROOT, ROOT / "docs"))]  # fmt: skip
    assert missing == [], f"{page.name} cites files the repository does not have"


# --- names ----------------------------------------------------------------------------------


def test_a_file_bot_is_named_as_the_bot_page_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # writing-a-bot.md: `arena play` names a seat by the reference typed; a tournament names
    # the entrant by its alias, else by the file's stem.
    first_bot = re.search(r"```python\n(.*?)```", BOT_PAGE.read_text(encoding="utf-8"), re.DOTALL)
    assert first_bot is not None and 'name = "my-bot"' in first_bot.group(1)
    (tmp_path / "my_bot.py").write_text(first_bot.group(1), encoding="utf-8")
    (tmp_path / "t.yaml").write_text(
        "name: t\nrules: dice\nentrants: [my_bot.py, {bot: my_bot.py, alias: mine}, random]\n"
        "options: {max_points: 1}\nworkers: 1\nreplays: false\n", encoding="utf-8")  # fmt: skip
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    played = runner.invoke(cli, ["play", "--rules", "dice", "--bots", "./my_bot.py,random"])
    assert played.exit_code == 0
    assert re.match(r"dice, seed \d+: seat 0 \./my_bot\.py, seat 1 random\n", played.output)
    ran = runner.invoke(cli, ["run", "t.yaml", "--quiet"])
    assert ran.exit_code == 0, ran.output
    standings = (tmp_path / "results" / "t" / "standings.csv").read_text(encoding="utf-8")
    assert sorted(row.split(",")[1] for row in standings.splitlines()[1:]) == [
        "mine", "my_bot", "random"]  # fmt: skip


def test_the_built_in_entry_point_is_the_one_the_bot_page_names() -> None:
    said = re.search(r"the `(\w+)` entry point, module `([\w.]+)`", BOT_PAGE.read_text("utf-8"))
    assert said is not None
    points = {e.name: e.value for e in entry_points(group="arena")}
    assert points.get(said.group(1)) == said.group(2)


def test_the_grades_table_is_the_one_the_strength_benchmark_writes() -> None:
    """docs/writing-a-bot.md shows bots/grades.json, in the benchmark's own words."""
    import importlib.util

    from arena_bots import grades

    spec = importlib.util.spec_from_file_location("strength", ROOT / "benchmarks/strength.py")
    assert spec is not None and spec.loader is not None
    strength = importlib.util.module_from_spec(spec)
    sys.modules["strength"] = strength  # its dataclasses look their module up
    spec.loader.exec_module(strength)
    text = (ROOT / "docs/writing-a-bot.md").read_text(encoding="utf-8")
    block = text[text.index(strength.BEGIN) + len(strength.BEGIN):text.index(strength.END)]
    assert block == "\n" + strength.docs_table(grades.measured())
    assert grades.measured()["grades"] == {"pass": "honest", "merit": "statistician",
                                           "distinction": "boss"}
    elo = grades.measured()["elo"]
    for rules in ("dice", "dice-cards", "cards"):
        assert elo["boss"][rules] > elo["statistician"][rules] > elo["honest"][rules]


# --- the site's page ------------------------------------------------------------------------

SITE_PAGE = ROOT / "docs" / "site.md"


def _site_commands() -> list[list[str]]:
    """Each `arena ...` line of docs/site.md's sh blocks, as words (VAR=value prefixes off)."""
    blocks = re.findall(r"```sh\n(.*?)```", SITE_PAGE.read_text(encoding="utf-8"), re.DOTALL)
    commands = []
    for line in "\n".join(blocks).splitlines():
        words = line.split("#")[0].split()
        while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
            words = words[1:]
        if words[:1] == ["arena"]:
            commands.append(words[1:])
    return commands


def test_every_arena_command_of_the_site_page_is_a_real_one() -> None:
    """docs/site.md's commands name real commands and only options they take."""
    import click

    commands = _site_commands()
    assert {tuple(c[:2]) for c in commands} >= {("serve", "configs/class.yaml"),
                                                ("site", "roster"), ("site", "season")}
    for words in commands:
        command: click.Command = cli
        rest = list(words)
        while isinstance(command, click.Group) and rest:
            found = command.get_command(click.Context(command), rest[0])  # lazy ones too
            assert found is not None, f"arena {' '.join(words)}: no command {rest[0]!r}"
            command, rest = found, rest[1:]
        assert not isinstance(command, click.Group), f"arena {' '.join(words)}: incomplete"
        known = {name for p in command.params for name in (*p.opts, *p.secondary_opts)}
        for word in rest:
            if word.startswith("--"):
                assert word.split("=")[0] in known, f"arena {' '.join(words)}: {word}"


def test_every_setting_the_site_reads_is_in_the_site_pages_table() -> None:
    """Each ARENA_SITE_* variable the site reads has its row in docs/site.md."""
    site = ROOT / "arena" / "site"
    read = set()
    for path in (site / "settings.py", site / "__init__.py"):
        read |= set(re.findall(r"\"(ARENA_SITE_[A-Z_]+)\"", path.read_text(encoding="utf-8")))
    rows = set(re.findall(r"^\| `(ARENA_SITE_[A-Z_]+)` \|", SITE_PAGE.read_text("utf-8"),
                          re.MULTILINE))
    assert len(read) >= 10
    assert sorted(read - rows) == []
    assert sorted(rows - read) == []
