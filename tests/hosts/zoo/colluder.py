"""Zoo: two bots at one table that try to pass their dice (issue 13, item 8). The `tell` one,
at its first decision with dice, serves its hand on an abstract unix socket and a loopback
TCP port, and writes it into /dev/shm; the `listen` one, at each decision, tries all three and
reports what reached it on stderr as `COLLUDE {json}` (a hand, or the error), then plays the
lowest legal action (a connection made is kept for its next decisions: the teller, frozen
while the listener decides, answers in its own turn). Options: `role` (tell or listen),
`port`, `tag` (names the rendezvous).
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
CLIENTS = {"unix": [socket.socket(socket.AF_UNIX) for _ in range(24)],
           "tcp": [socket.socket() for _ in range(24)]}
"""Client sockets of each family, a fresh one for each connection that failed."""


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


_ASKING: dict[str, socket.socket] = {}
"""Connections kept from one decision to the next: the teller is frozen while this bot
decides, so its server answers at its own next decision, into the connection's buffer."""


def _ask(family: str, address: Any) -> str:
    try:
        if family not in _ASKING:
            if not CLIENTS[family]:
                return "error: no socket left"
            client = CLIENTS[family].pop()
            client.settimeout(0.5)
            _ASKING[family] = client
            client.connect(address)  # the kernel accepts it even while the teller is frozen
        return _ASKING[family].recv(100).decode()
    except TimeoutError as exc:
        return f"error: {exc.strerror or exc}"
    except OSError as exc:
        _ASKING.pop(family).close()
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
        elif role == "listen":
            try:
                shm = _shm(tag).read_text()
            except OSError as exc:
                shm = f"error: {exc.strerror}"
            report = {"unix": _ask("unix", f"\0arena-{tag}"),
                      "tcp": _ask("tcp", ("127.0.0.1", port)), "shm": shm}
            sys.stderr.write("COLLUDE " + json.dumps(report) + "\n")
        sys.stderr.flush()
        return observation.legal_actions()[0]
