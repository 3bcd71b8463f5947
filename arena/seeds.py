"""Seed derivation: every seed is a pure function of a root seed and names, never of timing.

A run's root seed is its secret: drawn with `secrets` when none is given (`draw_secret`),
kept out of every sandbox by the caller. Game seeds are `derive_seed(root, game id)`, so
whoever knows the root and the schedule knows every game's dice; a bot's own generator is
seeded by `bot_seed`, an HMAC keyed by the game's seed, so that nothing a bot is sent (its
generator's seed or state) gives back the game's seed, the dice stream or the game's place
in the schedule. This module reads no file and keeps no state.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

_MASK = (1 << 63) - 1
SECRET_BITS = 63
"""A drawn root seed has as many bits as every seed derived from it."""


def derive_seed(root: int, *parts: object) -> int:
    """Return a 63-bit seed from a root seed and a path of names (game id, seat, ...)."""
    text = ":".join([str(root), *(str(p) for p in parts)])
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big") & _MASK


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed of one seat's generator: HMAC-SHA256 keyed by the game's seed, so a bot that
    learns it cannot work back to the game's seed or forward to the dice."""
    digest = hmac.digest(str(game_seed).encode(), f"bot:{seat}".encode(), "sha256")  # one shot
    return int.from_bytes(digest[:8], "big") & _MASK


def draw_secret() -> int:
    """A fresh secret root seed for a run given none, from the operating system's source."""
    return secrets.randbits(SECRET_BITS)
