"""The site's tests again on PostgreSQL, the database a public contest uses (docs/site.md).

Django's settings are read once a process, so the second database is a second pytest process
over tests/site with ARENA_SITE_DATABASE naming the server CI starts (ARENA_TEST_POSTGRES,
set by .ci/run). Locally, without a server, this is skipped with the reason; in CI it fails.
The second run is one process (-n 0) in one pytest-xdist worker of the first, started first,
on a database of its own name: two runs at once on one server never drop each other's.
It runs the tests whose promise is the database's (--database-tests-only, tests/site/conftest.py):
a test without pytest-django's database is refused it, and the processes it starts are given
no ARENA_SITE_DATABASE, so it runs the same on either database and the first run checks it;
a test marked `any_database` says why it is the same on either (its parser, sandbox, browser
or client answers before any query, or its queries run here in another test). The browser
journeys (test_journey.py) are left out: the ladder's makes a PostgreSQL database of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from needs import require

from arena.site import DATABASE_ENV

HERE = Path(__file__).resolve().parent


def own_database(server: str) -> str:
    """The server's URL naming a database of this run's own (pytest-django makes and drops
    test_NAME on the server: NAME need not exist, and another run's is left alone)."""
    parts = urlsplit(server)
    return urlunsplit(parts._replace(path=f"{parts.path.rstrip('/')}_{os.getpid()}"))


@pytest.mark.slow
def test_the_site_s_tests_pass_on_postgresql() -> None:
    server = os.environ.get("ARENA_TEST_POSTGRES", "")
    require(server, "no PostgreSQL server: set ARENA_TEST_POSTGRES=postgresql://USER:PW@HOST/DB")
    env = {**os.environ, DATABASE_ENV: own_database(server)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(HERE), "-p", "no:cacheprovider", "-n", "0",
         "-p", "no:unraisableexception",  # its 5 gc.collect()s at exit: 0.6 s CPU, for
         # warnings only (no test's outcome), which nothing here reads
         "--database-tests-only", "--deselect", f"{Path(__file__).relative_to(HERE.parent.parent)}",
         "--ignore", str(HERE / "test_journey.py")],  # it makes its own PostgreSQL database
        cwd=HERE.parent.parent, env=env, capture_output=True, text=True, check=False)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, f"tests/site on PostgreSQL:\n{lines[-30:]}\n{done.stderr[-2000:]}"
    assert " passed" in lines[-1] and "skipped" not in lines[-1], lines[-1]
    assert " deselected" in lines[-1], lines[-1]  # the tests that need no database
