"""cleo.py: a student's bot that believes everything and claims the lowest it may."""

from __future__ import annotations

import arena


class Cleo(arena.Bot):
    """Looks at every claim, rerolls nothing it may keep, and claims the lowest legal claim."""

    name = "cleo"
    rules = ("dice",)

    def act(self, obs: arena.Observation) -> arena.Action:
        if obs.decision == "respond":
            return arena.Look() if obs.legal.can_claim() else arena.Challenge()
        if obs.decision == "choose":
            return arena.Choose(obs.legal.seats[0])
        if obs.decision == "reroll":
            return arena.Reroll(obs.legal.rerollable[:1] if obs.legal.must_reroll else ())
        return arena.Bid(obs.min_claim)
