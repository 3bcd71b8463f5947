"""Seed derivation: every seed is a pure function of a root seed and names, never of timing."""

from __future__ import annotations

import hashlib

_MASK = (1 << 63) - 1


def derive_seed(root: int, *parts: object) -> int:
    """Return a 63-bit seed from a root seed and a path of names (game id, seat, ...)."""
    text = ":".join([str(root), *(str(p) for p in parts)])
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big") & _MASK
