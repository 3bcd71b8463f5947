"""What a sandboxed Python bot's files import, read once a file as it is (arena.hosts.needs)."""

from __future__ import annotations

import os
from pathlib import Path

from arena.hosts import needs


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
