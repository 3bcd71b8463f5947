"""A bot file reference is split one way everywhere: `path.py`, or `path.py:Class`."""

from __future__ import annotations

import pytest

from arena.botfile import BotFile


@pytest.mark.parametrize(("ref", "path", "cls"), [
    ("bot.py", "bot.py", None),
    ("bots/my.bot.py:Mine", "bots/my.bot.py", "Mine"),
    ("C:/bots/a.py:B", "C:/bots/a.py", "B"),  # a ':' in the path is not the class's
    ("odd.py:", "odd.py", ""),
])
def test_a_file_reference_is_its_path_and_class_and_written_back_as_it_was(
        ref: str, path: str, cls: str | None) -> None:
    file = BotFile.parse(ref)
    assert file == BotFile(path, cls)
    assert str(file) == ref


@pytest.mark.parametrize("ref", ["random", "package.module:Class", "folder/", "cmd:./bot",
                                 "bot.pyc", "notes.py.txt"])
def test_a_reference_that_names_no_python_file_is_none(ref: str) -> None:
    assert BotFile.parse(ref) is None


def test_a_copy_keeps_the_class_it_names() -> None:
    assert str(BotFile("a/b.py", "Mine").at("/tmp/x/b.py")) == "/tmp/x/b.py:Mine"
    assert str(BotFile("a/b.py").at("/tmp/x/b.py")) == "/tmp/x/b.py"
