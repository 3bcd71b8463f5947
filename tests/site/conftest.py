"""The site's fixtures: a contest (a small ladder config and a data folder of its own, in a
temporary folder) that Django's settings point at, and participants signed in or not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from arena.site.contest.contest import Contest, current

DATABASE_FIXTURES = frozenset({"db", "transactional_db", "live_server",
                               "django_db_reset_sequences", "django_db_serialized_rollback"})
"""pytest-django's fixtures that open the test database (a test without one, or the
django_db mark, is refused it by pytest-django, and its subprocesses drop the site's
database from their environment: it runs the same on any database)."""

LADDER = """\
name: season
rules: dice
options: {max_points: 2}
entrants: [honest, random]
format: {type: ladder, seats: 2, min_games: 4, batch: 2, band: 2, final_games: 1}
"""


ANY_DATABASE = "any_database"
"""The mark of a test that opens the database but whose promise is not the database's
(`@pytest.mark.any_database("why")`): a parser, a sandbox, a middleware or a client that
answers before any query, or queries another test already runs on PostgreSQL. The second
run leaves it out; a test without it runs on both databases."""


def pytest_configure(config: pytest.Config) -> None:
    """The mark is the site's own (pyproject's markers are the whole suite's)."""
    config.addinivalue_line("markers", f"{ANY_DATABASE}(why): the same on any database; "
                            "left out of the second run, on PostgreSQL (tests/site/conftest.py)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With --database-tests-only (the second run, on PostgreSQL: test_on_postgresql.py),
    only the tests whose promise is the database's run: the others would repeat the first
    run's, slower."""
    unexplained = [item.nodeid for item in items if not reason_given(item)]
    if unexplained:
        raise pytest.UsageError(f"{ANY_DATABASE} needs its reason: {', '.join(unexplained)}")
    if not config.getoption("database_tests_only", default=False):
        return
    kept = [item for item in items if on_postgresql(item)]
    config.hook.pytest_deselected(items=[item for item in items if not on_postgresql(item)])
    items[:] = kept


def on_postgresql(item: pytest.Item) -> bool:
    """Whether the second run runs the test: it uses the database and is not marked as the
    same on any database."""
    return uses_the_database(item) and item.get_closest_marker(ANY_DATABASE) is None


def reason_given(item: pytest.Item) -> bool:
    """Whether the test, if marked the same on any database, says why."""
    mark = item.get_closest_marker(ANY_DATABASE)
    return mark is None or bool(mark.args and str(mark.args[0]).strip())


def uses_the_database(item: pytest.Item) -> bool:
    """Whether the test opens the site's database (one of pytest-django's fixtures, or its
    django_db mark)."""
    return (item.get_closest_marker("django_db") is not None
            or not DATABASE_FIXTURES.isdisjoint(getattr(item, "fixturenames", ())))


@pytest.fixture(autouse=True, scope="session")
def _static_files_found_once() -> Iterator[None]:
    """The static files WhiteNoise finds and reads the headers of, found once a process: the
    test client makes the site's middleware anew for each client, and WhiteNoise's walked
    and stat'ed the installed packages' 167 files each time (~10 ms, 220 times a run of the
    site's database tests). The files do not change during a run; each client's middleware
    still has its own table of them, made by WhiteNoise's own code the first time."""
    from whitenoise.middleware import WhiteNoiseMiddleware

    found: dict[tuple[object, ...], dict[str, object]] = {}
    find = WhiteNoiseMiddleware.add_files_from_finders

    def found_once(self: WhiteNoiseMiddleware) -> None:
        immutable = self.immutable_file_test  # WhiteNoise's own method unless set
        key = (self.static_prefix, self.max_age, self.allow_all_origins, self.charset,
               self.add_headers_function, self.index_file, getattr(immutable, "__func__",
                                                                   immutable))
        if key not in found:
            before = dict(self.files)
            find(self)
            found[key] = {url: f for url, f in self.files.items() if before.get(url) is not f}
        self.files.update(found[key])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(WhiteNoiseMiddleware, "add_files_from_finders", found_once)
        yield


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
