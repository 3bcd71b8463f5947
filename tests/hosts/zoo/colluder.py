"""Zoo: two bots at one table that try to pass their dice (issue 13, item 8). The `tell` one,
at its first decision with dice, serves its hand on an abstract unix socket and a loopback
TCP port, and writes it into /dev/shm; the `listen` one, at each decision, tries all three and
reports what reached it on stderr as `COLLUDE {json}` (a hand, or the error), then plays the
lowest legal action. Options: `role` (tell or listen), `port`, `tag` (names the rendezvous).
Its sockets are made at import: a sandboxed bot may make none once it plays
(`arena.hosts.gate`), and these test the walls beyond that (an accepted connection is a new
socket too, so only a bot allowed the network, whose gate stays open, serves one).
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from pathlib import Path
from types import MappingProxyType
from typing import Any

import arena

SERVERS = {"unix": socket.socket(socket.AF_UNIX), "tcp": socket.socket()}
CLIENTS = [{"unix": socket.socket(socket.AF_UNIX), "tcp": socket.socket()} for _ in range(24)]
"""A client socket of each family for each decision the listener reports at."""


def _serve(server: socket.socket, message: bytes) -> None:
    while True:
        try:
            connection, _ = server.accept()
        except OSError:
            return
        with connection:
            connection.sendall(message)


def _listen(server: socket.socket, address: Any, message: bytes) -> str:
    try:
        server.bind(address)
        server.listen(4)
    except OSError as exc:
        return exc.strerror or str(exc)
    threading.Thread(target=_serve, args=(server, message), daemon=True).start()
    return "ok"


def _ask(client: socket.socket, address: Any) -> str:
    try:
        with client:
            client.settimeout(0.5)
            client.connect(address)
            return client.recv(100).decode()
    except OSError as exc:
        return f"error: {exc.strerror or exc}"


def _shm(tag: str) -> Path:
    return Path("/dev/shm") / f"arena-collude-{tag}"


class Colluder(arena.Bot):
    name = "zoo-colluder"
    options = MappingProxyType({"role": "listen", "port": 0, "tag": "x"})
    told = False

    def act(self, observation: arena.Observation) -> arena.Action:
        role, tag, port = self.settings["role"], self.settings["tag"], self.settings["port"]
        if role == "tell" and observation.hand is not None and not Colluder.told:
            Colluder.told = True
            message = json.dumps(list(observation.hand)).encode()
            report = {
                "unix": _listen(SERVERS["unix"], f"\0arena-{tag}", message),
                "tcp": _listen(SERVERS["tcp"], ("127.0.0.1", port), message),
            }
            try:
                _shm(tag).write_bytes(message)
                report["shm"] = "ok"
            except OSError as exc:
                report["shm"] = exc.strerror or str(exc)
            sys.stderr.write("TOLD " + json.dumps(report) + "\n")
        elif role == "listen" and CLIENTS:
            clients = CLIENTS.pop()
            try:
                shm = _shm(tag).read_text()
            except OSError as exc:
                shm = f"error: {exc.strerror}"
            report = {"unix": _ask(clients["unix"], f"\0arena-{tag}"),
                      "tcp": _ask(clients["tcp"], ("127.0.0.1", port)), "shm": shm}
            sys.stderr.write("COLLUDE " + json.dumps(report) + "\n")
        sys.stderr.flush()
        return observation.legal_actions()[0]
