"""`arena serve CONFIG`: a contest's or a class's site on this machine, and its season.

The site is Django's WSGI application served by waitress (threads; static files by
whitenoise in the same server), on 127.0.0.1 unless told; behind a real web server in public
(docs/site.md). The season process, which alone runs bots, is `arena site season` in a
process of its own: started here, started again when it stops (it resumes the ladder, so a
crash loses nothing played), and stopped with the site.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

import click

from arena.cli.main import fail
from arena.cli.site import has_season, open_site

__all__ = ["SeasonProcess", "database_text", "serve"]

THREADS = 8
"""Requests served at once: a class's htmx polling is many small requests."""
STOPPED = {signal.SIGINT: ("Ctrl-C", 130), signal.SIGTERM: ("SIGTERM", 143),
           signal.SIGHUP: ("SIGHUP", 129)}
"""The signals that stop the site, as said and as exit status (128 + the signal)."""


@click.command(name="serve")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--data", type=click.Path(file_okay=False), default=None,
              help="The site's data folder: database, secret key, uploads (default: "
                   "results/<name>-site; never served).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (127.0.0.1: this machine only).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="The port to listen on (0: any free one).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="The season's worker processes for games (default: one).")
@click.option("--cluster", metavar="ADDRESS", default=None,
              help="The season plays its games on the Dask cluster at ADDRESS (docs/cluster.md).")
@click.option("--no-season", "no_season", is_flag=True,
              help="Serve the pages only; run `arena site season` elsewhere.")
def serve(config: str, data: str | None, host: str, port: int, workers: int | None,
          cluster: str | None, no_season: bool) -> None:
    """Serve a contest's site (uploads, leaderboard, bot pages, the admin) and run its
    season, until Ctrl-C (exit status 130). docs/site.md says how to run it in public."""
    if not no_season and not has_season():
        fail("this arena has no season process yet (arena.site.season is missing): serve "
             "with --no-season")
    folder = open_site(config, data)
    from django.conf import settings
    from waitress import create_server  # type: ignore[import-untyped]  # it has no hints

    from arena.site.contest.contest import current
    from arena.site.contest.uploads import body_limit
    from arena.site.wsgi import application

    try:
        server = create_server(application, host=host, port=port, threads=THREADS,
                               ident="arena", max_request_body_size=body_limit())
    except (OSError, ValueError) as exc:
        fail(f"cannot listen on {host}:{port}: {getattr(exc, 'strerror', None) or exc}")
    season = None if no_season else SeasonProcess(
        season_command(config, folder, workers, cluster), _say)
    address = f"[{host}]" if ":" in host else host
    click.echo(f"arena: serving {current().name} at http://{address}:{server.effective_port} "
               f"(database: {database_text(settings.DATABASES['default'], folder)}; season: "
               f"{'off (--no-season)' if season is None else 'running'})")
    stop = _on_stop()
    try:
        if season is not None:
            season.start()
        server.run()  # returns on a stopping signal (see _on_stop)
    except SystemExit:
        pass  # a stopping signal before the server's loop had started
    finally:
        if season is not None:
            season.stop()
    said, status = STOPPED[stop.get("signal", signal.SIGINT)]
    click.echo(f"arena: stopped serving ({said})", err=True)
    sys.exit(status)


def _on_stop() -> dict[str, signal.Signals]:
    """Make SIGTERM and SIGHUP (a closed terminal) stop the server as Ctrl-C does, so the
    season process is stopped with it; which signal came, once it has."""
    came: dict[str, signal.Signals] = {}

    def stopping(number: int, frame: FrameType | None) -> None:
        came.setdefault("signal", signal.Signals(number))
        raise SystemExit  # waitress's loop ends on it, as on KeyboardInterrupt

    for each in STOPPED:
        signal.signal(each, stopping)
    return came


def database_text(database: Mapping[str, Any], folder: Path) -> str:
    """Which database (Django's settings of it) the site uses, in words, never with its
    password."""
    if database["ENGINE"].endswith("sqlite3"):
        return f"SQLite in {folder}"
    where = f"{database['HOST'] or 'localhost'}" + (f":{database['PORT']}" * bool(
        database["PORT"]))
    user = f"{database['USER']}@" if database["USER"] else ""
    return f"PostgreSQL {user}{where}/{database['NAME']}"


def season_command(config: str, data: Path, workers: int | None,
                   cluster: str | None) -> list[str]:
    """`arena site season` for this site, run by this Python."""
    command = [sys.executable, "-m", "arena", "site", "season", str(Path(config).resolve()),
               "--data", str(data)]
    if workers is not None:
        command += ["--workers", str(workers)]
    if cluster is not None:
        command += ["--cluster", cluster]
    return command


def _say(line: str) -> None:
    click.echo(f"arena: {line}", err=True)


class SeasonProcess:
    """The season process, kept running while the site serves: when it stops it is said in
    one line and started again, at once after a long run, later after a quick crash."""

    STEADY = 60.0
    """A run this long was not a crash loop: start it again at once."""
    LONGEST = 60.0
    """The longest pause between two starts of a process that keeps stopping."""

    def __init__(self, command: Sequence[str], say: Callable[[str], None],
                 pause: float = 1.0) -> None:
        self.command = list(command)
        self.say = say
        self.pause = pause
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._thread = threading.Thread(target=self._keep, name="season", daemon=True)

    def start(self) -> None:
        """Start the process, and keep it running until `stop`."""
        self._thread.start()

    def stop(self, grace: float = 10.0) -> None:
        """Stop it (SIGTERM, then SIGKILL after `grace` seconds) and start it no more."""
        with self._lock:
            self._stopping.set()
            process = self._process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._thread.is_alive():
            self._thread.join()

    def _keep(self) -> None:
        delay = self.pause
        while True:
            started = time.monotonic()
            with self._lock:
                if self._stopping.is_set():
                    return
                # a session of its own: the terminal's Ctrl-C reaches the site, which stops it
                self._process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL,
                                                 start_new_session=True)
            code = self._process.wait()
            if self._stopping.is_set():
                return
            steady = time.monotonic() - started >= self.STEADY
            wait, delay = (0.0, self.pause) if steady else (delay, min(delay * 2, self.LONGEST))
            self.say(f"the season process stopped ({_status(code)}); starting it again "
                     "(the ladder goes on from its last saved game)")
            if self._stopping.wait(wait):
                return


def _status(code: int) -> str:
    """A process's end in words: its exit status, or the signal that killed it."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"
