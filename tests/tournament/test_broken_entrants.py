"""Broken entrants among many (issue 32, item 4): `arena validate` and `arena run` name every
entrant that fails its dry run in one pass, and `arena run --skip-broken` plays a
tournament without them, says who and why, records them in the results folder's
skipped.json, and a resume leaves out the same ones."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from cli_support import unloaded
from click.testing import CliRunner, Result

from arena.cli.main import cli
from arena.tournament.run import results

REFUSER = '''
import json
import sys

# A command bot that says hello and then refuses every game it is started for.
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {"type": "hello", "protocol": 2, "name": "refuser"}
    elif message["type"] == "start":
        reply = {"type": "error", "message": "I refuse\\x1b[31m every game"}
    elif message["type"] == "shutdown":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
'''


def _invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def _config(tmp_path: Path, fmt: str = "{type: round-robin, seats: 2, games: 1}",
            first: str = "random") -> Path:
    """Two built-in bots that play and three entrants that cannot: a program that is not
    there, a bot that refuses to start, and a bot option its bot refuses."""
    (tmp_path / "refuser.py").write_text(textwrap.dedent(REFUSER).lstrip())
    config = tmp_path / "t.yaml"
    config.write_text(textwrap.dedent(f"""
        name: t
        rules: dice
        entrants:
          - {first}
          - command: ["./no-such-bot"]
            alias: gone
          - honest
          - command: ["{sys.executable}", refuser.py]
            alias: refuser
          - bot: statistician
            alias: stat
            options: {{threshold: abc}}
        format: {fmt}
        seed: 7
        workers: 1
    """).lstrip())
    return config


def _problems(tmp_path: Path, config: Path) -> list[str]:
    return [
        (f"{config}:5: entrants.1.command: program '{tmp_path}/no-such-bot' not found "
         f"(looked at {tmp_path}/no-such-bot)"),
        (f"{config}:8: entrants.3.command: does not start for a 'dice' game of 2 seats: "
         "I refuse\\x1b[31m every game"),  # a bot's words never drive the terminal
        (f"{config}:12: entrants.4.options.threshold: bot 'statistician' does not start with "
         "this option: TypeError: statistician: option threshold must be a number, not 'abc'"),
    ]


def test_validate_and_run_name_every_broken_entrant_in_one_pass(tmp_path: Path) -> None:
    config = _config(tmp_path)
    expected = "".join(f"arena: error: {line}\n" for line in _problems(tmp_path, config))
    checked = _invoke("validate", config)
    assert (checked.exit_code, checked.stdout, checked.stderr) == (2, "", expected)
    ran = _invoke("run", config, "--out", tmp_path / "out", "-q")
    assert (ran.exit_code, ran.stdout, ran.stderr) == (2, "", expected)
    assert not (tmp_path / "out").exists()


def test_skip_broken_plays_without_them_says_why_and_records_it(tmp_path: Path) -> None:
    config = _config(tmp_path)
    out = tmp_path / "out"
    ran = _invoke("run", config, "--out", out, "-q", "--skip-broken")
    assert ran.exit_code == 0, ran.output
    reasons = [line.split(": ", 1)[1] for line in _problems(tmp_path, config)]
    left = [f"arena: left out {name!r} (its dry run: {reason})\n"
            for name, reason in zip(["gone", "refuser", "stat"], reasons, strict=True)]
    assert unloaded(ran.stderr) == "".join(left)
    skipped = json.loads((out / "skipped.json").read_text())
    assert skipped == {"skipped": [{"entrant": name, "reason": reason} for name, reason
                                   in zip(["gone", "refuser", "stat"], reasons, strict=True)]}
    saved = yaml.safe_load((out / results.CONFIG).read_text())
    assert [e["bot"] for e in saved["entrants"]] == ["random", "honest"]
    games = list(results.iter_games(out / results.GAMES))
    assert len(games) == 2 and {n for g in games for n in g["entrants"]} == {"random", "honest"}
    assert "| random" in ran.stdout and "refuser" not in ran.stdout

    # the refuser is fixed and the program is there now: a resume still plays without them
    (tmp_path / "refuser.py").write_text(
        (tmp_path / "refuser.py").read_text().replace('"type": "error"', '"type": "ready"'))
    (tmp_path / "no-such-bot").write_text("#!/bin/sh\n")
    (tmp_path / "no-such-bot").chmod(0o755)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    again = _invoke("run", config, "--out", out, "-q", "--resume")
    assert (again.exit_code, unloaded(again.stderr)) == (0, unloaded(ran.stderr)), again.output
    assert (out / "skipped.json").read_bytes() == before["skipped.json"]
    assert (out / results.GAMES).read_bytes() == before[results.GAMES]


def test_nobody_skipped_writes_the_same_bytes_as_a_run_without_the_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "t.yaml"
    config.write_text("name: t\nrules: dice\nentrants: [random, honest]\nseed: 3\nworkers: 1\n")
    ran = {}
    for flags in [(), ("--skip-broken",)]:
        (tmp_path / str(len(flags))).mkdir()
        monkeypatch.chdir(tmp_path / str(len(flags)))
        ran[flags] = _invoke("run", config, "--out", "out", "-q", *flags)
        assert (ran[flags].exit_code, unloaded(ran[flags].stderr)) == (0, ""), ran[flags].output
    assert ran[()].stdout == ran[("--skip-broken",)].stdout
    plain, skip = tmp_path / "0" / "out", tmp_path / "1" / "out"
    files = sorted(p.relative_to(plain) for p in plain.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(skip) for p in skip.rglob("*") if p.is_file())
    assert Path("skipped.json") not in files
    for name in files:  # the replays and the report hold wall-clock times
        if name.parts[0] != results.REPLAYS and name.name not in results.PAGES:
            assert (plain / name).read_bytes() == (skip / name).read_bytes(), name


def test_skip_broken_refuses_to_play_without_a_champion(tmp_path: Path) -> None:
    config = _config(tmp_path, "{type: gauntlet, seats: 2, champions: [gone]}")
    ran = _invoke("run", config, "--out", tmp_path / "out", "-q", "--skip-broken")
    assert (ran.exit_code, ran.stdout) == (2, "")
    assert ran.stderr == (
        "arena: error: cannot play without the champion 'gone', which fails its dry run: "
        f"entrants.1.command: program '{tmp_path}/no-such-bot' not found "
        f"(looked at {tmp_path}/no-such-bot)\n")
    assert not (tmp_path / "out").exists()


def test_skip_broken_refuses_too_few_left_for_a_table(tmp_path: Path) -> None:
    config = _config(tmp_path, "{type: round-robin, seats: 2}", first="bot: nosuch.py")
    (tmp_path / "nosuch.py").write_text("raise RuntimeError('broken at import')\n")
    ran = _invoke("run", config, "--out", tmp_path / "out", "-q", "--skip-broken")
    assert (ran.exit_code, ran.stdout) == (2, "")
    assert ran.stderr == ("arena: error: without the 4 entrants that fail their dry run, "
                          "1 entrant left, fewer than the 2 seats of a table\n")
    assert not (tmp_path / "out").exists()
