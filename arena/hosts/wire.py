"""The lines the referee writes to a bot in its own process (docs/protocol.md): each event's
line (arena.hosts.text, the one text of events) made once for every seat that sees it, and
each seat's events of the game kept, so that a request carries where the round's history
starts instead of the history itself, and a bot restarted mid-game can be sent the game so
far.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from arena.hosts.codec import observation_to_json
from arena.hosts.text import event_line
from arena.rules.base import Event, Observation

PROTOCOL = 2
"""The version the referee offers in `hello`."""
SPOKEN = (1, 2)
"""The versions a bot may answer `hello` with: version 1 gets the history in every request."""


_encode = json.JSONEncoder(separators=(",", ":"), default=str).encode
_encode_plain = json.JSONEncoder(separators=(",", ":"), default=str, check_circular=False).encode
"""For the lines of every decision, built by the codec from events and observations (plain
data, never circular): not tracking every list and dict saves an eighth of the encoding."""


def line(message: Mapping[str, Any]) -> bytes:
    """One protocol line: compact JSON and a newline."""
    return (_encode(message) + "\n").encode()


class SeatLog:
    """The events one seat was sent in the game in progress, and how many of them the bot's
    current process has received."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.lines: list[bytes] = []
        self.publics: list[int] = []
        """Positions in `events` of the public ones (what a round's history is made of)."""
        self.delivered = 0

    def add(self, event: Event) -> None:
        """Keep an event for the next request."""
        if event.to is None:
            self.publics.append(len(self.events))
        self.events.append(event)
        self.lines.append(event_line(event))

    def rewind(self) -> None:
        """A new bot instance (a restarted process) is sent the whole game so far."""
        self.delivered = 0

    def flush(self, request: bytes) -> bytes:
        """The events not yet delivered, then the request, as one write (one wake-up)."""
        if self.delivered == len(self.lines):
            return request
        data = b"".join([*self.lines[self.delivered:], request])
        self.delivered = len(self.lines)
        return data

    def history_from(self, history: Sequence[Event]) -> int:
        """Where the observation's history starts among the events sent to this seat. The
        referee sent them all; a caller that did not gets them sent now."""
        count = len(history)
        if count == 0:
            return len(self.events)
        publics, events = self.publics, self.events
        if count <= len(publics) and [events[i] for i in publics[-count:]] == list(history):
            return publics[-count]
        start = len(events)
        for event in history:
            self.add(event)
        return start

    def act_line(self, turn: int, time: float, observation: Observation, protocol: int) -> bytes:
        """The `act` request: version 2 says where the history starts, version 1 repeats it."""
        if protocol == 1:
            encoded = observation_to_json(observation)
        else:
            encoded = observation_to_json(observation, history=False)
            encoded["history_from"] = self.history_from(observation.history)
        return (_encode_plain({"type": "act", "turn": turn, "time": time,
                               "observation": encoded}) + "\n").encode()
