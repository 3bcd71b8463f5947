"""A local best response (Lisy and Bowling 2017) to a fixed bot in two-player `dice`: a lower
bound on that bot's exploitability in games too big to solve (issue 36, item 5).

`LocalBestResponse` is a bot. It is seated by the referee like any other, so it knows only
what its seat is shown; it also knows the opponent's policy (its class, asked as the referee
asks it). At each decision it rebuilds every hidden history of the round that explains what
it saw, each weighed by the chance of the dice and by the opponent's own probability of the
actions it took there (a copy of the opponent, shown the events its seat saw in that history,
is asked what it plays: `opponent_strategy`). It then plays, among a few of its legal actions,
the one whose value over that belief is best, each valued by rollouts to the end of the
round in which the opponent plays its own policy and this seat a fixed simple one.

What it assumes (said by `ASSUMED`): it never passes blind, so every hand the opponent sees
is shown to it by its own next look or challenge, and its belief is exact (save for the
arrangement of dice it has not seen, which it takes sorted); the opponent acts by what its
seat saw, as arena promises, and a mixed one says its probabilities through `strategy`.
Whatever it plays, it plays from its own seat's view, so the points it wins a round over
the even split are a lower bound on the opponent's exploitability (up to sampling error).
"""

from __future__ import annotations

from arena.lbr.measure import Estimate, measure
from arena.lbr.minds import Copier, opponent_strategy
from arena.lbr.response import LocalBestResponse

ASSUMED = ("it never passes blind (so its belief over the hidden dice and what the opponent "
           "saw is exact, unseen dice taken sorted); its own later decisions in a rollout "
           "follow the rollout policy; it maximises the points of the round, not the game")

__all__ = ["ASSUMED", "Copier", "Estimate", "LocalBestResponse", "measure", "opponent_strategy"]
