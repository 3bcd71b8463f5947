"""Tests for arena.tournament.config and the config_* modules beside it: YAML -> frozen
config, one-line errors, dump and differences."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Mapping
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.bot import Limits
from arena.tournament.config import (
    ConfigError,
    EntrantConfig,
    FormatConfig,
    OptionProblem,
    Options,
    TournamentConfig,
)
from arena.tournament.config.as_run import config_as_run, config_differences, dump_config
from arena.tournament.config.load import load_config, load_config_text
from arena.tournament.formats.registry import BUILTIN

SOURCE = "configs/x.yaml"


@dataclasses.dataclass(frozen=True, slots=True)
class FakeRules:
    """A stand-in for a rule set: a player range and typed option defaults."""

    id: str
    min_players: int
    max_players: int
    defaults: tuple[tuple[str, Any], ...] = (
        ("max_faults", 3),
        ("max_points", 5),
        ("on_fault", "forfeit"),
    )

    def check_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        defaults = dict(self.defaults)
        for key, value in options.items():
            if key not in defaults:
                raise OptionProblem(key, f"unknown option {key!r}", tuple(defaults))
            if type(value) is not type(defaults[key]):
                raise OptionProblem(key, f"must be like {defaults[key]!r}, got {value!r}")
        if options.get("on_fault", "forfeit") not in ("forfeit", "penalty"):
            raise OptionProblem("on_fault", "must be forfeit or penalty")
        return {**defaults, **options}


RULES = {
    "dice": FakeRules("dice", 2, 6),
    "dice-cards": FakeRules("dice-cards", 2, 6),
    "cards": FakeRules("cards", 3, 6, (("chips", 10), ("on_fault", "forfeit"))),
}
BOTS = ("bluffer", "random", "statistician")
FORMATS = {fmt.type: fmt for fmt in BUILTIN}
OTHER_REFS = ("bots/examples/my_bot.py", "my_package.bots:CleverBot")


def bot_problem(ref: str) -> str | None:
    if ref in BOTS or ref in OTHER_REFS:
        return None
    if ref.endswith(".py"):
        return f"bot file {ref!r} does not exist"
    return f"module {ref}: no class {ref.partition(':')[2]!r} (its arena.Bot classes: CleverBot)"


def load(text: str, source: str = SOURCE) -> TournamentConfig:
    return load_config_text(text, source, rules=RULES, formats=FORMATS, bot_problem=bot_problem,
                            known_bots=BOTS)


BASE = """\
name: dice-rr
rules: dice
options:
  max_points: 7
entrants:
  - statistician
  - bot: statistician
    alias: stat-cautious
    options: {threshold: 0.2}
    mode: inline
  - bot: bots/examples/my_bot.py
  - bot: my_package.bots:CleverBot
  - command: [node, bots/examples/bot.js]
    alias: js-bot
format:
  type: round-robin
  seats: 4
  games: 2
seed: 7
limits:
  decision: 0.5
workers: 2
replays: false
"""

MINIMAL = """\
name: small
rules: dice
entrants: [statistician, random]
"""


def edited(old: str, new: str, text: str = BASE) -> str:
    assert text.count(old) == 1, f"{old!r} must occur once in the base config"
    return text.replace(old, new)


# --- valid configs ------------------------------------------------------------------------


def test_full_config_builds_the_frozen_tree() -> None:
    cfg = load(BASE)
    assert cfg.name == "dice-rr"
    assert cfg.rules == "dice"
    assert cfg.options == {"max_faults": 3, "max_points": 7, "on_fault": "forfeit"}
    assert cfg.entrants == (
        EntrantConfig(name="statistician", bot="statistician"),
        EntrantConfig(
            name="stat-cautious",
            bot="statistician",
            options=Options.of({"threshold": 0.2}),
            mode="inline",
        ),
        EntrantConfig(name="my_bot", bot="bots/examples/my_bot.py"),
        EntrantConfig(name="CleverBot", bot="my_package.bots:CleverBot"),
        EntrantConfig(name="js-bot", command=("node", "bots/examples/bot.js"), mode="command"),
    )
    assert cfg.format == FormatConfig("round-robin", seats=4, games=2, cap=20000)
    assert (cfg.seed, cfg.workers, cfg.replays) == (7, 2, False)
    assert cfg.limits == Limits(decision=0.5, bank=None)


def test_defaults_are_filled_in() -> None:
    cfg = load(MINIMAL)
    assert cfg == TournamentConfig(
        name="small",
        rules="dice",
        entrants=(EntrantConfig("statistician", "statistician"), EntrantConfig("random", "random")),
        format=FormatConfig("round-robin", seats=2, games=1, cap=20000),
        options=Options.of({"max_faults": 3, "max_points": 5, "on_fault": "forfeit"}),
        seed=None,
        limits=Limits(1.0, None),
        mode=None,
        workers=None,
        output="results/small",
        replays=True,
    )


def test_limits_start_is_every_entrants_start_up_time_and_saved_only_when_set() -> None:
    from arena.entrants import resolve
    from arena.limits import START_TIMEOUT

    cfg = load(MINIMAL + "limits: {start: 2.5}\n")
    assert cfg.start_timeout == 2.5 and cfg.limits == Limits(1.0, None)
    assert {e.reference.start_timeout for e in cfg.entrants} == {2.5}
    assert resolve(cfg.entrants[0].reference).limits().start_timeout == 2.5  # its process's
    assert config_as_run(cfg)["limits"]["start"] == 2.5
    assert load(dump_config(cfg)).start_timeout == 2.5
    plain = load(MINIMAL)
    assert plain.start_timeout == START_TIMEOUT == plain.entrants[0].reference.start_timeout
    assert "start" not in config_as_run(plain)["limits"]  # the file saved as before
    added = dataclasses.replace(
        cfg, entrants=(*cfg.entrants, dataclasses.replace(plain.entrants[0], name="late")))
    walled = added.at_isolation("none")  # as a site's season enters its command bots
    assert {e.reference.start_timeout for e in walled.entrants} == {2.5}


def test_default_seats_rise_to_the_rule_sets_minimum() -> None:
    text = MINIMAL.replace("rules: dice", "rules: cards").replace("random]", "random, bluffer]")
    assert load(text).format.seats == 3


def test_top_level_mode_is_the_default_for_bot_entrants_only() -> None:
    cfg = load(BASE + "mode: process\n")
    assert [e.mode for e in cfg.entrants] == ["process", "inline", "process", "process", "command"]


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("format: elimination\n", FormatConfig("elimination", 2, 1, advance=1, seeding=0)),
        (
            "format: {type: elimination, seats: 3, advance: 2, seeding: 4}\n",
            FormatConfig("elimination", 3, 1, advance=2, seeding=4),
        ),
        (
            "format: {type: gauntlet, champions: [random]}\n",
            FormatConfig("gauntlet", 2, 1, champions=("random",)),
        ),
        ("format: {type: round-robin, cap: 50}\n", FormatConfig("round-robin", 2, 1, cap=50)),
    ],
)
def test_each_format_type_fills_only_its_own_fields(fmt: str, expected: FormatConfig) -> None:
    text = MINIMAL.replace("[statistician, random]", "[statistician, random, bluffer]") + fmt
    cfg = load(text)
    assert cfg.format == expected
    assert load(dump_config(cfg)) == cfg


def test_full_config_round_trips_through_dump() -> None:
    cfg = load(BASE + "mode: process\noutput: out/here\n")
    dumped = dump_config(cfg)
    again = load(dumped, "results/dice-rr/config.yaml")
    assert cfg.seed == 7 and again.seed is None  # the seed is the run's secret, not in it
    assert dataclasses.replace(again, seed=cfg.seed) == cfg
    assert dump_config(again) == dumped


def test_dump_is_sorted_and_shows_every_default() -> None:
    data = yaml.safe_load(dump_config(load(MINIMAL)))
    assert list(data) == sorted(data)
    assert data["format"] == {"cap": 20000, "games": 1, "seats": 2, "type": "round-robin"}
    assert data["limits"] == {"decision": 1.0, "game": None, "wall_factor": 2.0}
    assert data["entrants"][0] == {
        "alias": "statistician",
        "bot": "statistician",
        "mode": None,
        "options": {},
    }
    assert data["output"] == "results/small"


def test_merge_keys_share_options_and_later_keys_win() -> None:
    text = edited(
        "    options: {threshold: 0.2}\n",
        "    options: &opts {threshold: 0.2, depth: 2}\n",
    )
    text = edited(
        "  - bot: bots/examples/my_bot.py\n",
        "  - bot: bots/examples/my_bot.py\n    options: {<<: *opts, threshold: 0.3}\n",
        text,
    )
    cfg = load(text)
    assert cfg.entrants[2].options == {"threshold": 0.3, "depth": 2}


def test_load_config_reads_a_file_and_finds_bot_files_beside_it(tmp_path: Any) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(BASE, encoding="utf-8")
    bot_file = tmp_path / "bots" / "examples" / "my_bot.py"
    bot_file.parent.mkdir(parents=True)
    bot_file.write_text("")

    def problem(ref: str) -> str | None:
        return None if ref == str(bot_file) else bot_problem(ref)

    cfg = load_config(path, rules=RULES, formats=FORMATS, bot_problem=problem, known_bots=BOTS)
    as_text = load(BASE)
    entrants = list(as_text.entrants)
    entrants[2] = dataclasses.replace(entrants[2], bot=str(bot_file))
    assert cfg == dataclasses.replace(as_text, entrants=tuple(entrants))


# --- immutability -------------------------------------------------------------------------


def test_config_tree_is_immutable_and_hashable() -> None:
    cfg = load(BASE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.seed = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.format.games = 9  # type: ignore[misc]
    with pytest.raises(TypeError):
        cfg.options["max_points"] = 9  # type: ignore[index]
    assert isinstance(cfg.entrants, tuple)
    assert hash(cfg) == hash(load(BASE))


def test_options_freeze_nested_values_and_dict_is_a_copy() -> None:
    options = Options.of({"b": [1, {"c": [2]}], "a": {"x": 1}})
    assert list(options) == ["a", "b"]
    assert options["b"] == (1, Options.of({"c": (2,)}))
    copy = options.dict()
    assert copy == {"a": {"x": 1}, "b": [1, {"c": [2]}]}
    copy["a"]["x"] = 2
    assert options["a"]["x"] == 1
    assert options.get("missing") is None


# --- errors: one line each, file:line: key: message ---------------------------------------

ERRORS = [
    # (old text, new text, the exact message)
    ("  - statistician\n", "  - statisitcian\n",
     "configs/x.yaml:6: entrants.0: unknown bot 'statisitcian' (did you mean 'statistician'?)"),
    ("  - bot: statistician\n", "  - bot: zzz\n",
     ("configs/x.yaml:7: entrants.1.bot: unknown bot 'zzz' "
     "(not a registered name, .py file or module:Class)")),
    ("bots/examples/my_bot.py", "bots/examples/nope.py",
     "configs/x.yaml:11: entrants.2.bot: bot file 'bots/examples/nope.py' does not exist"),
    ("my_package.bots:CleverBot", "my_package.bots:Dumb",
     ("configs/x.yaml:12: entrants.3.bot: module my_package.bots:Dumb: no class 'Dumb' "
     "(its arena.Bot classes: CleverBot)")),
    ("seed: 7", "sead: 7",
     "configs/x.yaml:19: sead: unknown key 'sead' (did you mean 'seed'?)"),
    ("  games: 2\n", "  gmaes: 2\n",
     "configs/x.yaml:18: format.gmaes: unknown key 'gmaes' (did you mean 'games'?)"),
    ("    mode: inline\n", "    mdoe: inline\n",
     "configs/x.yaml:10: entrants.1.mdoe: unknown key 'mdoe' (did you mean 'mode'?)"),
    ("  decision: 0.5\n", "  zzz: 0.5\n",
     ("configs/x.yaml:21: limits.zzz: unknown key 'zzz' (known: decision, game, start, "
      "wall_factor)")),
    ("rules: dice", "rules: dcie",
     "configs/x.yaml:2: rules: unknown rule set 'dcie' (did you mean 'dice'?)"),
    ("rules: dice", "rules: chess",
     ("configs/x.yaml:2: rules: unknown rule set 'chess' (expected one of: cards, dice, "
     "dice-cards)")),
    ("  type: round-robin", "  type: round-robbin",
     ("configs/x.yaml:16: format.type: unknown format type 'round-robbin' "
     "(did you mean 'round-robin'?)")),
    ("  max_points: 7", "  max_pionts: 7",
     ("configs/x.yaml:4: options.max_pionts: unknown option 'max_pionts' "
     "(did you mean 'max_points'?)")),
    ("  max_points: 7", "  max_points: 7\n  on_fault: forfit",
     "configs/x.yaml:5: options.on_fault: must be forfeit or penalty"),
    ("  max_points: 7", "  max_points: lots",
     "configs/x.yaml:4: options.max_points: must be like 5, got 'lots'"),
    ("  games: 2", "  games: \"ten\"",
     "configs/x.yaml:18: format.games: must be a whole number, got 'ten'"),
    ("  games: 2", "  games: 0",
     "configs/x.yaml:18: format.games: must be at least 1, got 0"),
    ("  seats: 4", "  seats: 1",
     "configs/x.yaml:17: format.seats: must be at least 2, got 1"),
    ("  seats: 4", "  seats: 6",
     "configs/x.yaml:17: format.seats: a table of 6 seats needs at least 6 entrants, got 5"),
    ("  seats: 4", "  seats: 7",
     "configs/x.yaml:17: format.seats: rule set 'dice' is for 2 to 6 players, got 7 seats"),
    ("workers: 2", "workers: 0",
     "configs/x.yaml:22: workers: must be at least 1, got 0"),
    ("  decision: 0.5", "  decision: 0",
     "configs/x.yaml:21: limits.decision: must be more than 0 seconds and finite, got 0"),
    ("limits:\n  decision: 0.5", "limits:\n  game: -3",
     "configs/x.yaml:21: limits.game: must be more than 0 seconds and finite, got -3"),
    ("  decision: 0.5", "  decision: 0.5\n  wall_factor: 0.5",
     ("configs/x.yaml:22: limits.wall_factor: must be a number of at least 1 and finite, "
      "got 0.5")),
    ("  decision: 0.5", "  decision: .nan",
     "configs/x.yaml:21: limits.decision: must be more than 0 seconds and finite, got nan"),
    ("  decision: 0.5", "  decision: 0.5\n  start: 0",
     "configs/x.yaml:22: limits.start: must be more than 0 seconds and finite, got 0"),
    ("    alias: stat-cautious\n", "",
     ("configs/x.yaml:7: entrants.1.bot: duplicate entrant name 'statistician' "
     "(same as entrants.0); add an alias to tell them apart")),
    ("    alias: stat-cautious\n", "    alias: statistician\n",
     ("configs/x.yaml:8: entrants.1.alias: duplicate entrant name 'statistician' "
     "(same as entrants.0); add an alias to tell them apart")),
    ("    alias: stat-cautious\n", "    alias: stat cautious\n",
     ("configs/x.yaml:8: entrants.1.alias: 'stat cautious' may use only letters, digits, "
     "'.', '-' and '_', start with a letter or digit, and be at most 64 long")),
    ("    alias: js-bot\n", "",
     "configs/x.yaml:13: entrants.4.alias: required for a command entrant"),
    ("  - command: [node, bots/examples/bot.js]\n",
     "  - command: [node, bots/examples/bot.js]\n    bot: random\n",
     "configs/x.yaml:13: entrants.4: give either 'bot' or 'command', not both"),
    ("  - command: [node, bots/examples/bot.js]\n", "  - command: node bot.js\n",
     ("configs/x.yaml:13: entrants.4.command: must be a non-empty list like [node, bot.js], "
     "got 'node bot.js'")),
    ("    alias: js-bot\n", "    alias: js-bot\n    mode: process\n",
     "configs/x.yaml:15: entrants.4.mode: a command entrant runs as 'command', not 'process'"),
    ("    mode: inline\n", "    mode: command\n",
     "configs/x.yaml:10: entrants.1.mode: 'command' is only for entrants given by `command:`"),
    ("    mode: inline\n", "    mode: inlnie\n",
     "configs/x.yaml:10: entrants.1.mode: unknown mode 'inlnie' (did you mean 'inline'?)"),
    ("    options: {threshold: 0.2}\n", "    options: {yes: 0.2}\n",
     ("configs/x.yaml:9: entrants.1.options.yes: key 'yes' is read as true, not text; "
     "put it in quotes")),
    ("    options: {threshold: 0.2}\n", "    options: [0.2]\n",
     "configs/x.yaml:9: entrants.1.options: must be a mapping, got a list"),
    ("  - statistician\n", "  -\n",
     "configs/x.yaml:6: entrants.0: must be a bot reference or a mapping, got null"),
    ("seed: 7", "seed: true",
     "configs/x.yaml:19: seed: must be a whole number, got true"),
    ("replays: false", "replays: 'no'",
     "configs/x.yaml:23: replays: must be true or false, got 'no'"),
    ("workers: 2", "mode: command",
     "configs/x.yaml:22: mode: 'command' is set per entrant, by giving `command:`"),
    ("name: dice-rr", "name: Dice RR",
     "configs/x.yaml:1: name: 'Dice RR' may use only lowercase letters, digits, '-' and '_'"),
    ("name: dice-rr\n", "",
     "configs/x.yaml:1: name: this key is required"),
    (("entrants:\n  - statistician\n  - bot: statistician\n    alias: stat-cautious\n"
     "    options: {threshold: 0.2}\n    mode: inline\n  - bot: bots/examples/my_bot.py\n"
     "  - bot: my_package.bots:CleverBot\n  - command: [node, bots/examples/bot.js]\n"
     "    alias: js-bot\n"), "entrants: [statistician]\n",
     "configs/x.yaml:5: entrants: need at least 2 entrants, got 1"),
    ("  games: 2", "  games: 2\n  champions: [random]",
     ("configs/x.yaml:19: format.champions: 'champions' applies only to gauntlet, "
     "not round-robin")),
    ("  type: round-robin", "  type: gauntlet\n  champions: [stat-cautous]",
     ("configs/x.yaml:17: format.champions.0: unknown entrant 'stat-cautous' "
     "(did you mean 'stat-cautious'?)")),
    ("  type: round-robin", "  type: gauntlet",
     ("configs/x.yaml:15: format.champions: a gauntlet needs a non-empty list of champion "
     "names, got null")),
    ("  type: round-robin", "  type: gauntlet\n  champions: [my_bot, my_bot]",
     "configs/x.yaml:17: format.champions.1: champion 'my_bot' is listed twice"),
    ("  type: round-robin", "  type: elimination\n  advance: 4",
     "configs/x.yaml:17: format.advance: must be less than seats (4), got 4"),
    ("seed: 7", "seed: 7\nseed: 8",
     "configs/x.yaml:20: seed: duplicate key 'seed' (first given on line 19)"),
    ("  seats: 4", "  seats: [4",
     ("configs/x.yaml:18: invalid YAML: while parsing a flow sequence, expected ',' or ']', "
     "but got ':' (column 8)")),
    ("seed: 7", "seed: !!python/name:os.system 7",
     ("configs/x.yaml:19: seed: cannot read the value: could not determine a constructor "
     "for the tag 'tag:yaml.org,2002:python/name:os.system'")),
    ("seed: 7", "seed: \x07",
     "configs/x.yaml:19: invalid YAML: special characters are not allowed"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "message"), ERRORS)
def test_each_problem_is_one_exact_line(old: str, new: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load(edited(old, new))
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "configs/x.yaml:1: the file is empty; expected a mapping with name, rules, entrants"),
        (
            "# only a comment\n",
            "configs/x.yaml:1: the file is empty; expected a mapping with name, rules, entrants",
        ),
        ("- a\n- b\n", "configs/x.yaml:1: the top level must be a mapping of keys, got a list"),
        ("just text\n",
         "configs/x.yaml:1: the top level must be a mapping of keys, got 'just text'"),
        ("a: 1\n---\nb: 2\n", ("configs/x.yaml:2: invalid YAML: expected a single document in "
         "the stream, but found another document (column 1)")),
        ("x: 1\n", ("configs/x.yaml:1: x: unknown key 'x' (known: cluster, entrants, format, "
         "grades, isolation, limits, mode, name, options, output, replays, rules, seed, "
         "submissions, workers)")),
        ("x: &a [*a]\n", "configs/x.yaml:1: x.0: an alias refers to a value that contains it"),
        (MINIMAL.replace("rules: dice", "rules: cards").replace("random]", "random, bluffer]")
         + "format: {type: round-robin, seats: 2}\n",
         "configs/x.yaml:4: format.seats: rule set 'cards' is for 3 to 6 players, got 2 seats"),
    ],
)  # fmt: skip
def test_whole_file_problems(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load(text)
    assert str(caught.value) == message


GRADED = """\
name: league
rules: dice
entrants:
  - random
  - bluffer
  - statistician
  - bot: random
    alias: student
format:
  type: gauntlet
  champions: [random, bluffer, statistician]
grades: [pass: random, merit: bluffer, distinction: statistician]
"""


def test_grades_are_kept_lowest_first_and_saved_as_a_list() -> None:
    cfg = load(GRADED)
    assert cfg.grades == (("pass", "random"), ("merit", "bluffer"),
                          ("distinction", "statistician"))
    assert cfg.graded == ("student",)
    saved = yaml.safe_load(dump_config(cfg))["grades"]
    assert saved == [{"pass": "random"}, {"merit": "bluffer"}, {"distinction": "statistician"}]
    assert load(dump_config(cfg)) == cfg
    assert "grades" not in config_as_run(load(MINIMAL))  # no key, no change to older folders
    rr = load(edited("  type: gauntlet\n  champions: [random, bluffer, statistician]\n",
                     "  type: round-robin\n", GRADED).replace(", distinction: statistician", ""))
    assert rr.grades == (("pass", "random"), ("merit", "bluffer"))
    assert rr.graded == ("statistician", "student")


GRADE_ERRORS = [
    ("[pass: random, merit: bluffer, distinction: statistician]", "{pass: random}",
     ("configs/x.yaml:12: grades: must be a list of grades, lowest first, like "
      "[pass: honest, merit: statistician], got a mapping")),
    ("[pass: random, merit: bluffer, distinction: statistician]", "[]",
     ("configs/x.yaml:12: grades: must be a list of grades, lowest first, like "
      "[pass: honest, merit: statistician], got an empty list")),
    ("merit: bluffer,", "bluffer,",
     ("configs/x.yaml:12: grades.1: must be one grade and its bot, like 'pass: honest', "
     "got 'bluffer'")),
    ("merit: bluffer,", "{merit: bluffer, extra: random},",
     ("configs/x.yaml:12: grades.1: must be one grade and its bot, like 'pass: honest', "
     "got a mapping of 2 keys")),
    ("merit: bluffer,", "merit: bluffr,",
     "configs/x.yaml:12: grades.1.merit: unknown entrant 'bluffr' (did you mean 'bluffer'?)"),
    ("merit: bluffer,", "pass: bluffer,",
     "configs/x.yaml:12: grades.1.pass: grade 'pass' is listed twice"),
    ("merit: bluffer,", "merit: random,",
     "configs/x.yaml:12: grades.1.merit: 'random' is already the bot of grade 'pass'"),
    ("merit: bluffer,", "merit: student,",
     ("configs/x.yaml:12: grades.1.merit: 'student' is not a champion; in a gauntlet each "
      "grade's bot must be one, to meet every challenger")),
    ("  type: gauntlet\n  champions: [random, bluffer, statistician]\n", "  type: swiss\n",
     "configs/x.yaml:11: grades: 'grades' applies only to gauntlet or round-robin, not swiss"),
    ("  champions: [random, bluffer, statistician]\n",
     "  seats: 3\n  champions: [random, bluffer]\n",
     ("configs/x.yaml:13: grades: a grade is a head-to-head score: it needs 2-seat tables, "
      "got 3 seats")),
    ("merit: bluffer,", "merit: 3,",
     "configs/x.yaml:12: grades.1.merit: must be non-empty text, got 3"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "message"), GRADE_ERRORS)
def test_each_grades_problem_is_one_exact_line(old: str, new: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load(edited(old, new, GRADED))
    assert str(caught.value) == message


def test_grades_that_leave_no_one_to_grade_are_refused() -> None:
    text = edited("  type: gauntlet\n  champions: [random, bluffer, statistician]\n",
                  "  type: round-robin\n", GRADED).replace("statistician]", "statistician, "
                                                            "fourth: student]")
    with pytest.raises(ConfigError) as caught:
        load(text)
    assert str(caught.value) == ("configs/x.yaml:11: grades: every entrant is a grade's bot; "
                                 "there is no one to grade")


def test_recursive_alias_is_an_error_not_a_hang() -> None:
    with pytest.raises(ConfigError) as caught:
        load(MINIMAL + "options: &a {x: *a}\n")
    assert str(caught.value) == (
        "configs/x.yaml:4: options.x: an alias refers to a value that contains it"
    )


def test_unreadable_file_names_the_file(tmp_path: Any) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError) as caught:
        load_config(missing, rules=RULES, formats=FORMATS, bot_problem=bot_problem, known_bots=BOTS)
    assert str(caught.value) == f"{missing}: cannot read the file: No such file or directory"


def test_config_error_keeps_its_parts_and_stays_one_line() -> None:
    error = ConfigError("a.yaml", 3, "format.games", "bad\n  value")
    assert (error.source, error.line, error.key, error.message) == (
        "a.yaml",
        3,
        "format.games",
        "bad value",
    )
    assert str(error) == "a.yaml:3: format.games: bad value"
    assert str(pickle.loads(pickle.dumps(error))) == str(error)
    problem = pickle.loads(pickle.dumps(OptionProblem("k", "bad", ["key"])))
    assert (problem.key, problem.message, problem.choices) == ("k", "bad", ("key",))


BASE_LINES = BASE.splitlines()
FRAGMENTS = st.sampled_from(
    ["", "-", ":", "[", "]", "{", "}", "'", '"', "&a", "*a", "<<:", " ", "  ", "x", "0",
     "-1", "null", "true", "1.5", "seats", "games", "bot", "alias", "#", ",", "!!str", "\t"]
)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, len(BASE_LINES) - 1), st.lists(FRAGMENTS, max_size=6)),
        min_size=1,
        max_size=3,
    )
)
def test_any_edit_gives_a_config_or_one_line_error(edits: list[tuple[int, list[str]]]) -> None:
    lines = list(BASE_LINES)
    for index, pieces in edits:
        line = lines[index]
        cut = len(line) // 2
        lines[index] = line[:cut] + "".join(pieces) + line[cut:]
    try:
        cfg = load("\n".join(lines) + "\n")
    except ConfigError as error:
        text = str(error)
        assert "\n" not in text
        assert text.startswith(f"{SOURCE}:")
    else:
        assert load(dump_config(cfg)) == dataclasses.replace(cfg, seed=None)


JSON_LEAVES = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(
    bot_options=st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=4),
    seed=st.integers(),
    games=st.integers(1, 10**6),
    decision=st.floats(min_value=1e-6, max_value=1e6),
    mode=st.sampled_from([None, "inline", "process"]),
)
def test_generated_configs_round_trip(
    bot_options: dict[str, Any], seed: int, games: int, decision: float, mode: str | None
) -> None:
    data = {
        "name": "gen",
        "rules": "dice",
        "entrants": ["random", {"bot": "random", "alias": "r2", "options": bot_options}],
        "format": {"type": "round-robin", "games": games},
        "seed": seed,
        "limits": {"decision": decision},
        "mode": mode,
    }
    cfg = load(yaml.safe_dump(data))
    assert cfg.entrants[1].options.dict() == bot_options
    assert load(dump_config(cfg)) == dataclasses.replace(cfg, seed=None)
    assert config_differences(config_as_run(cfg), config_as_run(cfg)) == []


# --- differences ---------------------------------------------------------------------------


def test_differences_name_each_changed_key() -> None:
    before = config_as_run(load(BASE))
    after = config_as_run(load(edited("  games: 2", "  games: 3", BASE + "mode: inline\n")))
    assert config_differences(before, after) == [
        'entrants.0.mode: null -> "inline"',
        'entrants.2.mode: null -> "inline"',
        'entrants.3.mode: null -> "inline"',
        "format.games: 2 -> 3",
        'mode: null -> "inline"',
    ]


def test_differences_show_added_and_removed_entries() -> None:
    a = {"format": {"champions": ["x"]}, "seed": 1}
    b = {"format": {"champions": ["x", "y"]}, "workers": 4}
    assert config_differences(a, b) == [
        'format.champions.1: (absent) -> "y"',
        "seed: 1 -> (absent)",
        "workers: (absent) -> 4",
    ]


def test_differences_tell_types_apart_and_can_ignore_keys() -> None:
    a = {"limits": {"decision": 1}, "workers": 2, "output": "a"}
    b = {"limits": {"decision": 1.0}, "workers": 8, "output": "b"}
    assert config_differences(a, b, ignore=("workers", "output")) == ["limits.decision: 1 -> 1.0"]
    assert config_differences(a, a) == []
