"""Mixed play by indifference, for `boss` in two-player `dice` (issue 36): how often to bluff a
claim so that a challenger neither gains nor loses by challenging it, and how often to challenge
a claim so that a bluffer neither gains nor loses by making it.

One code path for every game size: it reads only the claim space's dice tables (`reach`) and
a value distribution, so a reduced game (fewer dice, fewer faces) is played by the same
formulas as the full one.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Sequence
from functools import cache, lru_cache

from arena.odds import probability

NEAR = 0.05
"""How close (in points a round) challenging and accepting must be for boss to mix them."""
BELIEVED = 0.5
"""Boss bluffs only claims the receiver's own odds give at least this chance to hold."""
BEATEN = 0.65
"""Boss bluffs only claims a receiver who accepts beats at most this often: bluffed at the
indifference rate such a claim is false that often when made, and is challenged."""


@cache
def beating(straight_over_full: bool, dice: int, faces: int) -> tuple[tuple[float, ...], ...]:
    """`beat[x][t]`: the chance that a receiver who looks at a hand of value x, and rerolls
    for the best chance, ends with a hand worth t or more (the hands of value x weighted
    by how often a throw makes them)."""
    tables = probability.dice_tables(straight_over_full, dice, faces)
    size = len(tables.space)
    sums = [[0.0] * (size + 1) for _ in range(size)]
    for roll, value in tables.value.items():
        weight = _ways(roll)
        keeps = {keep for n in range(dice + 1) for keep in itertools.combinations(roll, n)}
        best = map(max, zip(*(tables.reach[keep] for keep in keeps), strict=True))
        sums[value] = [s + weight * b for s, b in zip(sums[value], best, strict=True)]
    mass = [0.0] * size
    for roll, value in tables.value.items():
        mass[value] += _ways(roll)
    return tuple(tuple(s / m if m else 0.0 for s in row) for row, m in zip(sums, mass,
                                                                             strict=True))


def _ways(roll: Sequence[int]) -> int:
    """How many ordered throws give this sorted roll."""
    ways = math.factorial(len(roll))
    for _, same in itertools.groupby(roll):
        ways //= math.factorial(len(list(same)))
    return ways


def beaten(beat: Sequence[Sequence[float]], claim: int) -> float:
    """The chance that a receiver beats a true claim of exactly this value (0 at the top)."""
    return beat[claim][claim + 1]


def claim_mix(prior: Sequence[float], value: int, floor: int,
              beat: Sequence[Sequence[float]]) -> dict[int, float]:
    """How a hand of `value` claims from `floor` up: each claim above its true one (or above
    the lowest, when the hand is below it) is bluffed at the rate that lets the receiver,
    who believes `prior`, neither gain nor lose by challenging it (bluffs make up the share
    of those claims that the receiver would beat if it accepted); the rest is the true claim."""
    return _mix(bluff_rates(prior, beat), max(value, floor))


def sound_mix(prior: Sequence[float], truth: int, floor: int,
              beat: Sequence[Sequence[float]]) -> dict[int, float]:
    """`claim_mix` without the bluffs a receiver almost surely challenges and wins: a claim
    its own odds (`prior`) give less than `BELIEVED`, or one it would beat more often than
    `BEATEN` (bluffed at that rate, the claim would be false most times it is made). The
    dropped share goes to the true claim (`truth`, or the lowest legal one)."""
    odds = [*itertools.accumulate(reversed(prior))][::-1]
    mix = claim_mix(prior, truth, floor, beat)
    bluffs = {claim: rate for claim, rate in mix.items() if claim != truth
              and odds[claim] >= BELIEVED and beaten(beat, claim) <= BEATEN}
    return {**bluffs, truth: 1 - sum(bluffs.values())}


def bluff_rates(prior: Sequence[float], beat: Sequence[Sequence[float]]) -> list[float]:
    """For each claim: how often every hand below it bluffs it (see `claim_mix`)."""
    below = [0.0, *itertools.accumulate(prior)]
    rates = [0.0] * len(prior)
    for claim, mass in enumerate(prior):
        chance = beaten(beat, claim)
        if mass > 0 and below[claim] > 0 and chance < 1:
            rates[claim] = min(1.0, mass * chance / (1 - chance) / below[claim])
    return rates


def _mix(rates: Sequence[float], truth: int) -> dict[int, float]:
    """The bluffs above `truth` at their rates (scaled down to one in all), the rest true."""
    mix = {claim: rate for claim, rate in enumerate(rates) if claim > truth and rate > 0}
    bluffed = sum(mix.values())
    if bluffed > 1:
        mix = {claim: rate / bluffed for claim, rate in mix.items()}
    mix[truth] = max(0.0, 1 - bluffed)
    return {claim: rate for claim, rate in mix.items() if rate > 0}


def challenge_chance(prior: Sequence[float], claim: int, floor: int,
                     beat: Sequence[Sequence[float]]) -> float:
    """How often to challenge `claim`, made from `floor` by a seat boss believes holds a hand
    of `prior` before its claim (see `challenge_chances`)."""
    return challenge_chances(prior, floor, beat)[claim - floor]


def challenge_chances(prior: Sequence[float], floor: int,
                      beat: Sequence[Sequence[float]]) -> list[float]:
    """For each claim from `floor` up, how often to challenge it. By boss's posterior (the
    claimant bluffing as `claim_mix` does): never when accepting is clearly worth more,
    always when challenging is; when the two are near, at the rate that leaves the hands
    that bluff it no better off than by their best lower claim (so a bluff gains nothing)."""
    size = len(prior)
    rates = bluff_rates(prior, beat)
    rows: dict[int, list[float]] = {}  # by true claim: its mix, every claim's share in a row
    for x in range(size):
        truth = max(x, floor)  # every hand below the floor claims alike
        if prior[x] > 0 and truth not in rows:
            rows[truth] = [0.0] * size
            for claim, share in _mix(rates, truth).items():
                rows[truth][claim] = share
    nothing = [0.0] * size
    shares = list(zip(*(rows.get(max(x, floor), nothing) for x in range(size)), strict=True))
    """`shares[claim][x]`: how often a hand of value x claims `claim`."""
    held = [x for x, p in enumerate(prior) if p > 0]
    accepting, believed = _columns(beat)
    best = [-math.inf] * size
    """For each hand value: the most a claim below the current one is worth to it."""
    chances: list[float] = []
    for claim in range(floor, size):
        # a hand above the claim never makes it (its weight would be 0.0, adding nothing)
        weight = list(map(operator.mul, prior[:claim + 1], shares[claim]))
        if sum(weight) <= 0:  # no hand claims it: judge it by the prior alone
            weight = list(prior)
        chance = _challenge(weight, claim, accepting[claim], believed[claim], best)
        chances.append(chance)
        kept, column = 1 - chance, believed[claim]
        for x in held:
            worth = (chance if x >= claim else -chance) + kept * column[x]
            if worth > best[x]:  # noqa: PLR1730 - as max() keeps it, without its call
                best[x] = worth
    return chances


_COLUMNS: dict[int, tuple[Sequence[Sequence[float]], list[list[float]], list[list[float]]]] = {}
"""By the `beating` table's id (kept with it): its columns as `_columns` gives them."""


def _columns(beat: Sequence[Sequence[float]]) -> tuple[list[list[float]], list[list[float]]]:
    """For each claim, over the hand values x: what accepting it is worth to the challenger
    (2 beat[x][claim + 1] - 1) and to the claimant (1 - 2 beat[x][claim + 1]), worked out
    once a table: boss asks them at every decision."""
    kept = _COLUMNS.get(id(beat))
    if kept is None or kept[0] is not beat:
        rows = range(len(beat))
        kept = (beat, [[2 * beat[x][claim + 1] - 1 for x in rows] for claim in rows],
                [[1 - 2 * beat[x][claim + 1] for x in rows] for claim in rows])
        _COLUMNS[id(beat)] = kept
    return kept[1], kept[2]


def _challenge(weight: list[float], claim: int, accepting: list[float], believed: list[float],
               best: list[float]) -> float:
    """How often to challenge a claim made by hands of these weights (see above), where
    accepting it is worth `accepting[x]` to the challenger and `believed[x]` to the claimant
    holding x. The sums add the same terms in the same order as term by term would."""
    total = sum(weight)
    challenge = sum([*weight[:claim], *(-w for w in weight[claim:])]) / total
    accept = sum(map(operator.mul, accepting, weight)) / total
    if abs(challenge - accept) > NEAR:
        return 1.0 if challenge >= accept else 0.0
    bluffs = [x for x, w in enumerate(weight[:claim]) if w > 0 and best[x] > -math.inf]
    if not bluffs:
        return 1.0 if challenge >= accept else 0.0
    rates = []
    for x in bluffs:  # a bluff challenged loses; believed, the receiver must beat it
        rates.append((believed[x] - best[x]) / (believed[x] + 1) if believed[x] > -1 else 1.0)
    return max(0.0, min(1.0, max(rates)))


def claim_worth(prior: Sequence[float], floor: int,
                beat: Sequence[Sequence[float]]) -> list[float]:
    """For each hand value: what its best claim from `floor` is worth (points a round, +1 won,
    -1 lost) against a receiver who believes `prior` and challenges as `challenge_chances`
    says (a claim it accepts leaves it to beat the claim on that hand)."""
    _columns(beat)  # the table kept by its id, which then names only it
    return list(_claim_worth(tuple(prior), floor, id(beat)))


@lru_cache(maxsize=1024)
def _claim_worth(prior: tuple[float, ...], floor: int, table: int) -> tuple[float, ...]:
    """`claim_worth` of the table kept under this id, remembered: boss weighs every reroll
    by it, and the same beliefs come back game after game (half its calls in a comparison)."""
    beat = _COLUMNS[table][0]
    chances = challenge_chances(prior, floor, beat)
    believed = _columns(beat)[1]
    worth = [-math.inf] * len(prior)
    for claim, q in enumerate(chances, floor):  # the first best claim's worth, as max gives
        kept, column = 1 - q, believed[claim]
        worth = list(map(max, worth, [*(-q + kept * b for b in column[:claim]),
                                      *(q + kept * b for b in column[claim:])]))
    return tuple(worth)
