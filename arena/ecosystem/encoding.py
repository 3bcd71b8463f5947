"""A seat's observation as words and as a flat vector of named pieces: arena's Observation
for the seat, this round's claims by seat, a `cards` turn being built and (for an
information state) the last private hand the seat was shown. Nothing beyond what arena's
observation and the seat's own events show it."""

from __future__ import annotations

from collections.abc import Iterator

from arena.ecosystem.layout import SWAP
from arena.hands import RANK_TEXT, ClaimSpace, card_id
from arena.rules.base import Observation
from arena.rules.legal import DECISIONS

Piece = tuple[str, tuple[int, ...]]
"""A named piece of the vector and its shape."""


def observation_text(obs: Observation, steps: str = "") -> str:
    """arena's Observation for one seat, in words, one field a line."""
    claim = f"claim {obs.claim} by seat {obs.claimant}" if obs.claim else "no claim"
    lines = [f"seat {obs.seat}, decision {obs.decision}", claim,
             "hand " + (" ".join(obs.hand) if obs.hand else "unseen"),
             "scores " + " ".join(map(str, obs.scores)),
             "active " + " ".join("1" if a else "0" for a in obs.active)]
    if obs.central is not None:
        lines.append("central " + " ".join(c or "?" for c in obs.central)
                     + f", draw pile {obs.draw_pile}")
    lines.append("history " + " | ".join(str(e) for e in obs.history))
    return "\n".join([*lines, steps] if steps else lines)


def token_index(text: str, cards: bool, faces: int = 6) -> int:
    """A die face 0..5 (9..A; with fewer `faces`, from the lowest of the top ones) or a card
    number 0..51, from arena's text of it."""
    return card_id(text) if cards else RANK_TEXT.index(text) - 7 - (6 - faces)


def pieces(players: int, claims: int, tokens: int, central: bool, recall: bool) -> list[Piece]:
    """The vector's pieces for a game config (`recall`: an information state's)."""
    out: list[Piece] = [
        ("seat", (players,)), ("decision", (len(DECISIONS),)), ("claim", (claims + 1,)),
        ("claimant", (players + 1,)), ("hand", (5, tokens)), ("scores", (players,)),
        ("active", (players,)), ("round_claims", (players, claims))]
    if central:
        out += [("central", (5, 52)), ("face_up", (5,)), ("draw_pile", (1,)), ("turn", (30,))]
    if recall:
        out.append(("last_seen", (5, tokens)))
    return out


def marks(obs: Observation, space: ClaimSpace, cards: bool, steps: tuple[int, ...] = (),
          memory: tuple[str, ...] = ()) -> Iterator[tuple[str, tuple[int, ...], float]]:
    """Every non-zero entry of the vector: its piece, its index in the piece, its value."""
    yield "seat", (obs.seat,), 1.0
    yield "decision", (DECISIONS.index(obs.decision),), 1.0
    yield "claim", (len(space.claims) if obs.claim is None else _index(space, obs),), 1.0
    yield "claimant", (len(obs.scores) if obs.claimant is None else obs.claimant,), 1.0
    for position, token in enumerate(obs.hand or ()):
        yield "hand", (position, token_index(token, cards, space.faces)), 1.0
    for seat, score in enumerate(obs.scores):
        yield "scores", (seat,), float(score)
    for seat, active in enumerate(obs.active):
        yield "active", (seat,), float(active)
    for event in obs.history:
        if event.kind in ("claim", "pass") and event.seat is not None:
            index = space.find(event.data["claim"])
            yield "round_claims", (event.seat, index if index is not None else 0), 1.0
    if obs.central is not None:
        for position, card in enumerate(obs.central):
            if card is not None:
                yield "central", (position, card_id(card)), 1.0
        for position, up in enumerate(obs.face_up or ()):
            yield "face_up", (position,), float(up)
        yield "draw_pile", (0,), float(obs.draw_pile or 0)
        for step in steps:
            yield "turn", (step - SWAP,), 1.0
    for position, token in enumerate(memory):
        yield "last_seen", (position, token_index(token, cards, space.faces)), 1.0


def _index(space: ClaimSpace, obs: Observation) -> int:
    assert obs.claim is not None
    index = space.find(obs.claim)
    assert index is not None
    return index
