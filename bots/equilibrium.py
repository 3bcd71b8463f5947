"""The `equilibrium` bot: an exact equilibrium of the reduced one-round two-player `dice` games,
solved by CFR+ in OpenSpiel (`arena.openspiel.solve`, NashConv below 1e-3) and shipped as
tables in bots/equilibria/. It needs no OpenSpiel to play: a table is read with the stdlib.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from importlib import resources
from types import MappingProxyType

import arena
from arena.bot import BotContext
from arena.ecosystem.layout import Layout
from arena.odds.memory import space_of
from arena.rules.base import Event

SOLVED_FOR = MappingProxyType({"max_points": 1, "receiver": "left", "look_must_reroll": False,
                               "reroll_once_per": "turn", "straight_over_full": False})
"""The rule options the tables were solved with (faults aside: they change no decision)."""
Table = dict[str, list[list[float]]]


def sizes() -> tuple[tuple[int, int], ...]:
    """The (dice, faces) sizes shipped, smallest first."""
    names = [f.name for f in resources.files("arena_bots").joinpath("equilibria").iterdir()]
    found = [tuple(map(int, n[len("dice-"):-len(".json.gz")].split("x"))) for n in names
             if n.startswith("dice-") and n.endswith(".json.gz")]
    return tuple(sorted((d, f) for d, f in found))


@cache
def table(dice: int, faces: int) -> Table:
    """The solved policy of one size: information state to [action id, probability]s."""
    path = resources.files("arena_bots").joinpath("equilibria", f"dice-{dice}x{faces}.json.gz")
    data = json.loads(gzip.decompress(path.read_bytes()))
    policy: Table = data["policy"]
    return policy


class Equilibrium(arena.Bot):
    """Plays an equilibrium of the small game it is in, and nothing else.

    How it plays. Its seat's information state is every event the seat was shown, in
    arena's words, as OpenSpiel's `python_arena_dice` writes it; it looks that up in the
    table solved for this size and draws an action with its own generator by the solved
    probabilities. No opponent can gain against it more than the table's exploitability
    (`benchmarks/exploitability.py`). It refuses, at start, any game but a two-player,
    one-round (`max_points: 1`) `dice` game of a shipped size with the solved options.
    """

    name = "equilibrium"
    rules = ("dice",)
    description = "An exact equilibrium of the reduced one-round 2-player dice games (CFR+)."

    def __init__(self, context: BotContext) -> None:
        super().__init__(context)
        space = space_of(context.rules, context.options)
        size = (space.dice, space.faces)
        problem = _refusal(context, size)
        if problem:
            raise ValueError(f"equilibrium: {problem}")
        self.table = table(*size)
        self.layout = Layout(space, 2, central=False)
        self.seen = [f"seat {context.seat}"]

    def notify(self, event: Event) -> None:
        """Every event this seat is shown makes its information state."""
        self.seen.append(str(event))

    def act(self, observation: arena.Observation) -> arena.Action:
        """Draw the solved action of this information state."""
        moves = self.table["\n".join(self.seen)]
        pick = self.rng.random() * sum(p for _, p in moves)
        for action, p in moves:
            pick -= p
            if pick < 0:
                return self.layout.action_of(int(action))
        return self.layout.action_of(int(max(moves, key=lambda m: m[1])[0]))


def _refusal(context: BotContext, size: tuple[int, int]) -> str | None:
    """Why this game is not one the tables were solved for, or None."""
    shipped = sizes()
    names = ", ".join(f"{d}x{f}" for d, f in shipped)
    wrong = {k: context.options.get(k) for k, v in SOLVED_FOR.items()
             if context.options.get(k, v) != v}
    if context.rules != "dice" or context.players != 2 or size not in shipped or wrong:
        return (f"plays only the solved one-round 2-player dice games (options max_points: 1, "
                f"dice and faces one of {names}), not {context.rules} with {context.players} "
                f"players, {size[0]}x{size[1]}" + (f", {wrong}" if wrong else ""))
    return None
