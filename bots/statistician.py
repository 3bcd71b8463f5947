"""The `statistician` bot: exact probabilities from everything its seat has seen.

It decides from `arena.odds.memory` (what its seat saw) and `arena.odds.probability` (exact tables).
It must not use randomness (it is deterministic) nor keep anything beyond the current game,
and it must stay far inside the time limit: a few milliseconds per decision on average.
"""

from __future__ import annotations

import itertools
from functools import cache
from types import MappingProxyType

from arena_bots.decisions import choose_receiver
from arena_bots.memory import Remembering, fraction_option

import arena
from arena.bot import BotContext
from arena.odds import probability
from arena.odds.memory import CentralMemory, RoundMemory, tokens
from arena.odds.probability import CardTables, DiceTables

BAR_WEIGHT = 0.1
"""Weight of 'how hard the claim is to beat' against 'the claim is true' in a reroll choice."""


class Statistician(Remembering):
    """Plays the odds: exact probabilities from everything it has seen, no bluffing by choice.

    How it plays. It computes the exact chances of every hand from what its seat has seen:
    the dice or cards it looked at, the public reroll, exchange and swap counts since then
    (the rerolled positions taken as unknown), the cards it knows are out of the deck. It
    also weighs the claims themselves: a claim by someone who saw the hand counts as
    evidence, mixing two models of the claimant (honest: claims its true value, or the
    lowest legal claim when it has nothing better; careless: claims without regard to the
    hand, mostly a little above the lowest legal claim), and it learns which model fits
    each opponent from every hand it later sees that opponent claim on (when it looks, or
    at a challenge).

    - Respond/accept: challenges (rejects) when the probability that the claim holds is below
      its `threshold` option (default 0.5); otherwise it looks (never passes blind) or accepts.
    - Reroll/exchange: keeps the dice or cards that maximise the chance of a true claim above
      the one to beat, then (a little) how hard the result is to beat.
    - Claim: its true value when that is legal, else the lowest legal claim.
    - `cards` turn: puts the best 5 of its 10 cards in the central hand (keeping its best
      private cards on ties), claims their true value when legal, reveals nothing.
    """

    name = "statistician"
    rules = ("dice", "dice-cards", "cards")
    description = "Exact odds from all it has seen; challenges below a threshold (option)."
    options = MappingProxyType({"threshold": 0.5})

    def __init__(self, context: BotContext) -> None:
        super().__init__(context)
        self.threshold = self._threshold(context)

    def _threshold(self, context: BotContext) -> float:
        """Below this chance that a claim holds, it challenges: its `threshold` option."""
        return fraction_option(self.name, "threshold", self.settings["threshold"])

    def act(self, observation: arena.Observation) -> arena.Action:
        """Choose by the exact odds of what this seat has seen."""
        if self.central is not None:
            return self._central_hand(observation, self.central)
        assert self.round is not None
        return self._round(observation, self.round)

    # --- dice and dice-cards -------------------------------------------------------------

    def _round(self, observation: arena.Observation, memory: RoundMemory) -> arena.Action:
        legal = observation.legal
        if observation.hand is not None:
            memory.saw(tokens(observation.hand, memory.cards))
        if legal.decision == "respond":
            if not legal.can_claim() or self._doubts(memory.holds(self._claim(observation))):
                return arena.Challenge()
            return arena.Look()
        assert memory.known is not None
        if legal.decision == "choose":
            return choose_receiver(observation)
        if legal.decision == "reroll":
            return arena.Reroll(best_reroll(memory, legal.min_index, legal))
        return arena.Bid(self.space.claims[self._bid(memory, legal.min_index)])

    def _bid(self, memory: RoundMemory, floor: int) -> int:
        """The claim to make (an index): the true value when legal, else the lowest claim."""
        assert memory.known is not None
        return max(memory.tables.hand_value(memory.known), floor)

    def _claim(self, observation: arena.Observation) -> int:
        assert observation.claim is not None
        return probability.claim_index(self.space, observation.claim)

    def _doubts(self, holds: float) -> bool:
        return holds < self.threshold

    # --- cards ---------------------------------------------------------------------------

    def _central_hand(self, observation: arena.Observation, memory: CentralMemory) -> arena.Action:
        legal = observation.legal
        if legal.decision == "accept":
            if not legal.can_claim():
                return arena.Challenge()
            holds = memory.holds(observation, self._claim(observation))
            return arena.Challenge() if self._doubts(holds) else arena.Accept()
        return best_pass(observation, memory.tables, keep_private=True)


def best_reroll(memory: RoundMemory, target: int,
                legal: arena.Legal | None = None) -> tuple[int, ...]:
    """Positions to reroll that maximise P(a true claim >= target), then how hard it is to beat,
    among the rerolls `legal` allows (rule options may forbid some)."""
    hand = memory.known
    assert hand is not None
    tables = memory.tables
    allowed = None if legal is None else {reroll.positions for reroll in legal.rerolls()}
    keeps = [keep for keep in KEEPS_OF[len(hand)]
             if allowed is None or REROLLED[len(hand), keep] in allowed]
    kept = {keep: tuple(sorted(map(hand.__getitem__, keep))) for keep in keeps}
    scores: dict[tuple[int, ...], float] = {}
    if isinstance(tables, DiceTables):
        for tokens_kept in set(kept.values()):
            scores[tokens_kept] = (tables.reach[tokens_kept][target]
                                   + BAR_WEIGHT * tables.edge[tokens_kept][target])
    else:
        pool, gain = memory.pool(), _gain(tables.space.straight_over_full)
        memo: dict[int, float] = {}
        for tokens_kept in set(kept.values()):
            scores[tokens_kept] = tables.draw_score(tokens_kept, pool, target, gain, memo)
    score = {keep: scores[kept[keep]] for keep in keeps}
    best = max(score.values())
    choices = [REROLLED[len(hand), keep] for keep in keeps if score[keep] >= best - 1e-12]
    return min(choices, key=lambda positions: (len(positions), positions))


@cache
def _gain(straight_over_full: bool) -> tuple[float, ...]:
    """What a true claim of each card value is worth in a reroll choice (see BAR_WEIGHT)."""
    return tuple(1 + BAR_WEIGHT * s for s in probability.card_tables(straight_over_full).strength)


KEEPS_OF = tuple(tuple(keep for size in range(n + 1)
                       for keep in itertools.combinations(range(n), size)) for n in range(6))
"""By the hand's size (5, fewer in a reduced game): every set of positions a reroll may keep."""
REROLLED = {(n, keep): tuple(p for p in range(n) if p not in keep)
            for n in range(6) for keep in KEEPS_OF[n]}
"""The positions rerolled when these are kept, by the hand's size."""


def best_pass(
    observation: arena.Observation, tables: CardTables, keep_private: bool
) -> arena.Pass:
    """Pass the best central hand that 5 of the 10 cards make, with its true value if legal."""
    own = tokens(observation.hand or (), cards=True)
    central = tokens(observation.central or (), cards=True)
    chosen, value = best_central(own, central, tables, keep_private)
    claim = max(value, observation.legal.min_index)
    return arena.Pass(tables.space.claims[claim], swaps_for(own, central, chosen))


def best_central(
    own: tuple[int, ...], central: tuple[int, ...], tables: CardTables, keep_private: bool
) -> tuple[frozenset[int], int]:
    """The 5 of these 10 cards worth most as a central hand, and their value (claim index).

    Ties go to the choice that leaves the best private hand (when `keep_private`), then to
    the fewest swaps.
    """
    cards = own + central
    values = dict(zip(itertools.combinations(cards, 5), tables.five_values(cards), strict=True))
    top = max(values.values())

    def tie_break(combo: tuple[int, ...]) -> tuple[int, int]:
        rest = [c for c in cards if c not in combo]
        private = tables.hand_value(rest) if keep_private else 0
        return private, -sum(1 for c in combo if c in own)

    best = max((combo for combo, value in values.items() if value == top), key=tie_break)
    return frozenset(best), top


def swaps_for(
    own: tuple[int, ...], central: tuple[int, ...], chosen: frozenset[int]
) -> tuple[tuple[int, int], ...]:
    """The (own position, central position) swaps that make `chosen` the central hand."""
    going_in = [i for i, card in enumerate(own) if card in chosen]
    coming_out = [j for j, card in enumerate(central) if card not in chosen]
    return tuple(zip(going_in, coming_out, strict=True))
