"""What a seat remembers: the hand it last saw, what may have changed since, the claims made
about the hand, and how honest each claimant has shown itself to be.

Fed only with the events and observations a seat is given (`notify`, `act`), so whoever uses
it (the built-in bots, the report's chances) never knows more than the seat may. It turns that
knowledge into value distributions with `arena.odds.probability`; it decides nothing, and it
must not import the referee or the rules engines.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any, Protocol

from arena import hands
from arena.odds import probability
from arena.odds.probability import EXACT, CardPool, CardTables, DiceTables, Evidence, exact
from arena.rules.base import Event, Observation


class Seen(Protocol):
    """What a cards seat's belief reads of its observation: its cards and the face-up ones."""

    @property
    def hand(self) -> tuple[str, ...] | None: ...

    @property
    def central(self) -> tuple[str | None, ...] | None: ...


def space_of(rules: str, options: Any) -> hands.ClaimSpace:
    """The claim space of a game, from its rule set and rule options (a reduced `dice` game's
    `dice` and `faces` among them: written only when they are not 5 and 6)."""
    given = options or {}
    sof = bool(given.get("straight_over_full", False))
    return hands.claim_space(hands.hand_kind(rules), sof, int(given.get("dice", 5)),
                             int(given.get("faces", 6)))


def tokens(texts: Iterable[str | None], cards: bool) -> tuple[int, ...]:
    """Dice as ranks 9..14, or cards as numbers 0..51, from their text forms (all seen: a
    seat holding a hand, or taking the central one, sees every card of it)."""
    given = tuple(texts)
    seen = tuple(t for t in given if t is not None)
    if len(seen) < len(given):
        raise ValueError(f"a card face down where all should be seen: {given}")
    return tuple(map(_card_id if cards else _rank_of, seen))


_card_id = lru_cache(maxsize=256)(hands.card_id)  # a seat sees the same few texts all game
_rank_of = lru_cache(maxsize=256)(hands.rank_of)


class Honesty:
    """Log-odds, per seat, that the seat's claims are honest (learned from hands it claimed on)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.log_odds: dict[int, float] = {}

    def learn(self, evidence: Iterable[Evidence], value: int) -> None:
        """Update each claimant's honesty now that the hand its claim was about is known."""
        for e in evidence:
            old = self.log_odds.get(e.seat, 0.0)
            self.log_odds[e.seat] = probability.honesty_update(old, e, value, self.size)


class RoundMemory:
    """One seat's knowledge of the hand in a `dice` or `dice-cards` round.

    `known`: the dice or cards last seen (None before this seat has seen the hand this round);
    `survivors[j]`: probability that j of them are still under the cup after other players'
    unseen rerolls; `seen`: every card seen this round (none of them can be in the deck);
    `evidence`: claims about the current hand by players who saw it.
    """

    def __init__(self, seat: int, space: hands.ClaimSpace) -> None:
        self.seat = seat
        self.space = space
        self.cards = space.kind == hands.CARDS
        self.tables: DiceTables | CardTables = probability.tables_for(space)
        self.honesty = Honesty(len(space))
        self.new_round()

    def new_round(self) -> None:
        """Forget the hand: a new round starts with a new roll or a new deck."""
        self.known: tuple[int, ...] | None = None
        self.survivors: tuple[float, ...] = exact(self.space.dice)
        self.seen: set[int] = set()
        self.evidence: list[Evidence] = []
        self.last_claim = -1

    def notify(self, event: Event) -> None:
        """Take in one event (public, or private to this seat)."""
        kind, data = event.kind, event.data
        if kind == "round":
            self.new_round()
        elif event.to == self.seat and "hand" in data:
            self.saw(tokens(data["hand"], self.cards))
        elif kind == "reroll" and event.seat != self.seat and data.get("count"):
            self.survivors = probability.after_reroll(self.survivors, data["count"])
            self.evidence = []
        elif kind == "reshuffle":  # the discards are back in the deck
            self.seen = set(self.known or ()) if self.survivors == exact(5) else set()
        elif kind == "claim":
            self._claim(event)
        elif kind == "challenge":
            self.honesty.learn(self.evidence, probability.claim_index(self.space, data["value"]))
            self.evidence = []

    def saw(self, hand: tuple[int, ...]) -> None:
        """Remember a hand this seat is looking at; check the claims made about it."""
        if self.evidence:
            self.honesty.learn(self.evidence, self.tables.hand_value(hand))
        self.known, self.survivors, self.evidence = hand, exact(len(hand)), []
        self.seen.update(hand)

    def _claim(self, event: Event) -> None:
        claim = probability.claim_index(self.space, event.data["claim"])
        floor, self.last_claim = self.last_claim + 1, claim
        seat = event.seat
        if seat is not None and seat != self.seat and not event.data.get("blind"):
            self.evidence.append(Evidence(seat, claim, floor))

    def pool(self) -> CardPool:
        """Cards that may still be drawn or be under the cup unseen (dice-cards)."""
        unseen = probability.DECK - self.seen
        if len(unseen) < 5:  # a long round saw nearly the whole deck: forget the discards
            unseen = probability.DECK - set(self.known or ())
        return CardPool.of(unseen)

    def belief(self) -> tuple[float, ...]:
        """Value distribution of the hand now, before weighing the claims made about it."""
        if isinstance(self.tables, DiceTables):
            return probability.dice_belief(self.tables, self.known, self.survivors)
        return probability.card_belief(
            self.tables, (), self.known or (), self.survivors, self.pool()
        )

    def holds(self, claim: int, use_claims: bool = True) -> float:
        """Probability that the hand is worth at least the claim (index)."""
        evidence = self.evidence if use_claims else ()
        return probability.holds_probability(
            self.belief(), claim, evidence, self.honesty.log_odds
        )


class CentralMemory:
    """One seat's knowledge of the central hand in `cards`.

    `known`: the central cards this seat last held (empty for a central hand it has not held);
    `survivors[j]`: probability that j of them are still in it after others' swaps; `gone`:
    cards shown at a reject (discarded for good); `evidence`: claims about the current central
    hand by the players who passed it.
    """

    def __init__(self, seat: int, space: hands.ClaimSpace) -> None:
        self.seat = seat
        self.space = space
        self.tables = probability.card_tables(space.straight_over_full)
        self.honesty = Honesty(len(space))
        self.gone: set[int] = set()
        self.new_central()

    def new_central(self) -> None:
        """Forget the central hand: a fresh one has been dealt."""
        self.known: tuple[int, ...] = ()
        self.survivors: tuple[float, ...] = EXACT
        self.evidence: list[Evidence] = []
        self.last_claim = -1

    def notify(self, event: Event) -> None:
        """Take in one event (public, or private to this seat)."""
        kind, data = event.kind, event.data
        if kind == "central":
            self.new_central()
        elif event.to == self.seat and "central" in data:
            self.saw(tokens(data["central"], cards=True))
        elif kind == "pass":
            self._pass(event)
        elif kind == "challenge":
            shown = tokens(data["hand"], cards=True)
            self.honesty.learn(self.evidence, self.tables.hand_value(shown))
            self.gone.update(shown)
            self.evidence = []

    def saw(self, central: tuple[int, ...]) -> None:
        """Remember the central hand as this seat holds or leaves it; check claims about it."""
        if self.evidence:
            self.honesty.learn(self.evidence, self.tables.hand_value(central))
        self.known, self.survivors, self.evidence = central, EXACT, []

    def _pass(self, event: Event) -> None:
        claim = probability.claim_index(self.space, event.data["claim"])
        floor, self.last_claim = self.last_claim + 1, claim
        if event.seat is None or event.seat == self.seat:
            return
        if event.data.get("swapped"):
            self.survivors = probability.after_reroll(self.survivors, event.data["swapped"])
            self.evidence = []
        self.evidence.append(Evidence(event.seat, claim, floor))

    def belief(self, observation: Seen) -> tuple[float, ...]:
        """Value distribution of the central hand now, before weighing the claims about it."""
        own = tokens(observation.hand or (), cards=True)
        fixed = tokens((c for c in observation.central or () if c is not None), cards=True)
        known = tuple(c for c in self.known if c not in fixed and c not in own)
        pool = probability.DECK - set(own) - set(fixed) - set(self.known) - self.gone
        if len(pool) < 5:  # cannot happen with 3+ players' private hands unseen; stay safe
            pool = probability.DECK - set(own) - set(fixed)
        return probability.card_belief(
            self.tables, fixed, known, self.survivors, CardPool.of(pool)
        )

    def holds(self, observation: Observation, claim: int, use_claims: bool = True) -> float:
        """Probability that the central hand is worth at least the claim (index)."""
        evidence: Sequence[Evidence] = self.evidence if use_claims else ()
        return probability.holds_probability(
            self.belief(observation), claim, evidence, self.honesty.log_odds
        )
