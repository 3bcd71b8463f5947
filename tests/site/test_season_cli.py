"""`arena site season --batch-games N`: the games of a ladder's batch reach the season process
(and a batch of no games is refused in one line)."""

from __future__ import annotations

import os
from typing import Any

import pytest
from click.testing import CliRunner

import arena.site.season
from arena.cli.main import cli
from arena.site import CONFIG_ENV, DATA_ENV
from arena.site.contest.contest import Contest


@pytest.mark.django_db
def test_batch_games_reaches_the_season(contest: Contest,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (CONFIG_ENV, DATA_ENV):
        monkeypatch.setenv(name, os.environ.get(name, ""))
    told: list[dict[str, Any]] = []
    monkeypatch.setattr(arena.site.season, "main", lambda **kw: told.append(kw))
    args = ["site", "season", str(contest.config_path), "--data", str(contest.data)]
    done = CliRunner().invoke(cli, [*args, "--batch-games", "5"])
    assert done.exit_code == 0, done.output
    assert [t["batch_games"] for t in told] == [5]
    refused = CliRunner().invoke(cli, [*args, "--batch-games", "0"])
    assert refused.exit_code == 2 and "--batch-games" in refused.output
    assert len(told) == 1
