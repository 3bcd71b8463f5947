"""The one error a tournament raises when it cannot run as asked: one line a user can act on.

Every module of the tournament raises it, so it holds nothing else and imports no other
part of arena; it must never grow logic of its own.
"""

from __future__ import annotations

__all__ = ["TournamentError"]


class TournamentError(Exception):
    """A tournament that cannot run as asked; the message is one line a user can act on."""
