"""The built-in bots, each prepared (`Bot.prepare`: their odds tables built): the fork server
of arena's worker processes imports this, so every worker forked from it starts with the
tables built once, shared, as when they were built at import."""

from __future__ import annotations

from arena_bots import Bluffer, Boss, Equilibrium, Honest, RandomBot, Statistician

from arena.bot import prepare

for _bot in (Bluffer, Boss, Equilibrium, Honest, RandomBot, Statistician):
    prepare(_bot)
