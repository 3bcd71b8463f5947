"""What a command bot is shown (the red team's findings on issue 13): an argument that names
a folder, /proc or a file only root may read shows nothing, since a bot's command line is not
a way to hand it the machine; and the machine-wide counters in /proc and sysinfo, through
which two bots at one table passed each other a number, read as fixed quiet values."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from isolation_support import LIMITS, zoo
from needs import require

from arena import play_game
from arena.bot import Limits
from arena.hosts import walls
from arena.hosts.pipe import CommandHost
from arena.hosts.sandbox import shown_at
from arena.referee import Player


@pytest.fixture(autouse=True)
def sandboxed() -> None:
    require(walls.level().sandboxed, "the sandbox needs bubblewrap and libseccomp")


def _look(*arguments: str) -> dict:
    """Play one game with the lookout given these arguments; what it reported."""
    host = CommandHost([sys.executable, zoo("lookout.py"), zoo("wire.py"), *arguments], LIMITS)
    try:
        record = play_game("dice", [Player("lookout", host), "random"], seed=2,
                           limits=Limits(2.0))
    finally:
        host.shutdown()
    assert record.faults == ()
    [line] = [t for t in host.stderr_tail().splitlines() if t.startswith("LOOKOUT ")]
    return json.loads(line.removeprefix("LOOKOUT "))


def test_a_command_argument_naming_a_folder_proc_or_a_private_file_shows_nothing(
        tmp_path: Path) -> None:
    entrants = tmp_path / "entrants"
    entrants.mkdir()
    (entrants / "rival.py").write_text("the rival's source\n")
    secret = tmp_path / "secret"
    secret.write_text("359906282255317004\n")
    secret.chmod(0o600)
    book = tmp_path / "book.txt"
    book.write_text("an opening book anyone may read\n")
    book.chmod(0o644)  # in a folder only root may enter: its own mode is what counts
    seen = _look(str(entrants), "/proc", str(secret), str(book))["paths"]
    assert seen[str(entrants)] == {"error": 2}  # not there at all
    assert str(os.getpid()) not in seen["/proc"]["folder"]  # its own /proc, not the machine's
    assert not [name for name in seen["/proc"]["folder"] if name.isdigit()]  # nor its own pid
    assert "file" not in seen[str(secret)], seen
    # a file it is shown that lies in the host's /tmp is named where it sees it (/outside/tmp)
    assert seen[shown_at(str(book))] == {"file": "an opening book anyone may read\n"}


def test_the_machine_wide_counters_read_quiet_in_the_sandbox() -> None:
    if os.geteuid() != 0:
        pytest.skip("the counters are the same walls as root; checked as root in CI")
    seen = _look()
    assert seen["loadavg"] == {"file": "0.00 0.00 0.00 1/1 1\n"}
    assert seen["stat"] == {"file": ""}
    assert "error" in seen["getloadavg"]  # sysinfo refused: no load, no process count
    assert seen["pressure"] in ({"folder": []}, {"error": 2})
    # machine-wide counts another sandbox moves (open ptys, AIO contexts, open files)
    assert seen["pty"] == seen["aio"] == seen["files"] == {"error": 2}
    assert seen["cgroups"] == {"file": ""}


def test_a_bot_cannot_change_its_quiet_proc() -> None:
    """Its /proc is the referee's as made: no counter written, no mode loosened, nothing
    added (read-only, whatever uid the bot runs as), and the counters still read quiet."""
    seen = _look()
    assert all(errno is not None for errno in seen["tampered"].values()), seen["tampered"]
    if os.geteuid() == 0:
        assert seen["loadavg"] == {"file": "0.00 0.00 0.00 1/1 1\n"}


def test_a_link_in_a_bot_s_folder_is_copied_as_a_link_and_nothing_is_done_through_it(
        tmp_path: Path) -> None:
    """A symlink put in a bot's folder after its check (the check refuses one) is copied as a
    link: the referee, which may read what the bot may not, never copies what it points to
    into the bot's copy, nor sets a mode or a time through it."""
    from arena.hosts import view

    secret = tmp_path / "secret"
    secret.write_text("the organiser's")
    secret.chmod(0o600)
    os.utime(secret, ns=(1_000_000_000, 1_000_000_000))
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("x = 1\n")
    (folder / "key").symlink_to(secret)
    root = view.own_copy([str(folder)])
    try:
        assert (secret.stat().st_mode & 0o777, secret.stat().st_mtime_ns) == (0o600, 10**9)
        assert Path(str(root) + str(folder / "key")).is_symlink()
        assert not Path(str(root) + str(secret)).exists()
    finally:
        view.remove_copy(root)
