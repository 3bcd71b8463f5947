"""`arena serve`: a real server in a subprocess answers the contest page and serves htmx's
static file, says in one line where and on what, and stops on Ctrl-C with status 130; the
season process it keeps is started again when it stops, and stopped with the site."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.cli.serve import SeasonProcess, database_text, season_command
from arena.site import CONFIG_ENV, DATA_ENV, DATABASE_ENV

LADDER = ("name: season\nrules: dice\noptions: {max_points: 2}\nentrants: [honest, random]\n"
          "format: {type: ladder, seats: 2, min_games: 4, batch: 2, band: 2}\n")
SERVING = re.compile(r"arena: serving season at http://127\.0\.0\.1:(\d+) \(database: SQLite "
                     r"in (.+); season: off \(--no-season\)\)\n")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str, Path]]:
    """`arena serve CONFIG --no-season --port 0` running: the process, its address, its data
    (its stderr goes to tmp_path/stderr: the requests' log must never fill a pipe)."""
    config = tmp_path / "config.yaml"
    config.write_text(LADDER, encoding="utf-8")
    data = tmp_path / "site"
    env = {k: v for k, v in os.environ.items() if k not in (CONFIG_ENV, DATA_ENV, DATABASE_ENV)}
    with (tmp_path / "stderr").open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", str(config), "--data", str(data),
             "--no-season", "--port", "0"], cwd=tmp_path, env=env, text=True,
            stdout=subprocess.PIPE, stderr=stderr)
    try:
        line = process.stdout.readline()  # type: ignore[union-attr]
        found = SERVING.fullmatch(line)
        assert found is not None, (line, (tmp_path / "stderr").read_text())
        assert found.group(2) == str(data)
        yield process, f"http://127.0.0.1:{found.group(1)}", data
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(30)


def fetch(url: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(url, timeout=60) as response:  # our own server
        return response.status, response.headers["Content-Type"], response.read()


def test_serve_answers_the_page_and_htmx_never_the_data_folder_and_stops_on_ctrl_c(
        served: tuple[subprocess.Popen[str], str, Path]) -> None:
    """The page, htmx and the data folder asked of one server (a start of `arena serve` is
    about 1 s of CPU), then its Ctrl-C."""
    process, base, data = served
    status, _, page = fetch(base + "/")
    assert status == 200 and b"<h1>season</h1>" in page
    script = re.search(rb'<script src="(/static/[^"]*htmx[^"]*\.js)"', page)
    assert script is not None, page
    status, kind, code = fetch(base + script.group(1).decode())
    assert status == 200 and kind.startswith("text/javascript") and b"htmx" in code
    assert (data / "db.sqlite3").exists() and not (data / "static").exists()
    for path in ("/static/../db.sqlite3", "/static/secret-key", "/db.sqlite3", "/secret-key"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            fetch(base + path)
        assert refused.value.code == 404, path
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 130
    err = (data.parent / "stderr").read_text()
    assert err.splitlines()[-1] == "arena: stopped serving (Ctrl-C)"
    assert out == ""


def test_serve_refuses_a_config_with_one_line(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("name: x\nrules: nope\nentrants: [honest]\n", encoding="utf-8")
    done = CliRunner().invoke(cli, ["serve", str(config), "--no-season", "--data",
                                    str(tmp_path / "site")])
    assert done.exit_code == 2
    assert done.output.startswith("arena: error: ") and done.output.count("\n") == 1


def test_a_postgresql_database_is_named_without_its_password(tmp_path: Path) -> None:
    from arena.site.settings import _database

    database = _database("postgresql://coach:hunter2@db.example:5432/arena")
    assert database_text(database, tmp_path) == "PostgreSQL coach@db.example:5432/arena"
    assert database_text(_database(""), tmp_path) == f"SQLite in {tmp_path}"


def test_the_season_command_is_arena_site_season_on_the_same_site(tmp_path: Path) -> None:
    command = season_command("config.yaml", tmp_path, 3, "tcp://10.0.0.1:8786")
    assert command[:5] == [sys.executable, "-m", "arena", "site", "season"]
    assert command[5:] == [str(Path("config.yaml").resolve()), "--data", str(tmp_path),
                           "--workers", "3", "--cluster", "tcp://10.0.0.1:8786"]


def test_a_season_process_that_stops_is_said_and_started_again(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    crash = f"open({str(starts)!r}, 'a').write('x'); raise SystemExit(3)"
    said: list[str] = []
    season = SeasonProcess([sys.executable, "-c", crash], said.append, pause=0.01)
    season.start()
    deadline = time.monotonic() + 120
    while len(said) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    season.stop()
    assert said[:3] == [("the season process stopped (exit status 3); starting it again (the "
                        "ladder goes on from its last saved game)")] * 3
    assert len(starts.read_text()) >= 3


def test_stopping_the_site_stops_the_season_process(tmp_path: Path) -> None:
    pid = tmp_path / "pid"
    wait = (f"import os, time; open({str(pid)!r}, 'w').write(str(os.getpid())); "
            "time.sleep(600)")
    said: list[str] = []
    season = SeasonProcess([sys.executable, "-c", wait], said.append)
    season.start()
    deadline = time.monotonic() + 120
    while not (pid.exists() and pid.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    season.stop()
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid.read_text()), 0)
    assert said == []
