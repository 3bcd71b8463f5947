"""Tests for a ladder's config: `format: {type: ladder, ...}` with its defaults, the
`submissions` folder whose bot files and folders become entrants, one-line errors, and what
`arena validate` says of a ladder."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from test_config import BOTS, FORMATS, RULES, bot_problem, load

from arena.cli.main import cli
from arena.tournament.config import ConfigError
from arena.tournament.config.as_run import dump_config
from arena.tournament.config.load import load_config, submitted

LADDER = """\
name: season
rules: dice
entrants: [statistician, random]
format: {type: ladder, seats: 2}
"""


def test_the_ladder_keys_default_as_the_issue_says() -> None:
    fmt = load(LADDER).format
    assert (fmt.type, fmt.min_games, fmt.batch, fmt.band, fmt.final_games) == (
        "ladder", 20, 8, 4, 1)


def test_the_ladder_keys_are_read() -> None:
    text = LADDER.replace("seats: 2}", "seats: 2, min_games: 6, batch: 3, band: 2, "
                                       "final_games: 2}")
    fmt = load(text).format
    assert (fmt.min_games, fmt.batch, fmt.band, fmt.final_games) == (6, 3, 2, 2)


@pytest.mark.parametrize(("text", "message"), [
    (LADDER.replace("seats: 2}", "seats: 2, batch: 0}"),
     "configs/x.yaml:4: format.batch: must be at least 1, got 0"),
    (LADDER.replace("seats: 2}", "seats: 2, rounds: 3}"),
     "configs/x.yaml:4: format.rounds: 'rounds' applies only to swiss, not ladder"),
    (LADDER.replace("type: ladder, seats: 2", "type: swiss, min_games: 3"),
     "configs/x.yaml:4: format.min_games: 'min_games' applies only to ladder, not swiss"),
    (LADDER.replace("format: {type: ladder, seats: 2}", "submissions: entries/"),
     "configs/x.yaml:4: submissions: 'submissions' applies only to a ladder format"),
])
def test_each_ladder_problem_is_one_exact_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load(text)
    assert str(caught.value) == message


def test_submissions_are_entrants_named_by_their_stem(tmp_path: Path) -> None:
    entries = tmp_path / "entries"
    (entries / "zed").mkdir(parents=True)
    (entries / "alice.py").write_text("", encoding="utf-8")
    (entries / "notes.txt").write_text("", encoding="utf-8")
    (entries / ".gitkeep").write_text("", encoding="utf-8")
    config = tmp_path / "ladder.yaml"
    config.write_text(LADDER + "submissions: entries/\n", encoding="utf-8")
    cfg = load_config(config, rules=RULES, formats=FORMATS, bot_problem=bot_problem,
                      known_bots=BOTS)
    assert [(e.name, e.bot) for e in cfg.entrants[2:]] == [
        ("alice", str(entries / "alice.py")), ("zed", str(entries / "zed"))]
    assert cfg.submissions == str(tmp_path / "entries")
    assert submitted(str(tmp_path / "missing")) == ()


def test_validate_prints_a_line_for_the_shipped_ladder() -> None:
    shown = CliRunner().invoke(cli, ["validate", "configs/ladder.yaml"])
    assert shown.exit_code == 0, shown.output
    assert shown.output.splitlines()[0] == (
        "ok: 5 entrants, a ladder of 2-seat tables, 8 tables a batch, ranked after 20 games")


def test_the_config_as_run_keeps_the_ladder_keys() -> None:
    text = LADDER.replace("seats: 2}", "seats: 2, min_games: 6, batch: 3}")
    cfg = load(text)
    assert load(dump_config(cfg)).format == cfg.format
