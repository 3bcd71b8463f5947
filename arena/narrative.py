"""Games told in plain words: events become lines such as
"seat 1 (bluffer) looks, rerolls 2 dice, claims full K 9".

Pure text: used by `arena play` as a game happens and by `arena replay` afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.rules import description_of
from arena.rules.base import Description, Event

_ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


def ordinal(n: int) -> str:
    """1 -> '1st', 4 -> '4th'."""
    return _ORDINAL.get(n, f"{n}th")


class Narrator:
    """Turns a stream of events into lines, joining one seat's turn into a single sentence.

    `viewer` is the seat whose private events are shown (None: show every private event;
    -1: show none). `rules` is the rule set's description (or a built-in rule set's id): its
    hand kind says dice or cards, and a central hand is rejected rather than challenged."""

    def __init__(self, rules: Description | str, names: Sequence[str],
                 viewer: int | None = -1) -> None:
        self.description = description_of(rules)
        self.rules = self.description.id
        self.names = tuple(names)
        self.viewer = viewer
        self.cards = self.description.hand == "cards"
        self.central = self.description.central
        self.pending: list[str] = []
        self.pending_seat: int | None = None

    def who(self, seat: int | None) -> str:
        """'seat 1 (bluffer)'."""
        if seat is None or seat < 0:
            return "the bank"
        return f"seat {seat} ({self.names[seat]})"

    def feed(self, event: Event) -> list[str]:
        """Return the finished lines this event completes (possibly none)."""
        if event.to is not None and self.viewer is not None and event.to != self.viewer:
            return []
        method = getattr(self, f"_on_{event.kind}", None)
        if method is None:
            return [*self.flush(), f"{self.who(event.seat)} {event.kind}"]
        return method(event)  # type: ignore[no-any-return]

    def flush(self) -> list[str]:
        """Return the sentence in progress, if any."""
        if not self.pending:
            return []
        line = f"{self.who(self.pending_seat)} " + ", ".join(self.pending)
        self.pending, self.pending_seat = [], None
        return [line]

    def _part(self, seat: int | None, text: str, done: bool = False) -> list[str]:
        lines = self.flush() if seat != self.pending_seat else []
        self.pending_seat = seat
        self.pending.append(text)
        return lines + (self.flush() if done else [])

    def _tokens(self, event: Event, key: str = "hand") -> str:
        return " ".join(t or "??" for t in event.data[key])

    # --- dice and dice-cards ----------------------------------------------------------

    def _on_round(self, event: Event) -> list[str]:
        return [*self.flush(), f"-- round {event.data['round']}: {self.who(event.seat)} throws --"]

    def _on_roll(self, event: Event) -> list[str]:
        verb = "sees" if "positions" not in event.data else "gets"
        return self._part(event.seat, f"{verb} [{self._tokens(event)}]")

    _on_deal = _on_roll
    _on_draw = _on_roll

    def _on_see(self, event: Event) -> list[str]:
        key = "central" if "central" in event.data else "hand"
        return self._part(event.seat, f"sees [{self._tokens(event, key)}]")

    def _on_hand(self, event: Event) -> list[str]:
        return self._part(event.seat, f"keeps [{self._tokens(event)}]")

    def _on_choose(self, event: Event) -> list[str]:
        receiver = event.data["receiver"]
        return self._part(event.seat, f"chooses {self.who(receiver)} to receive the cup")

    def _on_look(self, event: Event) -> list[str]:
        return self._part(event.seat, "picks up the cards" if self.cards else "looks")

    def _on_reroll(self, event: Event) -> list[str]:
        count = event.data["count"]
        noun = "card" if self.cards else "die" if count == 1 else "dice"
        if self.cards and count != 1:
            noun = "cards"
        verb = "exchanges" if self.cards else "rerolls"
        return self._part(event.seat, f"{verb} {count or 'no'} {noun}")

    def _on_reshuffle(self, event: Event) -> list[str]:
        return self._part(event.seat, f"(the discards are reshuffled: {event.data['cards']} cards)")

    def _on_claim(self, event: Event) -> list[str]:
        text = f"claims {event.data['claim']}"
        if event.data.get("blind"):
            text = f"passes blind, {text}"
        return self._part(event.seat, text, done=True)

    def _on_challenge(self, event: Event) -> list[str]:
        data = event.data
        shown = "the central hand is" if self.central else "the hand is"
        verdict = "the claim holds" if data["holds"] else "it was a lie"
        verb = self.description.challenge_verb
        return [*self.flush(), (
            f"{self.who(event.seat)} {verb} seat {data['claimant']}'s {data['claim']}: "
            f"{shown} [{self._tokens(event)}] ({data['value']}), {verdict}"
        )]

    def _on_point(self, event: Event) -> list[str]:
        return [f"{self.who(event.seat)} takes a point ({event.data['points']})"]

    def _on_out(self, event: Event) -> list[str]:
        reason = event.data["reason"]
        said = {"points": "is out on points", "chips": "is out of chips",
                "forfeit": "is out by forfeit"}.get(reason, f"is out ({reason})")  # fmt: skip
        return [*self.flush(), f"{self.who(event.seat)} {said}"]

    def _on_penalty(self, event: Event) -> list[str]:
        return [*self.flush(), (f"{self.who(event.seat)} is penalised for fault "
                f"{event.data['faults']}")]

    def _on_fault(self, event: Event) -> list[str]:
        """The fault, then where in the bot's own code it raised (its trace), innermost last."""
        return [*self.flush(), (f"{self.who(event.seat)} FAULT {event.data['kind']}: "
                f"{event.data['message']}"), *(f"    {f}" for f in event.data.get("trace", ()))]

    def _on_over(self, event: Event) -> list[str]:
        return [*self.flush(), "-- game over --"]

    # --- cards ------------------------------------------------------------------------

    def _on_central(self, event: Event) -> list[str]:
        return [*self.flush(), (f"-- central hand {event.data['deal']}: {self.who(event.seat)} "
                f"takes it fresh ({event.data['pile']} cards left to draw) --")]

    def _on_accept(self, event: Event) -> list[str]:
        reward = event.data["reward"]
        return self._part(event.seat, f"accepts ({self.who(event.data['passer'])} "
                          f"gets {reward} chip{'s' if reward != 1 else ''})")

    def _on_pass(self, event: Event) -> list[str]:
        data = event.data
        shown = [t for t in data["face_up"] if t]
        parts = [f"swaps {data['swapped']} card{'s' if data['swapped'] != 1 else ''}"]
        if shown:
            parts.append(f"shows {' '.join(shown)}")
        parts.append(f"passes claiming {data['claim']}")
        return self._part(event.seat, ", ".join(parts), done=True)

    def _on_pay(self, event: Event) -> list[str]:
        amount = event.data["amount"]
        return [(f"{self.who(event.seat)} pays {amount} chip{'' if amount == 1 else 's'} to "
                f"{self.who(event.data['payee'])}")]


def result_lines(names: Sequence[str], placements: Sequence[int], scores: Sequence[int],
                 rules: Description | str) -> list[str]:
    """The final standings of one game, best first, in the rule set's score unit."""
    word = description_of(rules).unit
    order = sorted(range(len(names)), key=lambda s: (placements[s], s))
    return [f"{ordinal(placements[s]):>4}  seat {s} ({names[s]})  {scores[s]} "
            f"{word if scores[s] != 1 else word[:-1]}" for s in order]
