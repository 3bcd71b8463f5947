"""The built-in bots, each prepared (`Bot.prepare`), and the odds tables they read built (the
normal order's, dice and cards: a built-in builds its game's in its constructor, which finds
them built): the fork server of arena's worker processes imports this, so every worker forked
from it starts with the tables built once, shared, as when they were built at import."""

from __future__ import annotations

from arena_bots import Bluffer, Boss, Equilibrium, Honest, RandomBot, Statistician

from arena.bot import prepare
from arena.odds import probability

for _bot in (Bluffer, Boss, Equilibrium, Honest, RandomBot, Statistician):
    prepare(_bot)
probability.warm_up()
