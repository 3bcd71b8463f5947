"""The three rule sets as OpenSpiel games: their types (names, parameters with arena's
defaults) and one game per config, whose states are `arena.openspiel.state.ArenaState`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pyspiel  # type: ignore[import-not-found, unused-ignore]

from arena import hands
from arena.ecosystem.layout import Layout
from arena.openspiel.observer import ArenaObserver, make_observer
from arena.openspiel.state import ArenaState
from arena.rules import get_rules

NAMES = {"dice": "python_arena_dice", "dice-cards": "python_arena_dice_cards",
         "cards": "python_arena_cards"}
"""The OpenSpiel name of each rule set."""
_NO_FAULTS = frozenset({"on_fault", "max_faults"})
"""Options of faults, which OpenSpiel has not: an illegal action there is refused."""


def parameters(rules_id: str) -> dict[str, Any]:
    """A rule set's game parameters: the players, then its options with arena's defaults."""
    rules = get_rules(rules_id)
    options = {s.name: s.default for s in rules.option_specs if s.name not in _NO_FAULTS}
    return {"players": rules.min_players, **options}


def game_type(rules_id: str) -> Any:
    """The OpenSpiel game type of one rule set (zero-sum: utilities by place)."""
    rules = get_rules(rules_id)
    return pyspiel.GameType(
        short_name=NAMES[rules_id], long_name=f"arena {rules_id} (Póker Mentiroso)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=rules.max_players, min_num_players=rules.min_players,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=parameters(rules_id))


def _longest(layout: Layout, tokens: int, players: int, options: Any) -> int:
    """A bound on a game's steps, chance included: every claim once a round at most."""
    claims = len(layout.space.claims)
    if layout.central:  # a claim's pass is up to 10 steps and an accept; 10 central hands
        return 52 + 10 * (claims * 12 + 1)
    rounds = players * int(options["max_points"])
    per_claim = 3 + tokens  # look, reroll, claim, and the chance of a reroll
    return rounds * (2 + tokens + claims * per_claim)


class ArenaGame(pyspiel.Game):  # type: ignore[misc]
    """One config of one rule set: the players and the rule options."""

    RULES: ClassVar[str] = "dice"

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = {**parameters(self.RULES), **(params or {})}
        rules = get_rules(self.RULES)
        players = int(given.pop("players"))
        rules.check_players(players)
        options = rules.check_options(given)
        cards = rules.description.hand == hands.CARDS
        space = hands.claim_space(rules.description.hand, bool(options["straight_over_full"]),
                                  int(options.get("dice", 5)), int(options.get("faces", 6)))
        layout = Layout(space, players, rules.description.central)
        tokens = 52 if cards else space.faces
        info = pyspiel.GameInfo(
            num_distinct_actions=layout.size, max_chance_outcomes=tokens,
            num_players=players, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=_longest(layout, tokens, players, options))
        super().__init__(game_type(self.RULES), info, params or {})
        self.rules, self.players, self.options, self.layout = rules, players, options, layout
        self.hand_cards = cards
        """Whether the hands are cards (dice-cards, cards) rather than dice."""
        self.tokens = tokens
        """How many kinds of token a hand holds: 6 die faces (fewer in a reduced game) or 52
        cards."""

    def new_initial_state(self) -> ArenaState:
        """A new game: arena's first state, a throw or a deal next."""
        return ArenaState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ArenaObserver:
        """The observation (default) or, with perfect recall, the information state."""
        return make_observer(self, iig_obs_type, params)


class DiceGame(ArenaGame):
    """`dice`: poker dice under a passed cup."""

    RULES = "dice"


class DiceCardsGame(ArenaGame):
    """`dice-cards`: the dice game with five cards from a deck."""

    RULES = "dice-cards"


class CardsGame(ArenaGame):
    """`cards`: private hands and a central hand passed round."""

    RULES = "cards"


GAMES: dict[str, type[ArenaGame]] = {"dice": DiceGame, "dice-cards": DiceCardsGame,
                                     "cards": CardsGame}


def register() -> None:
    """Register the three games with OpenSpiel, once."""
    known = set(pyspiel.registered_names())
    for rules_id, cls in GAMES.items():
        if NAMES[rules_id] not in known:
            pyspiel.register_game(game_type(rules_id), cls)
