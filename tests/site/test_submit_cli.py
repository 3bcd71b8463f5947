"""`arena submit` end to end against a live site: a file or a folder (zipped the same way
each time) uploads with a token, a refusal is the server's one line and exit 2, and a server
that cannot be reached is exit 75 with nothing uploaded."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from django.contrib.auth.models import User
from upload_support import BOT, token_of

from arena.cli.main import cli
from arena.site.contest.contest import Contest
from arena.site.contest.models import Version

pytestmark = pytest.mark.any_database(
    "its promises are the client's (the bytes it sends, its lines and exit codes); the"
    " server's side of an upload runs on PostgreSQL in test_uploads.py and"
    " test_upload_attacks.py")


def _submit(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, ["submit", *map(str, args)], env=env,
                              catch_exceptions=False)


@pytest.fixture
def site(contest: Contest, live_server: Any) -> str:
    """The address of a live site serving the contest."""
    return str(live_server.url)


def test_submit_uploads_a_file_and_names_its_page(site: str, alice: User,
                                                  tmp_path: Path) -> None:
    bot = tmp_path / "sparrow.py"
    bot.write_bytes(BOT)
    result = _submit(bot, "--server", site, "--token", token_of(alice))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"uploaded sparrow@1: received; its page: {site}/bots/sparrow\n"
    assert Version.objects.get().bot.owner == alice


def test_submit_zips_a_folder_the_same_way_each_time(site: str, alice: User,
                                                     tmp_path: Path) -> None:
    folder = tmp_path / "wren"
    (folder / "lib").mkdir(parents=True)
    (folder / "run.sh").write_text("#!/bin/sh\nexec node bot.js\n")
    (folder / "run.sh").chmod(0o755)
    (folder / "bot.js").write_text("//\n")
    (folder / ".git").mkdir()
    (folder / ".git" / "config").write_text("[core]\n")
    env = {"ARENA_TOKEN": token_of(alice)}
    first = _submit(folder, "--server", site, "--command", "./run.sh", env=env)
    assert first.exit_code == 0, first.output
    assert first.stdout.startswith("uploaded wren@1: received")
    again = _submit(folder, "--server", site + "/", "--command", "./run.sh", env=env)
    assert again.stdout == (f"the same bytes as wren@1 (received): no new version; its page: "
                            f"{site}/bots/wren\n")
    version = Version.objects.get()
    assert (version.kind, version.command, version.filename) == ("archive", ["./run.sh"],
                                                                 "wren.zip")


def test_a_refusal_is_the_servers_one_line_and_exit_2(site: str, alice: User, bob: User,
                                                      tmp_path: Path) -> None:
    bot = tmp_path / "sparrow.py"
    bot.write_bytes(BOT)
    assert _submit(bot, "--server", site, "--token", token_of(alice)).exit_code == 0
    bot.write_bytes(BOT + b"# bob's\n")
    taken = _submit(bot, "--server", site, "--token", token_of(bob))
    assert taken.exit_code == 2
    assert taken.stderr == ("arena: error: refused: its name 'sparrow' is another "
                            "participant's bot 'sparrow' (rename the file)\n")
    wrong = _submit(bot, "--server", site, "--token", "arena_wrong")
    assert wrong.exit_code == 2 and "a valid API token is needed" in wrong.stderr
    assert Version.objects.count() == 1


def test_submit_needs_a_token_and_a_web_address(site: str, tmp_path: Path) -> None:
    bot = tmp_path / "sparrow.py"
    bot.write_bytes(BOT)
    none = _submit(bot, "--server", site, env={"ARENA_TOKEN": ""})
    assert none.exit_code == 2 and "a token is needed" in none.stderr
    ftp = _submit(bot, "--server", "ftp://example.org", "--token", "t")
    assert ftp.exit_code == 2 and "http:// or https://" in ftp.stderr


def test_a_server_that_cannot_be_reached_is_exit_75(tmp_path: Path) -> None:
    bot = tmp_path / "sparrow.py"
    bot.write_bytes(BOT)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    result = _submit(bot, "--server", f"http://127.0.0.1:{port}", "--token", "t")
    assert result.exit_code == 75
    assert result.stderr.startswith(f"arena: cannot reach http://127.0.0.1:{port}/api/submit")


def test_an_oversized_upload_is_refused_not_lost(site: str, alice: User,
                                                 tmp_path: Path) -> None:
    bot = tmp_path / "sparrow.zip"
    bot.write_bytes(b"PK" + bytes(8 * 2**20))
    result = _submit(bot, "--server", site, "--token", token_of(alice))
    assert result.exit_code == 2, result.output
    assert "larger than the site's limit" in result.stderr


def test_a_folder_with_a_symlink_is_refused_before_sending(site: str, alice: User,
                                                           tmp_path: Path) -> None:
    folder = tmp_path / "sparrow"
    folder.mkdir()
    (folder / "bot.py").write_bytes(BOT)
    (folder / "key").symlink_to("/etc/passwd")
    result = _submit(folder, "--server", site, "--token", token_of(alice))
    assert result.exit_code == 2 and "is a symlink" in result.stderr
    assert not Version.objects.exists()
