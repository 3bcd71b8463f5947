"""arena's rule sets as a PettingZoo AEC environment: `from arena.pettingzoo import env`.

`env(rules="dice", players=2, opponents=["statistician"])`: the seats named in `opponents`
are played by arena bots (a reference as everywhere: "statistician", "file.py:Class", hosted
by the same trust policy as every command: built-ins inline, other bots sandboxed in their
own process); the other seats are the agents, "player_<seat>". Observations are a vector of
what arena's Observation shows the seat (`arena.ecosystem.encoding`) and an action mask over
the game's fixed action ids (`arena.ecosystem.layout`: a `cards` turn is its swaps and
reveals, then the claim). Rewards come at the end: +1 the winner, -1 the last, evenly
between (ties share). The same seed plays the same game: chance and the bots' generators are
the referee's. An optional extra (`pip install -e '.[pettingzoo]'`); docs/rl.md.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import gymnasium  # type: ignore[import-not-found, unused-ignore]
import numpy as np
from pettingzoo import AECEnv  # type: ignore[import-not-found, import-untyped, unused-ignore]
from pettingzoo.utils import (  # type: ignore[import-not-found, import-untyped, unused-ignore]
    wrappers,
)

from arena.bot import BotContext, GameEnd, Limits
from arena.ecosystem import utilities
from arena.ecosystem.encoding import marks, observation_text, pieces
from arena.ecosystem.layout import Layout
from arena.entrants import seat_all
from arena.hands import CARDS, claim_space
from arena.hosts.inline import BotFault
from arena.kept import KeptHosts
from arena.referee import Player, generator
from arena.rules import CHANCE, TERMINAL, get_rules
from arena.rules.actions import Action
from arena.seeds import bot_seed, derive_seed


def env(rules: str = "dice", players: int = 2,
        opponents: Sequence[str] | Mapping[int, str] = (),
        options: Mapping[str, object] | None = None,
        render_mode: str | None = None) -> Any:
    """The environment, wrapped as PettingZoo's own environments are (order enforced)."""
    raw = ArenaEnv(rules, players, opponents, options, render_mode)
    return wrappers.OrderEnforcingWrapper(raw)


class ArenaEnv(AECEnv):  # type: ignore[misc, unused-ignore]
    """One table: arena bots at some seats, agents at the others."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human"], "name": "arena_v0",
                                          "is_parallelizable": False}

    def __init__(self, rules: str, players: int,
                 opponents: Sequence[str] | Mapping[int, str],
                 options: Mapping[str, object] | None, render_mode: str | None) -> None:
        super().__init__()
        self.rules = get_rules(rules)
        self.rules.check_players(players)
        self.options = self.rules.check_options(options)
        bots = (dict(opponents) if isinstance(opponents, Mapping)
                else dict(enumerate(opponents, players - len(opponents))))
        if not set(bots) <= set(range(players)) or len(bots) >= players:
            raise ValueError(f"opponents {dict(bots)} must name seats 0..{players - 1} "
                             "and leave at least one seat to an agent")
        self.players, self.render_mode = players, render_mode
        self.kept = KeptHosts()
        seated = seat_all([bots[s] for s in sorted(bots)], hosts=self.kept)
        self.bots: dict[int, Player] = dict(zip(sorted(bots), seated, strict=True))
        self.possible_agents = [f"player_{s}" for s in range(players) if s not in self.bots]
        self.seat_of = {agent: int(agent.split("_")[1]) for agent in self.possible_agents}
        description = self.rules.description
        self.cards = description.hand == CARDS
        space = claim_space(description.hand, bool(self.options["straight_over_full"]))
        self.layout = Layout(space, players, description.central)
        shapes = pieces(players, len(space.claims), 52 if self.cards else 6,
                        description.central, False)
        self.offsets: dict[str, tuple[int, tuple[int, ...]]] = {}
        size = 0
        for name, shape in shapes:
            self.offsets[name] = (size, shape)
            size += int(np.prod(shape))
        self.size = size
        obs_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(0.0, np.inf, (size,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (self.layout.size,), np.int8)})
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: gymnasium.spaces.Discrete(self.layout.size)
                              for a in self.possible_agents}
        self.seeds = random.Random()
        self.state_now: Any = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:  # type: ignore[type-arg]
        """Each agent's observation: the vector and the mask of legal action ids."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:  # type: ignore[type-arg]
        """Each agent's actions: the game's fixed action ids."""
        return self.action_spaces[agent]

    # --- a game -------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; with a seed, the game arena's referee plays with that seed."""
        if seed is not None:
            self.seeds.seed(seed)
        self.seed_now = seed if seed is not None else self.seeds.randrange(2**31)
        self.rng = generator(derive_seed(self.seed_now, "game"))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.steps: tuple[int, ...] = ()
        self.broken: set[int] = set()
        self.state_now = self.rules.new_game(self.players, self.options)
        names = tuple(self.bots[s].name if s in self.bots else f"player_{s}"
                      for s in range(self.players))
        for seat, player in self.bots.items():
            context = BotContext(seat, self.players, self.rules.id, self.options, Limits(),
                                 generator(bot_seed(self.seed_now, seat)), player.options,
                                 names, self.rules.description)
            self._guard(seat, player.host.start, context)
        self._advance()

    def _guard(self, seat: int, call: Any, *args: Any) -> Any:
        """Call a bot's host; a fault leaves the seat broken (it faults at its decision)."""
        if seat in self.broken:
            return None
        try:
            return call(*args)
        except BotFault:
            self.broken.add(seat)
            return None

    def _advance(self) -> None:
        """Play chance and the bots until an agent must act or the game is over."""
        rules = self.rules
        while (seat := rules.to_act(self.state_now)) != TERMINAL:
            if seat == CHANCE:
                self._apply(rules.chance(self.state_now, self.rng))
            elif seat in self.bots:
                self._bot_decides(seat)
            else:
                self.agent_selection = f"player_{seat}"
                return
        self._finish()

    def _bot_decides(self, seat: int) -> None:
        observation = self.rules.observe(self.state_now, seat)
        host = self.bots[seat].host
        action = self._guard(seat, host.act, observation, Limits().decision)
        if action is None or not observation.is_legal(action):
            self.broken.add(seat)
            self.state_now = self.rules.fault(self.state_now, seat)
            return
        self._apply(action)

    def _apply(self, action: Any) -> None:
        self.state_now = self.rules.apply(self.state_now, action)
        for event in self.rules.events(self.state_now):
            for seat, player in self.bots.items():
                if event.to is None or event.to == seat:
                    self._guard(seat, player.host.notify, event)

    def _finish(self) -> None:
        """The game is over: every agent's reward, and each bot told its result."""
        result = self.rules.result(self.state_now)
        value = utilities(result.placements)
        for agent, seat in self.seat_of.items():
            self.rewards[agent] = value[seat]
            self.terminations[agent] = True
        self._accumulate_rewards()
        for seat, player in self.bots.items():
            self._guard(seat, player.host.end, GameEnd(result, seat))
            player.host.close()
        self.agent_selection = self.agents[0]

    def step(self, action: int | None) -> None:
        """The selected agent's action id (None once the game is over for it)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        if action is None or not self._mask(self.seat_of[agent])[int(action)]:
            raise ValueError(f"{agent}: action {action} is not legal now "
                             f"(legal: {np.flatnonzero(self._mask(self.seat_of[agent]))})")
        self._take(int(action))
        for other in self.agents:
            self.rewards[other] = 0.0
        if self.rules.to_act(self.state_now) == self.seat_of[agent] and self.steps:
            return  # a cards turn goes on: its next step
        self._advance()
        if self.render_mode == "human":
            self.render()

    def _take(self, action_id: int) -> None:
        layout = self.layout
        if self.rules.legal(self.state_now).decision == "turn":
            if action_id < layout.claim_base:
                self.steps = (*self.steps, action_id)
                return
            arena_action: Action = layout.pass_of(self.steps, action_id)
            self.steps = ()
        else:
            arena_action = layout.action_of(action_id)
        self._apply(arena_action)

    # --- what an agent sees -----------------------------------------------------------

    def _mask(self, seat: int) -> Any:
        mask = np.zeros(self.layout.size, np.int8)
        if self.rules.to_act(self.state_now) != seat:
            return mask
        legal = self.rules.legal(self.state_now)
        if legal.decision == "turn":
            mask[self.layout.turn_steps(self.steps, legal.face_up)] = 1
            mask[self.layout.claim_id(legal.min_index):] = 1
        else:
            mask[[self.layout.id_of(a) for a in legal.actions()]] = 1
        return mask

    def observe(self, agent: str) -> dict[str, Any]:
        """The agent's vector (what arena's Observation shows its seat) and its mask."""
        seat = self.seat_of[agent]
        vector = np.zeros(self.size, np.float32)
        steps = self.steps if self.rules.to_act(self.state_now) == seat else ()
        observation = self.rules.observe(self.state_now, seat)
        for name, index, value in marks(observation, self.layout.space, self.cards, steps):
            start, shape = self.offsets[name]
            vector[start + int(np.ravel_multi_index(index, shape))] = value
        return {"observation": vector, "action_mask": self._mask(seat)}

    def render(self) -> None:
        """Print what the selected agent sees, in words."""
        if self.render_mode == "human" and self.agents:
            seat = self.seat_of[self.agent_selection]
            print(observation_text(self.rules.observe(self.state_now, seat)))

    def close(self) -> None:
        """Stop the bots' processes."""
        self.kept.close()
