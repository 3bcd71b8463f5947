"""What the season's tests share: bots as their authors upload them, and an upload stored as
the `uploads` task stores it (the store's sha256 path, a RECEIVED version)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User

from arena.site.contest.contest import Contest
from arena.site.contest.models import Bot, Version

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
    data = text.encode("utf-8")
    sha = hashlib.sha256(data).hexdigest()
    path = contest.store / sha[:2] / sha
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    bot, _ = Bot.objects.get_or_create(name=name, defaults={"owner": owner})
    number = 1 + bot.versions.count()
    return Version.objects.create(bot=bot, number=number, sha256=sha, kind="file",
                                  filename=f"{name}.py", size=len(data))


def games(folder: Path) -> list[dict[str, Any]]:
    """games.jsonl's lines."""
    path = folder / "games.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]
