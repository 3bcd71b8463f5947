"""Dialling a Dask cluster: its address and TLS files (`Cluster`), checked in one line and
connected to within CONNECT_SECONDS, or a `ClusterError` saying why not. Dask is imported
only when a cluster is asked for (arena's extra `dask`)."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from arena.executor.serve import ExecutorError

__all__ = ["CONNECT_SECONDS", "DIAL_SECONDS", "Cluster", "ClusterError", "install_hint"]

DIAL_SECONDS = 10.0
"""How long Dask keeps trying a scheduler that refuses connections (a closed port)."""
CONNECT_SECONDS = 15.0
"""Longest a connection to the scheduler may take (Dask's own timeout does not cover a port
that accepts but never answers)."""
class ClusterError(ExecutorError):
    """A cluster that cannot be used: Dask missing, no scheduler at the address, bad TLS."""


def install_hint() -> str | None:
    """What to install for `--cluster`, or None when Dask's distributed is there."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return "--cluster needs Dask: pip install 'distributed>=2024.6'"
    return None


@dataclass(frozen=True, slots=True)
class Cluster:
    """A Dask scheduler's address (tcp:// or tls://) and, for TLS, the CA that signed the
    cluster's certificates and this client's own certificate and key (PEM files)."""

    address: str
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None

    def problem(self) -> str | None:
        """Why this cannot be a cluster to connect to, in one line, or None."""
        hint = install_hint()
        if hint is not None:
            return hint
        scheme = self.address.partition("://")[0] if "://" in self.address else ""
        if scheme not in ("tcp", "tls"):
            return (f"cluster address {self.address!r} must start with tcp:// or tls:// "
                    "(the scheduler's address, as `dask scheduler` prints it)")
        if not _host_and_port(self.address):
            return (f"cluster address {self.address!r} must name the scheduler's host and "
                    f"port, as `dask scheduler` prints it ({scheme}://HOST:8786)")
        files = (self.ca_file, self.cert_file, self.key_file)
        if scheme == "tls" and None in files:
            return ("a tls:// cluster needs its CA file and this client's certificate and key "
                    "(--tls-ca, --tls-cert, --tls-key)")
        if scheme == "tcp" and any(files):
            return "TLS files were given for a tcp:// address: use the scheduler's tls:// one"
        return None

    def connect(self, accept: Iterable[type] = ()) -> Any:
        """A Dask client of this cluster, or ClusterError in one line. What the workers send
        it may name no code but the classes in `accept` (arena.executor.pickles)."""
        problem = self.problem()
        if problem is not None:
            raise ClusterError(problem)
        from distributed.security import Security

        from arena.executor.pickles import Guard, client

        security = None
        if self.ca_file is not None:
            security = Security(  # type: ignore[no-untyped-call]
                tls_ca_file=self.ca_file, tls_client_cert=self.cert_file,
                tls_client_key=self.key_file, require_encryption=True)
        made: list[Any] = []

        def dial() -> None:  # a port that accepts but never answers (a dashboard) hangs it
            try:
                made.append(client(Guard(accept), self.address, security=security,
                                   timeout=DIAL_SECONDS, set_as_default=False))
            except Exception as exc:  # noqa: BLE001 - told below, in one line
                made.append(exc)

        dialing = threading.Thread(target=dial, name="arena-dial", daemon=True)
        dialing.start()
        dialing.join(CONNECT_SECONDS)
        if not made:
            raise ClusterError(f"no Dask scheduler answered at {self.address} within "
                               f"{CONNECT_SECONDS:.0f} s (is it the scheduler's address, "
                               "as `dask scheduler` prints it, not its dashboard's?)")
        if isinstance(made[0], Exception):
            said = " ".join(str(made[0]).split()) or type(made[0]).__name__
            raise ClusterError(f"cannot reach the Dask scheduler at {self.address}: {said}")
        return made[0]


def _host_and_port(address: str) -> bool:
    """Whether an address names a host and a numeric port."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(address)
        return bool(parts.hostname) and parts.port is not None
    except ValueError:
        return False
