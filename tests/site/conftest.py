"""The site's fixtures: a contest (a small ladder config and a data folder of its own, in a
temporary folder) that Django's settings point at, and participants signed in or not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from arena.site.contest.contest import Contest, current

LADDER = """\
name: season
rules: dice
options: {max_points: 2}
entrants: [honest, random]
format: {type: ladder, seats: 2, min_games: 4, batch: 2, band: 2, final_games: 1}
"""


@pytest.fixture(autouse=True)
def _quick_password_hashes(settings: object) -> None:
    """Passwords hashed by one MD5 in these tests, not Django's PBKDF2 of a million rounds:
    the tests sign people in and check passwords, never the hash's strength, and PBKDF2 was
    most of their CPU (the site's settings keep Django's default)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # type: ignore[attr-defined]


@pytest.fixture
def contest(tmp_path: Path, settings: object) -> Iterator[Contest]:
    """A served ladder contest in tmp_path: config.yaml, results/season and site/."""
    config = tmp_path / "config.yaml"
    config.write_text(LADDER + f"output: {tmp_path / 'results' / 'season'}\n", encoding="utf-8")
    settings.CONFIG = str(config)  # type: ignore[attr-defined]
    settings.DATA = tmp_path / "site"  # type: ignore[attr-defined]
    current.cache_clear()
    yield current()
    current.cache_clear()


@pytest.fixture
def alice(db: None) -> User:
    """A participant."""
    return User.objects.create_user("alice", password="a long pass phrase 1")


@pytest.fixture
def bob(db: None) -> User:
    """Another participant."""
    return User.objects.create_user("bob", password="another long pass phrase 2")


@pytest.fixture
def signed_in(contest: Contest, alice: User) -> Client:
    """alice, signed in, with CSRF checks on as a browser meets them."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    return client
