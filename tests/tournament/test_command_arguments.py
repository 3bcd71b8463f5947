"""Command arguments are passed as written: a path through a symlink reaches the bot as it
was written (`/lib/x` stays `/lib/x`, not `/usr/lib/x`), and a relative path in a config's
command is taken from the config's folder without resolving symlinks, in the config as run
too (issue 13, item 9)."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from arena import play_game
from arena.cli.main import cli
from arena.hosts import walls
from arena.hosts.pipe import CommandHost, ProcessLimits
from arena.hosts.sandbox import shown_at
from arena.referee import Player
from arena.tournament.run import results

ZOO = Path(__file__).resolve().parents[1] / "hosts" / "zoo"
THROUGH_A_LINK = "/lib/os-release"
"""On Debian /lib is a symlink to usr/lib."""


def _seen(path: Path) -> str:
    """Where the bot sees a file it is shown: as written, but in the sandbox one in the host's
    /tmp (where pytest's folders are) is under /outside, as arena.hosts.sandbox.shown_at says."""
    return shown_at(str(path)) if walls.level().sandboxed else str(path)


def _arguments(stderr: str) -> list[str]:
    lines = [t for t in stderr.splitlines() if t.startswith("ARGUMENTS ")]
    assert lines, stderr
    return list(json.loads(lines[-1].removeprefix("ARGUMENTS ")))


def test_a_command_gets_an_argument_through_a_symlink_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not (os.path.islink("/lib") and os.path.exists(THROUGH_A_LINK)):
        pytest.skip("this machine's /lib is not a symlink")
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "book.txt").write_text("opening book\n")
    (tmp_path / "link").symlink_to("real")
    monkeypatch.chdir(tmp_path)
    host = CommandHost([sys.executable, str(ZOO / "arguments.py"), THROUGH_A_LINK,
                        "link/book.txt", "--fast"], ProcessLimits(start_timeout=20.0))
    try:
        record = play_game("dice", [Player("a", host), "random"], seed=2)
        seen = _arguments(host.stderr_tail())
    finally:
        host.shutdown()
    assert record.faults == ()
    assert seen == [THROUGH_A_LINK, _seen(tmp_path / "link" / "book.txt"), "--fast"]


def test_an_absolute_argument_keeps_its_dots_and_its_trailing_slash(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    written = [f"{tmp_path}/data/../data/", f"{tmp_path}/data/"]
    host = CommandHost([sys.executable, str(ZOO / "arguments.py"), *written],
                       ProcessLimits(start_timeout=20.0))
    try:
        play_game("dice", [Player("a", host), "random"], seed=2)
        seen = _arguments(host.stderr_tail())
    finally:
        host.shutdown()
    assert seen == written


def test_a_relative_path_in_a_configs_command_is_taken_from_its_folder_without_symlinks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    contest = tmp_path / "contest-2026"
    (contest / "data").mkdir(parents=True)
    (contest / "data" / "book.txt").write_text("opening book\n")
    (tmp_path / "contest").symlink_to("contest-2026")
    (contest / "t.yaml").write_text(textwrap.dedent(f"""
        name: t
        rules: dice
        entrants:
          - random
          - command: ["{sys.executable}", "{ZOO / 'arguments.py'}", data/book.txt, absent.txt]
            alias: theirs
        format: {{type: round-robin, seats: 2, games: 1}}
        seed: 1
        workers: 1
    """).lstrip())
    monkeypatch.chdir(tmp_path)
    for config, out, written in [
        (tmp_path / "contest" / "t.yaml", tmp_path / "a", str(tmp_path / "contest/data/book.txt")),
        (Path("contest/t.yaml"), Path("elsewhere/out"), "../../contest/data/book.txt"),
    ]:
        ran = CliRunner().invoke(cli, ["run", str(config), "--out", str(out), "-q"],
                                 catch_exceptions=False)
        assert ran.exit_code == 0, ran.output
        games = list(results.iter_games(out / results.GAMES))
        assert len(games) == 2 and all(g["faults"] == [] for g in games)
        saved = yaml.safe_load((out / results.CONFIG).read_text())
        assert saved["entrants"][1]["command"][2:] == [written, "absent.txt"]
    monkeypatch.chdir(tmp_path / "contest-2026")  # the saved config works from anywhere
    from arena.tournament.load import load_tournament

    again = load_tournament(tmp_path / "elsewhere" / "out" / results.CONFIG)
    assert again.entrants[1].command[2:] == (  # type: ignore[index]
        str(tmp_path / "contest" / "data" / "book.txt"), "absent.txt")


def test_the_command_a_config_gives_is_what_the_bot_receives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.tournament.load import load_tournament

    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "book.txt").write_text("x\n")
    (tmp_path / "link").symlink_to("real")
    config = tmp_path / "link" / "t.yaml"
    config.write_text(textwrap.dedent(f"""
        name: t
        rules: dice
        entrants:
          - random
          - command: ["{sys.executable}", "{ZOO / 'arguments.py'}", book.txt, --depth, "3"]
            alias: theirs
    """).lstrip())
    monkeypatch.chdir(tmp_path / "real")
    cfg = load_tournament(config)
    assert cfg.entrants[1].command[2:] == (str(tmp_path / "link" / "book.txt"), "--depth", "3")
    host = CommandHost(cfg.entrants[1].command or (), ProcessLimits(start_timeout=20.0))
    try:
        play_game("dice", [Player("a", host), "random"], seed=2)
        seen = _arguments(host.stderr_tail())
    finally:
        host.shutdown()
    assert seen == [_seen(tmp_path / "link" / "book.txt"), "--depth", "3"]


OKBOT = f"""#!{sys.executable}
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({{"type": "hello", "protocol": 2, "name": "okbot"}}), flush=True)
    elif message["type"] == "start":
        print(json.dumps({{"type": "ready"}}), flush=True)
    elif message["type"] == "shutdown":
        break
"""


@pytest.mark.parametrize("program", ["./okbot", "okbot-dir/../okbot"])
@pytest.mark.parametrize("cwd", ["contest", "elsewhere"])
def test_a_program_with_a_slash_is_taken_from_the_configs_folder_whatever_it_starts_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, program: str, cwd: str
) -> None:
    """`command: ["./okbot"]`, as docs/config.md shows it, is the program beside the config,
    from the config's own folder as from any other (issue 32, item 3): never a PATH lookup,
    which would say it is not there, or run another program of that name."""
    contest = tmp_path / "contest"
    (contest / "okbot-dir").mkdir(parents=True)
    (contest / "okbot").write_text(OKBOT)
    (contest / "okbot").chmod(0o755)
    (tmp_path / "elsewhere").mkdir()
    (contest / "t.yaml").write_text(textwrap.dedent(f"""
        name: t
        rules: dice
        entrants:
          - random
          - command: ["{program}"]
            alias: theirs
    """).lstrip())
    monkeypatch.chdir(tmp_path / cwd)
    config = os.path.relpath(contest / "t.yaml")
    checked = CliRunner().invoke(cli, ["validate", config], catch_exceptions=False)
    assert (checked.exit_code, checked.stderr) == (0, ""), checked.output
    assert checked.stdout == (
        "ok: 2 entrants, 2 games\n"
        "entrant 'theirs' (command): says it is 'okbot', rule sets not said\n")


def test_a_program_with_a_slash_not_in_the_configs_folder_is_looked_for_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A missing program is named where it was looked for: the config's folder."""
    (tmp_path / "contest").mkdir()
    (tmp_path / "contest" / "t.yaml").write_text(textwrap.dedent("""
        name: t
        rules: dice
        entrants:
          - random
          - command: ["./no-such-bot"]
            alias: theirs
    """).lstrip())
    monkeypatch.chdir(tmp_path)
    checked = CliRunner().invoke(cli, ["validate", "contest/t.yaml"], catch_exceptions=False)
    assert (checked.exit_code, checked.stdout) == (2, "")
    assert checked.stderr == (
        "arena: error: contest/t.yaml:5: entrants.1.command: program 'contest/no-such-bot' "
        f"not found (looked at {tmp_path}/contest/no-such-bot)\n")
