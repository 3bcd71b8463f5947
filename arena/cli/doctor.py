"""`arena doctor`: which walls this machine puts around an untrusted bot, what each stops, how
to install a missing one, and the isolation level that follows; and the `--isolation`
option every command that plays games shares, which refuses a level this machine cannot
give in one line, before any bot starts (docs/security.md)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from arena.cli.cluster import chosen_cluster, cluster_options, given_flags
from arena.cli.main import fail, isolation_option
from arena.hosts.inline import printable

if TYPE_CHECKING:
    from arena.executor.cluster import Cluster

__all__ = ["doctor", "isolation_level", "isolation_line", "isolation_option"]
LEVEL_WORDS = {
    "strict": "every wall, for bots written by strangers",
    "standard": "bubblewrap and seccomp; the other walls where present",
    "none": "no sandbox, for bots you trust only",
}


def isolation_level(name: str | None) -> str:
    """The level to play at, checked against this machine, or the one-line error."""
    from arena.hosts.walls import IsolationError, level

    try:
        return level(name).name
    except IsolationError as exc:
        fail(str(exc))
        raise  # unreachable: fail exits


def isolation_line(name: str) -> str:
    """'isolation: strict (bubblewrap 0.8.0, seccomp, Landlock 7, cgroups v1, ...)'."""
    from arena.hosts.walls import level

    return f"isolation: {level(name).describe()}"


@click.command(name="doctor")
@cluster_options
def doctor() -> None:
    """Say which walls this machine gives untrusted bots, and the isolation level they make;
    with --cluster, the level each worker of that Dask cluster gives, one line each."""
    from arena.hosts.walls import NEEDS, strongest, survey

    cluster = chosen_cluster(given_flags())
    if cluster is not None:
        _workers(cluster)
        return
    walls = survey()
    for wall in walls:
        mark = "found  " if wall.found else "missing"
        click.echo(f"{mark} {wall.name}: {wall.detail}")
        click.echo(f"        stops: {wall.protects}")
        if not wall.found:
            click.echo(f"        install: {wall.install}")
    best = strongest(walls)
    click.echo(f"level: {best}: {LEVEL_WORDS[best]}")
    for name in ("strict", "standard"):
        missing = [w.name for w in walls if w.key in NEEDS[name] and not w.found]
        if missing:
            click.echo(f"{name} would need: {', '.join(missing)}")


def _workers(cluster: Cluster) -> None:
    """One line per worker of the cluster: its level as `arena doctor` words it there, and
    what it lacks for strict (a worker below a run's level refuses its games); exit 1 if a
    worker's answer could not be read."""
    from arena.executor.cluster import ClusterError

    try:
        client = cluster.connect()
    except ClusterError as exc:
        fail(str(exc))
    try:
        addresses = sorted(client.scheduler_info(n_workers=-1)["workers"])
        said = {address: _asked(client, address) for address in addresses}
    finally:
        client.close()
    click.echo(f"cluster {cluster.address}: {len(said)} workers")
    for address, line in said.items():
        click.echo(f"worker {address}{line}")
    if any(not line.startswith(" (") for line in said.values()):
        sys.exit(1)


REFUSED = ("its answer named code this process does not run: refused; it runs other code "
           "than arena's")


def _asked(client: Any, address: str) -> str:
    """One worker's answer, asked of it alone so that a worker that lies is named: ' (host):
    level ...', or ': what went wrong' in one line."""
    from arena.executor.pickles import PickleRefused, unreadable_error

    try:
        answer = client.run(level_here, workers=[address], on_error="return").get(address)
    except PickleRefused:
        return f": {REFUSED}"
    if unreadable_error(answer) or isinstance(answer, PickleRefused):
        return f": {REFUSED}"
    if isinstance(answer, BaseException):
        return f": failed: {' '.join(str(answer).split()) or type(answer).__name__}"
    if not (isinstance(answer, tuple) and len(answer) == 2
            and all(isinstance(part, str) for part in answer)):
        return ": its answer is not arena's: it runs other code than arena's"
    return f" ({printable(answer[0])}): {printable(answer[1])}"


def level_here() -> tuple[str, str]:
    """On a worker: its host name, and 'level L: words' with what strict would need."""
    import socket

    from arena.hosts.walls import NEEDS, strongest, survey

    walls = survey()
    best = strongest(walls)
    missing = [w.name for w in walls if w.key in NEEDS["strict"] and not w.found]
    need = f"; strict would need: {', '.join(missing)}" if missing else ""
    return socket.gethostname(), f"level {best}: {LEVEL_WORDS[best]}{need}"
