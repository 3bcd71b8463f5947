"""ana.py: a student's bot, the first bot of docs/writing-a-bot.md."""

from __future__ import annotations

from collections import Counter

import arena
from arena.hands import value


class MyBot(arena.Bot):
    """Tells the truth when it can; challenges big claims it has not seen."""

    name = "my-bot"
    rules = ("dice", "dice-cards")
    options = {"doubt_from": 3}  # noqa: RUF012  # challenge claims of this category or higher (3: three)

    def act(self, obs: arena.Observation) -> arena.Action:
        if obs.decision == "respond":  # a claim came to us: challenge, or look at the hand
            if not obs.legal.can_claim() or obs.claim.category >= self.settings["doubt_from"]:
                return arena.Challenge()
            return arena.Look()
        if obs.decision == "choose":  # only with the rule option receiver: loser_chooses
            return arena.Choose(obs.legal.seats[0])  # who receives our claim
        order = self.context.options["straight_over_full"]
        mine = value(" ".join(obs.hand), order)  # e.g. "K A Q 9 K" or "Ah Kd 4c 4s Jh"
        if obs.decision == "reroll":  # keep what pairs up, unless the hand is good enough
            if mine >= obs.min_claim and not obs.legal.must_reroll:
                return arena.Reroll(())
            ranks = [token[:-1] if len(token) > 1 else token for token in obs.hand]
            counts = Counter(ranks)
            free = obs.legal.rerollable  # all five, unless rule options forbid some
            lonely = tuple(i for i in free if counts[ranks[i]] == 1)
            return arena.Reroll(lonely or free[:1])  # the lonely dice, else one (if free)
        return arena.Bid(max(mine, obs.min_claim))  # "claim": the truth, or the lowest legal
