"""Zoo: dereferences a null pointer (expected fault: crash, 'SIGSEGV')."""

from __future__ import annotations

import ctypes

import arena


class Segfault(arena.Bot):
    name = "zoo-segfault"

    def act(self, observation: arena.Observation) -> arena.Action:
        ctypes.string_at(0)
        raise AssertionError("still alive after reading address 0")
