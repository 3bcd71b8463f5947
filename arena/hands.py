"""Hand values and claims: what 5 dice or 5 cards are worth, and the ordered claim spaces.

Pure and dependency-free: the rules engines, the bots and the docs all stand on this module.
A *value* is a category plus its key ranks (no kickers); a *claim* is a value, so "the claim
holds" is ``value >= claim``. Ranks are integers 2..14 on the card scale (dice use 9..14).
"""

from __future__ import annotations

import enum
import functools
import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType

RANK_TEXT = "23456789TJQKA"
SUIT_TEXT = "cdhs"
DIE_RANKS = (9, 10, 11, 12, 13, 14)
DICE_COUNT = 5
"""Dice under the cup in the standard game (rule option `dice`: fewer in a reduced game)."""
DICE = "dice"
CARDS = "cards"


class Category(enum.IntEnum):
    """Hand categories, numbered in normal poker order (low to high)."""

    HIGH = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL = 6
    FOUR = 7
    STRAIGHT_FLUSH = 8
    FIVE = 9


CATEGORY_TEXT = {
    Category.HIGH: "high",
    Category.PAIR: "pair",
    Category.TWO_PAIR: "two-pair",
    Category.THREE: "three",
    Category.STRAIGHT: "straight",
    Category.FLUSH: "flush",
    Category.FULL: "full",
    Category.FOUR: "four",
    Category.STRAIGHT_FLUSH: "straight-flush",
    Category.FIVE: "five",
}
_LONG_NAMES = {
    "high-card": Category.HIGH,
    "three-of-a-kind": Category.THREE,
    "full-house": Category.FULL,
    "four-of-a-kind": Category.FOUR,
    "five-of-a-kind": Category.FIVE,
}
_CATEGORY_BY_TEXT = {text: cat for cat, text in CATEGORY_TEXT.items()} | _LONG_NAMES
_KEY_RANKS = {Category.TWO_PAIR: 2, Category.FULL: 2}

# The category order used for comparisons: normal poker, or straight and full-house swapped.
_ORDER = {
    False: {cat: int(cat) for cat in Category},
    True: {cat: int(cat) for cat in Category}
    | {Category.STRAIGHT: int(Category.FULL), Category.FULL: int(Category.STRAIGHT)},
}


@dataclass(frozen=True, slots=True)
class Value:
    """A hand value, which is also a claim; compares in the order of its rule set."""

    category: Category
    ranks: tuple[int, ...]
    straight_over_full: bool = False
    _key: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        key = (_ORDER[self.straight_over_full][self.category], *self.ranks)
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash((self.category, self.ranks)))

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        flag = ", straight_over_full=True" if self.straight_over_full else ""
        return f"Claim({str(self)!r}{flag})"

    def __str__(self) -> str:
        return " ".join([CATEGORY_TEXT[self.category], *(RANK_TEXT[r - 2] for r in self.ranks)])

    def _other_key(self, other: object) -> tuple[int, ...] | None:
        if not isinstance(other, Value):
            return None
        if other.straight_over_full != self.straight_over_full:
            raise TypeError("cannot compare values ordered with and without straight_over_full")
        return other._key

    def __lt__(self, other: object) -> bool:
        key = self._other_key(other)
        return NotImplemented if key is None else self._key < key

    def __le__(self, other: object) -> bool:
        key = self._other_key(other)
        return NotImplemented if key is None else self._key <= key

    def __gt__(self, other: object) -> bool:
        key = self._other_key(other)
        return NotImplemented if key is None else self._key > key

    def __ge__(self, other: object) -> bool:
        key = self._other_key(other)
        return NotImplemented if key is None else self._key >= key


Claim = Value


class HandError(ValueError):
    """Malformed hand or claim text, or a value no hand can have."""


# --- Tokens -------------------------------------------------------------------------------


def rank_of(text: str) -> int:
    """Return the rank (2..14) of a rank character such as 'T' or 'A' (or '10')."""
    token = text.upper()
    if token == "10":
        return 10
    if len(token) == 1 and token in RANK_TEXT:
        return RANK_TEXT.index(token) + 2
    raise HandError(f"unknown rank {text!r} (ranks are {' '.join(RANK_TEXT)})")


def card_id(text: str) -> int:
    """Return the card number 0..51 of a card such as 'Ah' (rank, then suit c d h s)."""
    if len(text) < 2 or text[-1].lower() not in SUIT_TEXT:
        raise HandError(f"malformed card {text!r} (write rank then suit, e.g. 'Ah', 'Tc')")
    try:
        rank = rank_of(text[:-1])
    except HandError:
        raise HandError(f"malformed card {text!r}: unknown rank {text[:-1]!r}") from None
    return (rank - 2) * 4 + SUIT_TEXT.index(text[-1].lower())


def card_text(card: int) -> str:
    """Return the text form of a card number, e.g. 51 -> 'As'."""
    return RANK_TEXT[card >> 2] + SUIT_TEXT[card & 3]


def die_text(rank: int) -> str:
    """Return the text form of a die face given as a rank 9..14."""
    return RANK_TEXT[rank - 2]


# --- Values -------------------------------------------------------------------------------


def _straight_top(distinct_desc: Sequence[int], wheel: bool) -> int | None:
    if len(distinct_desc) != 5:
        return None
    if distinct_desc[0] - distinct_desc[4] == 4:
        return distinct_desc[0]
    if wheel and tuple(distinct_desc) == (14, 5, 4, 3, 2):
        return 5
    return None


def _value_of_ranks(
    ranks: Iterable[int], flush: bool, wheel: bool, straight_over_full: bool
) -> Value:
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = tuple(c for _, c in groups)
    top = [r for r, _ in groups]
    straight = _straight_top(sorted(counts, reverse=True), wheel)
    if shape == (5,):
        cat, key = Category.FIVE, top[:1]
    elif straight is not None and flush:
        cat, key = Category.STRAIGHT_FLUSH, [straight]
    elif shape == (4, 1):
        cat, key = Category.FOUR, top[:1]
    elif shape == (3, 2):
        cat, key = Category.FULL, top[:2]
    elif flush:
        cat, key = Category.FLUSH, top[:1]
    elif straight is not None:
        cat, key = Category.STRAIGHT, [straight]
    elif shape[0] == 3:
        cat, key = Category.THREE, top[:1]
    elif shape[:2] == (2, 2):
        cat, key = Category.TWO_PAIR, top[:2]
    elif shape[0] == 2:
        cat, key = Category.PAIR, top[:1]
    else:
        cat, key = Category.HIGH, top[:1]
    return Value(cat, tuple(key), straight_over_full)


def dice_value(dice: Sequence[int], straight_over_full: bool = False) -> Value:
    """Return the value of 5 dice given as ranks 9..14 (or of fewer: a reduced game's hand
    makes only what so few dice can, e.g. 2 dice a high card or a pair)."""
    return _value_of_ranks(dice, flush=False, wheel=False, straight_over_full=straight_over_full)


def cards_value(cards: Sequence[int], straight_over_full: bool = False) -> Value:
    """Return the value of 5 cards given as card numbers 0..51."""
    if len(cards) == 5:  # the hand of every game, spelled out: 3x faster than the loops
        a, b, c, d, e = cards
        flush = (a & 3) == (b & 3) == (c & 3) == (d & 3) == (e & 3)
        ranks = sorted([a >> 2, b >> 2, c >> 2, d >> 2, e >> 2])
        return _sorted_cards_value(tuple(ranks), flush, straight_over_full)
    flush = len({c & 3 for c in cards}) == 1
    return _sorted_cards_value(tuple(sorted(c >> 2 for c in cards)), flush, straight_over_full)


@cache
def _sorted_cards_value(rank_numbers: tuple[int, ...], flush: bool,
                        straight_over_full: bool) -> Value:
    """A hand's value is its ranks' and flush's alone: a few thousand of them, each worked
    out once, however many deals a game, a chance table or an odds table looks at."""
    ranks = [r + 2 for r in rank_numbers]
    return _value_of_ranks(ranks, flush=flush, wheel=True, straight_over_full=straight_over_full)


def parse_hand(text: str) -> tuple[str, tuple[int, ...]]:
    """Read '9 9 T J A' (dice) or 'Ah Kd 4c 4s Jh' (cards): returns (kind, tokens)."""
    tokens = text.replace(",", " ").split()
    if len(tokens) != 5:
        raise HandError(f"a hand is exactly 5 dice or 5 cards, got {len(tokens)} in {text!r}")
    if all(len(t) == 1 or t == "10" for t in tokens):
        dice = tuple(rank_of(t) for t in tokens)
        bad = [t for t, r in zip(tokens, dice, strict=True) if r not in DIE_RANKS]
        if bad:
            raise HandError(f"poker dice show 9 T J Q K A, not {bad[0]!r}")
        return DICE, dice
    cards = tuple(card_id(t) for t in tokens)
    if len(set(cards)) != 5:
        twice = next(t for t in tokens if tokens.count(t) > 1)
        raise HandError(f"card {twice!r} appears twice in {text!r}")
    return CARDS, cards


def value(text: str, straight_over_full: bool = False) -> Value:
    """Return the value of a hand written as text, dice or cards."""
    kind, tokens = parse_hand(text)
    if kind == DICE:
        return dice_value(tokens, straight_over_full)
    return cards_value(tokens, straight_over_full)


# --- Claim spaces -------------------------------------------------------------------------


def die_faces(faces: int = 6) -> tuple[int, ...]:
    """The ranks of a die with so many faces: the top ones of 9..A (4 faces: J Q K A)."""
    return DIE_RANKS[len(DIE_RANKS) - faces:]


def _dice_values(dice: int, faces: int) -> set[tuple[Category, tuple[int, ...]]]:
    rolls = itertools.combinations_with_replacement(die_faces(faces), dice)
    return {(v.category, v.ranks) for v in map(dice_value, rolls)}


def _card_values() -> set[tuple[Category, tuple[int, ...]]]:
    ranks = range(2, 15)
    found: set[tuple[Category, tuple[int, ...]]] = set()
    found |= {(Category.HIGH, (r,)) for r in range(7, 15)}
    found |= {(Category.FLUSH, (r,)) for r in range(7, 15)}
    found |= {(Category.STRAIGHT, (r,)) for r in range(5, 15)}
    found |= {(Category.STRAIGHT_FLUSH, (r,)) for r in range(5, 15)}
    for cat in (Category.PAIR, Category.THREE, Category.FOUR):
        found |= {(cat, (r,)) for r in ranks}
    found |= {(Category.TWO_PAIR, (h, lo)) for h in ranks for lo in ranks if h > lo}
    found |= {(Category.FULL, (t, p)) for t in ranks for p in ranks if t != p}
    return found


@dataclass(frozen=True, slots=True)
class ClaimSpace:
    """The ordered claims of one rule set (lowest first) and each claim's index."""

    kind: str
    straight_over_full: bool
    claims: tuple[Value, ...]
    index: Mapping[Value, int] = field(repr=False, compare=False)
    dice: int = DICE_COUNT
    """Dice (or cards) in a hand: 5, fewer in a reduced `dice` game."""
    faces: int = len(DIE_RANKS)
    """Faces of each die, the top ones of 9..A (6 in the standard game)."""
    code: int = field(default=0, repr=False, compare=False)
    """A number naming this space among all built: the order bit, and from bit 16 up the
    size of a reduced game (0 in the standard game): what the rules' caches are keyed by."""

    @property
    def ranks(self) -> tuple[int, ...]:
        """The die faces of this space's hands, as ranks (9..14 in the standard game)."""
        return die_faces(self.faces)

    def __len__(self) -> int:
        return len(self.claims)

    def position(self, claim: Value) -> int:
        """Return the index of a claim, or raise HandError when this rule set has no such claim."""
        try:
            return self.index[claim]
        except KeyError:
            raise HandError(f"no hand of {self.kind} has the value {claim}") from None

    def find(self, claim: Value) -> int | None:
        """Return a claim's index by category and ranks, whatever order it was parsed with
        (the order is the game's, not the claim object's); None when no hand has it."""
        index = self.index.get(claim)
        if index is None and claim.straight_over_full != self.straight_over_full:
            index = self.index.get(Value(claim.category, claim.ranks, self.straight_over_full))
        return index


@cache
def claim_space(kind: str, straight_over_full: bool = False, dice: int = DICE_COUNT,
                faces: int = len(DIE_RANKS)) -> ClaimSpace:
    """Return the claim space for dice or cards hands, built once; `dice` and `faces` (dice
    only) make a reduced game's smaller ladder: the same ranking, restricted to what such a
    hand can make."""
    if kind == CARDS:
        raw = _card_values()
    elif kind == DICE and 1 <= dice <= DICE_COUNT and 1 <= faces <= len(DIE_RANKS):
        raw = _dice_values(dice, faces)
    else:
        raise HandError(f"no claim space for {kind!r} with {dice} dice of {faces} faces")
    claims = tuple(sorted(Value(cat, ranks, straight_over_full) for cat, ranks in raw))
    index = MappingProxyType({c: i for i, c in enumerate(claims)})  # shown to bots: read-only
    reduced = 0 if kind == CARDS else (DICE_COUNT - dice) * 8 + len(DIE_RANKS) - faces
    return ClaimSpace(kind, straight_over_full, claims, index, dice if kind == DICE else 5,
                      faces, int(straight_over_full) | reduced << 16)


def hand_kind(rules: str) -> str:
    """Return which tokens a built-in rule set plays with: 'dice' for dice, 'cards' for the
    others (any rule set says it as `description.hand`, a plugin's too)."""
    if rules == "dice":
        return DICE
    if rules in ("dice-cards", "cards"):
        return CARDS
    raise HandError(f"unknown rule set {rules!r} (known: cards, dice, dice-cards)")


def claims(rules: str, straight_over_full: bool = False) -> tuple[Value, ...]:
    """Return the ordered claim space of a built-in rule set, lowest first."""
    return claim_space(hand_kind(rules), straight_over_full).claims


@functools.lru_cache(maxsize=4096)
def parse_claim(text: str, straight_over_full: bool = False) -> Value:
    """Read a claim such as 'full 4 J' or 'two-pair K 9'; str(claim) writes it back.

    Cached: claims are immutable values from a space of a few hundred, and bots in their own
    process parse every claim of every observation they receive."""
    words = text.split()
    if not words:
        raise HandError("empty claim (write e.g. 'pair J', 'full 4 J', 'straight K')")
    cat = _CATEGORY_BY_TEXT.get(words[0].lower())
    if cat is None:
        names = ", ".join(CATEGORY_TEXT.values())
        raise HandError(f"unknown claim category {words[0]!r} in {text!r} (one of: {names})")
    want = _KEY_RANKS.get(cat, 1)
    if len(words) - 1 != want:
        raise HandError(f"{CATEGORY_TEXT[cat]} takes {want} rank(s), got {text!r}")
    ranks = tuple(rank_of(w) for w in words[1:])
    if cat == Category.TWO_PAIR:
        ranks = tuple(sorted(ranks, reverse=True))
    claim = Value(cat, ranks, straight_over_full)
    if not any(claim in claim_space(k, straight_over_full).index for k in (DICE, CARDS)):
        raise HandError(f"no hand has the value {text!r}")
    return claim
