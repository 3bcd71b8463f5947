"""What the season's tests share: bots as their authors upload them, and an upload stored as
the site stores it (store.put, a RECEIVED version): a `.py` file, or a `.zip` or `.tar.gz`
archive of a Python bot folder or of a command bot with its command."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User

from arena.site.contest import store
from arena.site.contest.contest import Contest
from arena.site.contest.models import Bot, Version

ROOT = Path(__file__).resolve().parents[2]

GOOD = """\
import arena


class Good(arena.Bot):
    def act(self, observation: arena.Observation) -> arena.Action:
        return arena.random_action(observation.legal, self.rng)
"""
AGAINST = """\
import arena


class Picky(arena.Bot):
    def act(self, observation: arena.Observation) -> arena.Action:
        if any(name.startswith("NAME") for name in self.context.names):
            raise RuntimeError("I will not play NAME")
        return arena.random_action(observation.legal, self.rng)
"""
"""A bot that passes check-bot but crashes against an opponent whose name starts with NAME."""
BROKEN = "import arena\nclass Broken(arena.Bot):\n    def act(self, o) return 1\n"


def upload(contest: Contest, owner: User, name: str, text: str) -> Version:
    """A new version of `owner`'s bot `name`, its bytes in the store, status RECEIVED."""
    return _version(contest, owner, name, text.encode("utf-8"), f"{name}.py")


def upload_archive(contest: Contest, owner: User, name: str, files: Mapping[str, str],
                   command: tuple[str, ...] = (), suffix: str = ".zip") -> Version:
    """A new version of `owner`'s bot `name`: an archive of a folder `name/` holding `files`
    (a name ending in `.sh` executable), with its command (none: a Python bot folder)."""
    buffer = io.BytesIO()
    if suffix == ".zip":
        with zipfile.ZipFile(buffer, "w") as archive:
            for path, text in files.items():
                info = zipfile.ZipInfo(f"{name}/{path}")
                info.external_attr = (0o100755 if path.endswith(".sh") else 0o100644) << 16
                archive.writestr(info, text)
    else:
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for path, text in files.items():
                data = text.encode("utf-8")
                info = tarfile.TarInfo(f"{name}/{path}")
                info.size, info.mode = len(data), 0o755 if path.endswith(".sh") else 0o644
                archive.addfile(info, io.BytesIO(data))
    return _version(contest, owner, name, buffer.getvalue(), name + suffix, command)


def _version(contest: Contest, owner: User, name: str, data: bytes, filename: str,
             command: tuple[str, ...] = ()) -> Version:
    sha = store.put(data, contest.store)
    bot, _ = Bot.objects.get_or_create(name=name, defaults={"owner": owner})
    number = 1 + bot.versions.count()
    kind = "file" if filename.endswith(".py") else "archive"
    return Version.objects.create(bot=bot, number=number, sha256=sha, kind=kind,
                                  command=list(command), filename=filename, size=len(data))


def command_bot(*crash_against: str) -> str:
    """arena's example command bot (standard library only, run as `python3 bot.py`); with
    `crash_against`, it crashes at the start of a game against a player whose name starts
    with one of those."""
    text = (ROOT / "bots" / "examples" / "example_bot.py").read_text("utf-8")
    if not crash_against:
        return text
    start = '            bot = ExampleBot(message["context"])\n'
    assert start in text
    crash = (f'            if any(str(n).startswith({crash_against!r}) for n in '
             f'message["context"]["names"]):\n'
             f'                raise RuntimeError("I will not play them")\n')
    return text.replace(start, crash + start)


def games(folder: Path) -> list[dict[str, Any]]:
    """games.jsonl's lines."""
    path = folder / "games.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]
