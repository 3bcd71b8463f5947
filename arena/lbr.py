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

import copy
import itertools
import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from arena import hands
from arena.bot import Bot, BotContext, Limits
from arena.odds import probability
from arena.rules import get_rules
from arena.rules.actions import Action, Bid, Challenge, Chance, Look, Reroll
from arena.rules.base import CHANCE, Event, Observation
from arena.rules.dice import DiceRules

ASSUMED = ("it never passes blind (so its belief over the hidden dice and what the opponent "
           "saw is exact, unseen dice taken sorted); its own later decisions in a rollout "
           "follow the rollout policy; it maximises the points of the round, not the game")
BotMaker = Callable[[BotContext], Bot]


def opponent_strategy(bot: Bot, observation: Observation) -> list[tuple[Action, float]]:
    """The opponent's probability of each action: its `strategy(observation)` (a mapping of
    action to probability) when it has one, else the one action it plays."""
    strategy = getattr(bot, "strategy", None)
    if callable(strategy):
        return [(a, float(p)) for a, p in strategy(observation).items() if p > 0]
    return [(bot.act(observation), 1.0)]


class Copier:
    """Copies of bots' minds, sharing only what a bot never changes: its context, its
    generator (a deterministic bot never draws; a mixed one is asked through `strategy`),
    and the read-only values it holds (claim spaces, odds tables, read-only mappings)."""

    def __init__(self) -> None:
        self.shared: dict[int, Any] = {}

    def copy(self, bot: Bot) -> Bot:
        """A copy of the bot that changes nothing of the original as it plays on."""
        if id(bot.context) not in self.shared:  # a bot (or a copy's origin) not met before
            _read_only(bot, self.shared)
            self.shared.update({id(bot.context): bot.context, id(bot.rng): bot.rng})
        return copy.deepcopy(bot, dict(self.shared))


_ATOMS = (int, float, str, bytes, bool, type(None), range)


def _read_only(root: object, found: dict[int, Any]) -> dict[int, Any]:
    """Every value under `root` that deepcopy refuses (and that a bot cannot change)."""
    seen: set[int] = set()
    todo = [root]
    while todo:
        item = todo.pop()
        if id(item) in seen or isinstance(item, _ATOMS) or id(item) in found:
            continue
        seen.add(id(item))
        if isinstance(item, MappingProxyType | hands.ClaimSpace | probability.DiceTables
                      | probability.CardTables):
            found[id(item)] = item
        elif isinstance(item, dict):
            todo += [*item.keys(), *item.values()]
        elif isinstance(item, list | tuple | set | frozenset):
            todo += list(item)
        elif hasattr(item, "__dict__"):
            todo += list(vars(item).values())
    return found


@dataclass
class World:
    """One history of the round that explains what this seat saw: the game state, the
    opponent's mind in it, and its weight (chance times the opponent's probabilities)."""

    state: Any
    them: Bot
    weight: float
    copier: Copier

    def copy(self) -> World:
        """The same world, with a mind of its own."""
        return World(self.state, self.copier.copy(self.them), self.weight, self.copier)


@dataclass(frozen=True)
class Step:
    """What this seat saw happen: an action (`reroll` of a count when the opponent's
    positions are hidden), a chance outcome (None when hidden), or a hand shown to it."""

    kind: str  # "act", "reroll", "chance", "shown"
    seat: int = -1
    action: Action | None = None
    count: int = 0
    dice: tuple[int, ...] | None = None


class LocalBestResponse(Bot):
    """Plays the best of a few actions against a known opponent, from its own seat's view."""

    name = "lbr"
    rules = ("dice",)
    description = "A local best response to a known bot (a lower bound on its exploitability)."

    def __init__(self, context: BotContext, opponent: BotMaker, policy: BotMaker,
                 rollouts: int = 12) -> None:
        super().__init__(context)
        if context.players != 2:
            raise ValueError("the local best response plays two-player dice only")
        self.game: DiceRules = get_rules(context.rules)  # type: ignore[assignment]
        self.seat, self.other = context.seat, 1 - context.seat
        self.rollouts = rollouts
        self.mine = policy(context)  # this seat's rollout policy, shown this seat's events
        them = opponent(_context(context, self.other))
        them.start(_context(context, self.other))
        self.copier = Copier()
        self.start_world = World(self.game.new_game(2, context.options), them, 1.0, self.copier)
        self.steps: list[Step] = []
        self.positions: tuple[int, ...] = ()

    def start(self, context: BotContext) -> None:
        """Start the rollout policy too."""
        self.mine.start(context)

    # --- what this seat sees --------------------------------------------------------------

    def notify(self, event: Event) -> None:
        """Write down what happened in the round, as far as this seat can tell."""
        self.mine.notify(event)
        kind, data = event.kind, event.data
        seat = -1 if event.seat is None else event.seat
        if kind == "round":
            if self.steps:  # the last round is all known now: its end is the next start
                (self.start_world,) = self._replay(self.steps, keep_all=False)
            self.steps = [] if seat == self.seat else [Step("chance")]
        elif kind == "roll":  # this seat's own throw or reroll
            dice = _ranks(data["hand"])
            positions = data.get("positions") or range(len(dice))
            self.steps.append(Step("chance", dice=tuple(dice[p] for p in positions)))
        elif kind == "see":
            self.steps.append(Step("shown", dice=_ranks(data["hand"])))
        elif kind == "claim":
            self.steps.append(Step("act", seat, Bid(data["claim"])))
        elif kind == "look":
            self.steps.append(Step("act", seat, Look()))
        elif kind == "reroll" and seat == self.seat:
            self.steps.append(Step("act", seat, Reroll(self.positions)))
        elif kind == "reroll":
            self.steps.append(Step("reroll", seat, count=data["count"]))
            if data["count"]:
                self.steps.append(Step("chance"))
        elif kind == "challenge":
            self.steps += [Step("shown", dice=_ranks(data["hand"])), Step("act", seat, Challenge())]
        elif kind in ("penalty", "choose"):
            raise ValueError(f"the local best response does not play games with {kind}s")

    # --- deciding -------------------------------------------------------------------------

    def act(self, observation: Observation) -> Action:
        """The candidate action of best value over the belief (ties: the rollout policy's)."""
        worlds = self._replay(self.steps, keep_all=True)
        total = sum(w.weight for w in worlds)
        for world in worlds:
            world.weight /= total
        choices = self._candidates(observation)
        if len(choices) == 1:
            return self._chosen(choices[0])
        rng = random.Random(self.rng.getrandbits(64))
        picks = rng.choices(worlds, [w.weight for w in worlds], k=self.rollouts)
        seeds = [rng.getrandbits(64) for _ in picks]
        best, value = choices[0], -math.inf
        for action in choices:
            if isinstance(action, Challenge):
                score = sum(w.weight * self._rollout(w, action, 0)[0] for w in worlds)
            else:
                score = self._valued(picks, seeds, action)
            if score > value + 1e-9:
                best, value = action, score
        return self._chosen(best)

    def _chosen(self, action: Action) -> Action:
        if isinstance(action, Reroll):
            self.positions = action.positions
        return action

    def _valued(self, picks: Sequence[World], seeds: Sequence[int], action: Action) -> float:
        """The mean of the rollouts (one, when the round ends without chance)."""
        total, alone = 0.0, len({id(w) for w in picks}) == 1
        for world, seed in zip(picks, seeds, strict=True):
            value, drew = self._rollout(world, action, seed)
            if alone and not drew:
                return value
            total += value
        return total / len(picks)

    def _candidates(self, observation: Observation) -> list[Action]:
        """A few legal actions, the rollout policy's first."""
        legal = observation.legal
        if legal.decision == "respond":
            return [Challenge(), Look()] if legal.can_claim() else [Challenge()]
        hand = _ranks(observation.hand or ())
        tables = probability.tables_for(legal.space)
        assert isinstance(tables, probability.DiceTables)
        floor = legal.min_index
        if legal.decision == "reroll":
            return [Reroll(p) for p in _rerolls(hand, floor, tables,
                                                 [r.positions for r in legal.rerolls()])]
        value = tables.hand_value(hand)
        top = len(legal.space) - 1
        wanted = [max(value, floor), floor, floor + 1, floor + 2, value + 1, value + 2,
                  value + 4, value + 8]
        claims = dict.fromkeys(c for c in wanted if floor <= c <= top)
        return [Bid(legal.space.claims[c]) for c in claims]

    # --- worlds and rollouts --------------------------------------------------------------

    def _replay(self, steps: Sequence[Step], keep_all: bool) -> list[World]:
        """Every history of the round that explains the steps, from the round's start (at
        the end of a round, one of them: they differ only in weights then)."""
        worlds = [self.start_world.copy()]
        for i, step in enumerate(steps):
            worlds = [after for world in worlds for after in self._advance(world, step, steps[i:])]
            if not worlds:
                raise RuntimeError("no history explains what the opponent did: does it act "
                                   "by its seat's view alone (a mixed bot needs `strategy`)?")
        if keep_all:
            return worlds
        return [max(worlds, key=lambda w: w.weight)]

    def _advance(self, world: World, step: Step, ahead: Sequence[Step]) -> Iterable[World]:
        state, game = world.state, self.game
        if step.kind == "shown":
            return [world] if state.hand == step.dice else []
        if step.kind == "chance":
            if step.dice is not None:
                return [self._apply(world, Chance(step.dice))]
            return self._hidden(world, ahead)
        if step.seat == self.seat:
            assert step.action is not None
            return [self._apply(world, step.action)]
        found = []
        strategy = opponent_strategy(world.them, game.observe(state, self.other))
        for action, p in strategy:
            fits = (isinstance(action, Reroll) and len(action.positions) == step.count
                    if step.kind == "reroll" else action == step.action)
            if fits:
                after = world.copy() if len(strategy) > 1 else world
                after.weight *= p
                found.append(self._apply(after, action))
        return found

    def _hidden(self, world: World, ahead: Sequence[Step]) -> list[World]:
        """The opponent's throw or reroll: as the next hand shown says, else every roll."""
        state = world.state
        positions = state.pending or tuple(range(state.space.dice))
        for step in ahead[1:]:
            if step.kind == "chance":
                break
            if step.kind == "shown" and step.dice is not None:
                return [self._apply(world, Chance(tuple(step.dice[p] for p in positions)))]
        faces, worlds = state.space.ranks, []
        for roll in itertools.combinations_with_replacement(faces, len(positions)):
            ways = math.factorial(len(roll)) / math.prod(
                math.factorial(roll.count(f)) for f in set(roll))
            after = world.copy()
            after.weight *= ways / len(faces) ** len(roll)
            worlds.append(self._apply(after, Chance(roll)))
        return worlds

    def _apply(self, world: World, action: Action | Chance) -> World:
        """Play one step in a world and show the opponent what its seat sees of it."""
        world.state = self.game.apply(world.state, action)
        for event in self.game.events(world.state):
            if event.to is None or event.to == self.other:
                world.them.notify(event)
        return world

    def _rollout(self, world: World, action: Action, seed: int) -> tuple[float, bool]:
        """Play the round out from this decision: +1 if the opponent gets its point, -1 if
        this seat does (the opponent plays its policy, this seat the rollout policy), and
        whether chance was drawn on the way."""
        rng, game = random.Random(seed), self.game
        sim, mine = world.copy(), self.copier.copy(self.mine)
        drew = False
        step: Action | Chance = action
        while True:
            sim.state = game.apply(sim.state, step)
            for event in game.events(sim.state):
                if event.kind == "point":
                    return (1.0 if event.seat == self.other else -1.0), drew
                if event.to is None or event.to == self.other:
                    sim.them.notify(event)
                if event.to is None or event.to == self.seat:
                    mine.notify(event)
            seat = game.to_act(sim.state)
            if seat == CHANCE:
                drew = True
                step = game.chance(sim.state, rng)
            elif seat == self.seat:
                step = mine.act(game.observe(sim.state, seat))
            else:
                step = _draw(opponent_strategy(sim.them, game.observe(sim.state, seat)), rng)


def _draw(strategy: Sequence[tuple[Action, float]], rng: random.Random) -> Action:
    """One action of a strategy, by its probabilities."""
    if len(strategy) == 1:
        return strategy[0][0]
    chosen: Action = rng.choices([a for a, _ in strategy], [p for _, p in strategy])[0]
    return chosen


def _rerolls(hand: tuple[int, ...], floor: int, tables: probability.DiceTables,
             allowed: Iterable[tuple[int, ...]], keep: int = 4) -> list[tuple[int, ...]]:
    """The rerolls of the best few kept dice, by the statistician's score (the chance of a
    true claim at the floor, then a little how hard it is to beat), fewest dice first."""
    best: dict[tuple[int, ...], tuple[float, tuple[int, ...]]] = {}
    for positions in sorted(allowed, key=lambda p: (len(p), p)):
        kept = tuple(sorted(d for i, d in enumerate(hand) if i not in positions))
        if kept not in best:
            score = tables.reach[kept][floor] + 0.1 * tables.edge[kept][floor]
            best[kept] = (score, positions)
    ranked = sorted(best.values(), key=lambda s: (-s[0], len(s[1]), s[1]))
    return [positions for _, positions in ranked[:keep]]


def _ranks(texts: Iterable[str]) -> tuple[int, ...]:
    """Dice as ranks 9..14 from their text."""
    from arena.hands import rank_of

    return tuple(rank_of(t) for t in texts)


def _context(context: BotContext, seat: int) -> BotContext:
    """The opponent's context as this seat can build it (its generator is not this seat's)."""
    return BotContext(seat, context.players, context.rules, context.options, context.limits,
                      random.Random(seat), names=context.names, description=context.description)


@dataclass
class Estimate:
    """Points a round the local best response won over the even split, with a 95% interval
    over duplicate pairs of games (its two seats, the same seed)."""

    points: float = 0.0
    half_width: float = 0.0
    rounds: int = 0
    pairs: list[tuple[float, int]] = field(default_factory=list)


def measure(opponent: BotMaker, policy: BotMaker, games: int, seed: int,
            options: dict[str, Any] | None = None, rollouts: int = 12) -> Estimate:
    """Play `games` duplicate pairs (each seed, the local best response in either seat)."""
    from arena.referee import play_game

    def lbr(context: BotContext) -> Bot:
        return LocalBestResponse(context, opponent, policy, rollouts)

    pairs = []
    for g in range(games):
        won, rounds = 0.0, 0
        for seat in (0, 1):
            seats: list[object] = [opponent, opponent]
            seats[seat] = lbr
            record = play_game("dice", seats, seed=seed + g, options=options,
                               limits=Limits(decision=86400.0))
            if record.faults:
                raise RuntimeError(f"a fault in a measured game: {record.faults[0].message}")
            for entry in record.log:
                if isinstance(entry, Event) and entry.kind == "point":
                    rounds += 1
                    won += 0.5 if entry.seat != seat else -0.5
        pairs.append((won, rounds))
    return _estimate(pairs)


def _estimate(pairs: list[tuple[float, int]]) -> Estimate:
    """The ratio of won points to rounds, its interval by the delta method over pairs."""
    n, won, rounds = len(pairs), sum(p[0] for p in pairs), sum(p[1] for p in pairs)
    mean = won / rounds
    if n < 2:
        return Estimate(mean, math.inf, rounds, pairs)
    spread = sum((x - mean * r) ** 2 for x, r in pairs) / (n * (n - 1))
    return Estimate(mean, 1.96 * math.sqrt(spread) / (rounds / n), rounds, pairs)
