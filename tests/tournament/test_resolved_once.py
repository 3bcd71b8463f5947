"""Each entrant is resolved once in the main process (issue 33): the config's checks, the
dry run, the warnings and the run share that one resolution; a worker process resolves its
own. A bot file run inline is imported each time it is resolved, so this is its import too."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from cli_support import invoke_cli, write_config

from arena import entrants

BOT = '''
import arena
from arena.rules.playout import random_action


class Mine(arena.Bot):
    name = "mine"
    rules = ("dice",)

    def act(self, observation):
        return random_action(observation.legal, self.rng)
'''


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each bot reference is resolved in this process."""
    seen: Counter[str] = Counter()
    real = entrants.resolve

    def resolve(reference: entrants.Reference, *args: object, **kwargs: object) -> object:
        seen[reference.ref] += 1
        return real(reference, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(entrants, "resolve", resolve)
    return seen


def _config(tmp_path: Path) -> Path:
    (tmp_path / "mine.py").write_text(BOT)
    return write_config(tmp_path, """
        name: once
        rules: dice
        entrants:
          - honest
          - random
          - {bot: mine.py, mode: inline, alias: mine}
          - {bot: mine.py, alias: mine-apart}
        format: {type: round-robin, seats: 2, games: 1}
        seed: 3
        """)


def test_arena_run_resolves_each_entrant_once(tmp_path: Path, counted: Counter[str]) -> None:
    config = _config(tmp_path)
    result = invoke_cli("run", config, "--out", tmp_path / "out", "--workers", "2",
                        "--isolation", "none")
    assert result.exit_code == 0, result.output
    assert dict(counted) == {"honest": 1, "random": 1, str(tmp_path / "mine.py"): 2}


def test_arena_validate_resolves_each_entrant_once(tmp_path: Path,
                                                   counted: Counter[str]) -> None:
    result = invoke_cli("validate", _config(tmp_path), "--isolation", "none")
    assert result.exit_code == 0, result.output
    assert dict(counted) == {"honest": 1, "random": 1, str(tmp_path / "mine.py"): 2}
