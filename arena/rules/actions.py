"""The actions a player (or chance) can take: small immutable values with a short text form.

Shared by the three rule sets; what is legal when is each rule set's business.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from arena.hands import Claim, HandError, parse_claim


@dataclass(frozen=True, slots=True)
class Challenge:
    """Call the last claim a lie ("¡mentiroso!"); in `cards` this rejects the central hand."""

    def __str__(self) -> str:
        return "challenge"


@dataclass(frozen=True, slots=True)
class Accept:
    """`cards`: accept the central hand and its claim, then take a turn with it."""

    def __str__(self) -> str:
        return "accept"


@dataclass(frozen=True, slots=True)
class Look:
    """`dice`/`dice-cards`: accept the claim and look at the dice (pick up the cards)."""

    def __str__(self) -> str:
        return "look"


@dataclass(frozen=True, slots=True)
class Bid:
    """Make a claim: the thrower's, a blind pass, or the claim after looking."""

    claim: Claim

    def __str__(self) -> str:
        return f"claim {self.claim}"


@dataclass(frozen=True, slots=True)
class Reroll:
    """Reroll the dice at these positions (0-4), once; in `dice-cards`, exchange those cards."""

    positions: tuple[int, ...] = ()

    def __str__(self) -> str:
        return "reroll " + (" ".join(map(str, self.positions)) or "none")


@dataclass(frozen=True, slots=True)
class Pass:
    """`cards`: swap, reveal, and pass the central hand on with a claim.

    Swaps are (own position, central position) pairs applied together, then the central
    positions in `reveal` are turned face up.
    """

    claim: Claim
    swaps: tuple[tuple[int, int], ...] = ()
    reveal: tuple[int, ...] = ()

    def __str__(self) -> str:
        parts = [f"pass {self.claim}"]
        if self.swaps:
            parts.append("swap " + " ".join(f"{a}-{b}" for a, b in self.swaps))
        if self.reveal:
            parts.append("reveal " + " ".join(map(str, self.reveal)))
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class Choose:
    """`dice`/`dice-cards` with `receiver: loser_chooses`: the loser, now the thrower, picks
    who receives the cup ("debe elegir un receptor")."""

    seat: int

    def __str__(self) -> str:
        return f"choose {self.seat}"


@dataclass(frozen=True, slots=True)
class Chance:
    """A chance outcome: dice faces rolled (ranks 9..14) or a shuffled order of card numbers."""

    outcome: tuple[int, ...]

    def __str__(self) -> str:
        return "chance " + " ".join(map(str, self.outcome))


Action = Challenge | Accept | Look | Bid | Reroll | Pass | Choose


def _positions(words: list[str], limit: int = 5) -> tuple[int, ...]:
    out = []
    for word in words:
        if not word.isdigit() or int(word) >= limit:
            raise HandError(f"position {word!r} is not one of 0..{limit - 1}")
        out.append(int(word))
    return tuple(out)


def _seat(words: list[str]) -> int:
    if len(words) != 1 or not words[0].isdigit():
        raise HandError(f"choose takes one seat number, got {' '.join(words)!r}")
    return int(words[0])


def parse_action(text: str, straight_over_full: bool = False) -> Action:
    """Read an action from its text form (as `str(action)` writes it); for humans and logs."""
    words = text.replace(",", " ").split()
    head = words[0].lower() if words else ""
    if head in ("challenge", "reject", "liar", "mentiroso"):
        return Challenge()
    if head == "accept":
        return Accept()
    if head == "look":
        return Look()
    if head in ("reroll", "exchange"):
        rest = [] if words[1:] == ["none"] else words[1:]
        return Reroll(_positions(rest))
    if head in ("choose", "receiver"):
        return Choose(_seat(words[1:]))
    if head == "claim":
        return Bid(parse_claim(" ".join(words[1:]), straight_over_full))
    if head == "pass":
        return _parse_pass(words[1:], straight_over_full)
    raise HandError(
        f"unknown action {text!r} (challenge, accept, look, reroll 0 3, claim pair J, "
        "pass three Q swap 0-2 reveal 1 3)"
    )


def _parse_pass(words: list[str], straight_over_full: bool) -> Pass:
    marks = [i for i, w in enumerate(words) if w in ("swap", "reveal")] + [len(words)]
    claim = parse_claim(" ".join(words[: marks[0]]), straight_over_full)
    swaps: tuple[tuple[int, int], ...] = ()
    reveal: tuple[int, ...] = ()
    for start, stop in itertools.pairwise(marks):
        args = words[start + 1 : stop]
        if words[start] == "reveal":
            reveal = _positions(args)
            continue
        pairs = []
        for arg in args:
            own, _, central = arg.partition("-")
            pairs.append((_positions([own])[0], _positions([central])[0]))
        swaps = tuple(pairs)
    return Pass(claim, swaps, reveal)
