"""arena's three rule sets as OpenSpiel games: `import arena.openspiel` registers
`python_arena_dice`, `python_arena_dice_cards` and `python_arena_cards` (docs/rl.md).

An optional extra (`pip install -e '.[openspiel]'`): nothing else in arena imports this.
The games call arena's rules (one rules engine), never a copy of them.
"""

from __future__ import annotations

from arena.openspiel.game import GAMES, NAMES, ArenaGame, register
from arena.openspiel.state import ArenaState

register()

__all__ = ["GAMES", "NAMES", "ArenaGame", "ArenaState", "register"]
