"""What a sandboxed Python bot's files import, read once a file as it is (arena.hosts.needs)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from arena.hosts import needs, view


def test_a_bot_files_imports_are_read_again_once_it_changes(tmp_path: Path) -> None:
    """Each seat's image asks again; the file is parsed again only when its size or time
    changed, so an edited file's new import is seen (and a file gone imports nothing)."""
    bot = tmp_path / "bot.py"
    bot.write_text("import json\nfrom yaml import safe_load\n\ndef f():\n    import click\n")
    assert needs._imports(str(bot)) == {"json", "yaml", "click"}
    assert needs._imports(str(bot)) == {"json", "yaml", "click"}
    before = os.stat(bot).st_mtime_ns
    bot.write_text("import docutils\n")
    os.utime(bot, ns=(before + 10**9, before + 10**9))
    assert needs._imports(str(bot)) == {"docutils"}
    bot.unlink()
    assert needs._imports(str(bot)) == set()


def _same_stamp(path: Path, like: os.stat_result) -> None:
    """Give `path` the modification time of `like` (what tar, rsync -t or a participant's
    own `touch -r` do)."""
    os.utime(path, ns=(like.st_atime_ns, like.st_mtime_ns))


def test_a_file_rewritten_with_its_old_size_and_time_is_read_again(tmp_path: Path) -> None:
    """Attack (bfb8e20): a bot file rewritten in place, as long as before and stamped with
    its old modification time, must not have its old imports kept for it."""
    bot = tmp_path / "bot.py"
    bot.write_text("import yaml\n")
    assert needs._imports(str(bot)) == {"yaml"}
    old = os.stat(bot)
    bot.write_text("import json\n")  # as long as "import yaml\n"
    _same_stamp(bot, old)
    assert (os.stat(bot).st_size, os.stat(bot).st_mtime_ns) == (old.st_size, old.st_mtime_ns)
    assert needs._imports(str(bot)) == {"json"}


def test_a_file_replaced_by_another_of_its_size_and_time_is_read_again(tmp_path: Path) -> None:
    """Attack: a file replaced whole (renamed over) between the check and the start by one of
    the same size and time, or a symlink turned to such a file, is read as it is now."""
    bot, other = tmp_path / "bot.py", tmp_path / "other.py"
    bot.write_text("import yaml\n")
    old = os.stat(bot)
    assert needs._imports(str(bot)) == {"yaml"}
    other.write_text("import click\n")
    _same_stamp(other, old)
    os.replace(other, bot)
    assert needs._imports(str(bot)) == {"click"}

    link, first, second = tmp_path / "link.py", tmp_path / "a.py", tmp_path / "b.py"
    first.write_text("import docutils\n")
    second.write_text("import pygments\n")
    _same_stamp(second, os.stat(first))
    link.symlink_to(first)
    assert needs._imports(str(link)) == {"docutils"}
    link.unlink()
    link.symlink_to(second)
    assert needs._imports(str(link)) == {"pygments"}


def test_a_bot_folders_swapped_file_is_read_again(tmp_path: Path) -> None:
    """Attack: a folder bot whose helper is swapped for one of its size and time asks for
    what the new helper imports (and no longer what the old one did)."""
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "bot.py").write_text("import helper\n")
    helper = folder / "helper.py"
    helper.write_text("import yaml\n")
    assert "yaml" in needs._imports(str(helper))
    old = os.stat(helper)
    names = {n for f in needs._python_files(str(folder)) for n in needs._imports(f)}
    assert names == {"helper", "yaml"}
    helper.write_text("import json\n")
    _same_stamp(helper, old)
    names = {n for f in needs._python_files(str(folder)) for n in needs._imports(f)}
    assert names == {"helper", "json"}


def test_a_file_too_deep_for_the_parser_imports_nothing_and_raises_nothing(
        tmp_path: Path) -> None:
    """Attack: a bot file nested deeper than Python's parser builds (RecursionError, or a
    MemoryError for a long chain of unary minuses) is no import and no error of the
    referee's: its own process fails to compile it and is blamed for it."""
    for i, text in enumerate(["import yaml\nx = 1" + " + 1" * 300_000 + "\n",
                              "import yaml\nx = " + "-" * 200_000 + "1\n"]):
        bot = tmp_path / f"deep{i}.py"
        bot.write_text(text)
        assert needs._imports(str(bot)) == set()


def test_a_fifo_or_device_named_as_a_bot_file_is_not_read(tmp_path: Path) -> None:
    """Attack: a bot folder's `.py` name made a FIFO (its open waits for a writer: the
    referee would hang) or a symlink to a device that never ends (/dev/zero) after the
    folder was checked imports nothing, at once."""
    fifo = tmp_path / "helper.py"
    os.mkfifo(fifo)
    found: list[set[str]] = []
    reader = threading.Thread(target=lambda: found.append(needs._imports(str(fifo))),
                              daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive():  # let it go before failing
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(5)
    assert found == [set()]
    zero = tmp_path / "zero.py"
    zero.symlink_to("/dev/zero")
    assert needs._imports(str(zero)) == set()


def test_a_bot_played_again_at_its_path_with_a_new_import_is_shown_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack (before this round too): a bot folder at a path played before in this process
    (a season's next version of a bot, unpacked where the last one was) that now imports an
    installed distribution is shown it, not the image made for what its files imported
    then (its import would fail, a fault of the bot's)."""
    made: list[set[str]] = []

    def image(files: view.Files, libraries: bool = True, seat: int = 0) -> Path:
        made.append(set(files.files))
        return tmp_path

    monkeypatch.setattr(view, "image", image)
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "bot.py").write_text("x = 1\n")
    shown = ((), (), (), (str(folder),), ())
    view.system_image(*shown, seat=97)
    (folder / "bot.py").write_text("import pytest\n")
    view.system_image(*shown, seat=97)
    own = {f for f in needs.distribution_files("pytest") if f"{os.sep}_pytest{os.sep}" in f}
    assert own and len(made) == 2
    assert not made[0] & own and own <= made[1]
