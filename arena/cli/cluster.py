"""The options every command that can play on a Dask cluster shares (`--cluster ADDRESS`
and its TLS files), and the one place they become an `arena.executor.cluster.Cluster`.

A cluster that cannot be used (Dask not installed, an address that is not tcp:// or tls://,
TLS files missing) is one line `arena: error: ...` with exit status 2, before anything is
played; the cluster lost mid-run is `lost`: exit 75, nothing played is lost. This module
never connects to the cluster itself (arena.executor.cluster does).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from arena.cli.main import EXIT_REFEREE_FAILED, fail

if TYPE_CHECKING:
    from arena.executor.cluster import Cluster
    from arena.tournament.config import ClusterConfig

__all__ = [
    "ClusterFlags", "chosen_cluster", "cluster_options", "flags_again", "given_flags", "lost",
    "refuse_open_network",
]

F = TypeVar("F", bound=Callable[..., Any])
ClusterFlags = tuple[str | None, str | None, str | None, str | None]
"""--cluster, --tls-ca, --tls-cert, --tls-key as given (None: not given)."""
_TLS_FLAGS = ("--tls-ca", "--tls-cert", "--tls-key")


def cluster_options(command: F) -> F:
    """`--cluster ADDRESS` and the TLS files, kept in the command's context (read back with
    `given_flags`) so that the commands' own parameters stay as they are."""
    def keep(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        flags = ctx.meta.setdefault("cluster_flags", {})
        flags[param.name] = value
        return value

    options = [
        click.option("--tls-key", metavar="FILE", default=None, expose_value=False,
                     callback=keep, help="This client's private key (PEM) for a tls:// cluster."),
        click.option("--tls-cert", metavar="FILE", default=None, expose_value=False,
                     callback=keep, help="This client's certificate (PEM) for a tls:// cluster."),
        click.option("--tls-ca", metavar="FILE", default=None, expose_value=False,
                     callback=keep, help="The CA that signed the cluster's certificates (PEM)."),
        click.option("--cluster", "cluster", metavar="ADDRESS", default=None,
                     expose_value=False, callback=keep,
                     help="Play on the Dask cluster whose scheduler is at ADDRESS (tcp:// or "
                          "tls://; see docs/cluster.md)."),
    ]
    for option in options:
        command = option(command)
    return command


def given_flags() -> ClusterFlags:
    """The cluster flags of the command being run."""
    flags = click.get_current_context().meta.get("cluster_flags", {})
    return (flags.get("cluster"), flags.get("tls_ca"), flags.get("tls_cert"),
            flags.get("tls_key"))


def chosen_cluster(flags: ClusterFlags, key: ClusterConfig | None = None) -> Cluster | None:
    """The cluster to play on: the flags' (they win), else the config's key, else None (this
    machine); one line and exit 2 if it cannot be used."""
    from arena.executor.cluster import Cluster

    address, *files = flags
    if address is None and key is None:
        if any(files):
            given = ", ".join(f for f, v in zip(_TLS_FLAGS, files, strict=True) if v)
            fail(f"{given}: TLS files are for a tls:// cluster; give its address with --cluster")
        return None
    if address is None and key is not None:
        address = key.address
        files = [flag or mine for flag, mine in zip(files, (key.ca, key.cert, key.key),
                                                    strict=True)]
    cluster = Cluster(str(address), *files)
    problem = cluster.problem()
    if problem is not None:
        fail(problem)
    _quiet_dask()
    for flag, path in zip(_TLS_FLAGS, files, strict=True):
        if path is not None and not Path(path).is_file():
            fail(f"{flag} {path}: no such file")
    return cluster


def refuse_open_network(cluster: Cluster, networked: list[str]) -> None:
    """Refuse an entrant with the network on a cluster without TLS: from a worker its bot
    could reach the scheduler, which runs any task whoever connects sends it."""
    if networked and not cluster.address.startswith("tls://"):
        fail(f"entrant {networked[0]!r} has network: true, and the cluster at "
             f"{cluster.address} has no TLS: its bot could reach the scheduler from a worker "
             "and run code on every worker; play it on a tls:// cluster (docs/cluster.md)")


def _quiet_dask() -> None:
    """Keep Dask's own log (its tracebacks when the scheduler goes) off the user's terminal:
    arena says what happened to the run in one line."""
    import logging

    for name in ("distributed", "tornado", "asyncio"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.CRITICAL + 1)
        for handler in logger.handlers:
            handler.setLevel(logging.CRITICAL + 1)


def flags_again(flags: ClusterFlags) -> list[str]:
    """The cluster flags as given, to repeat them in a command to run again."""
    names = ("--cluster", *_TLS_FLAGS)
    return [part for name, value in zip(names, flags, strict=True) if value is not None
            for part in (name, value)]


def lost(message: str, then: str) -> None:
    """The cluster went away mid-run: say so in one line, and what to do; exit 75 (nothing
    played is lost, run again once the cluster is back)."""
    said = " ".join(message.split())
    click.echo(f"arena: the cluster was lost: {said}; {then}", err=True)
    sys.exit(EXIT_REFEREE_FAILED)

