"""Zoo: allocates far beyond its memory limit (expected fault: crash, 'MemoryError')."""

from __future__ import annotations

from types import MappingProxyType

import arena


class Glutton(arena.Bot):
    name = "zoo-glutton"
    options = MappingProxyType({"bytes": 8 << 30})

    def act(self, observation: arena.Observation) -> arena.Action:
        hoard = bytearray(self.settings["bytes"])
        raise AssertionError(f"got {len(hoard)} bytes")
