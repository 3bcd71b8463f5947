"""The local best response itself: a bot that keeps the belief of its seat over the round's
hidden history and plays the best of a few actions by rollouts (see `arena.lbr`)."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from arena import hands
from arena.bot import Bot, BotContext
from arena.lbr.minds import Copier, opponent_strategy
from arena.odds import probability
from arena.rules import get_rules
from arena.rules.actions import Action, Bid, Challenge, Chance, Look, Reroll
from arena.rules.base import CHANCE, Event, Observation
from arena.rules.dice import DiceRules

BotMaker = Callable[[BotContext], Bot]


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
        if context.players != 2 or context.rules != "dice":
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
        """The candidate action of best value over the belief (ties to the first one)."""
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
            if isinstance(action, Challenge):  # exact: the claim holds in a world or not
                score = sum(w.weight * (-1 if self.game.hand_index(w.state) >= w.state.claim
                                        else 1) for w in worlds)
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
        """A few legal actions: a challenge or a look (never a blind claim); the rerolls that
        keep the best few sets of dice by the statistician's score; the true claim (else the
        lowest) first, then the lowest few and a few bluffs above the true value."""
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
        the end of a round, the likeliest: the only one, against a deterministic bot)."""
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
    return tuple(hands.rank_of(t) for t in texts)


def _context(context: BotContext, seat: int) -> BotContext:
    """The opponent's context as this seat can build it (its generator is not this seat's)."""
    return BotContext(seat, context.players, context.rules, context.options, context.limits,
                      random.Random(seat), names=context.names, description=context.description)
