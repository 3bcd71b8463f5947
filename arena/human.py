"""A human at the keyboard, as a bot: `arena play --bots statistician,human` prompts for
every decision, shows the seat's private view, and re-prompts on bad input with a hint."""

from __future__ import annotations

from collections.abc import Callable

import click

from arena.bot import Bot, BotContext
from arena.hands import HandError
from arena.rules.actions import Action, parse_action
from arena.rules.base import Observation

_HINTS = {
    "claim": "claim pair J   |   claim full K 9   |   claim two-pair A 9",
    "respond": "challenge   |   look   |   claim three Q   (a claim without looking is blind)",
    "reroll": "reroll 0 3   (positions 0-4 to reroll/exchange)   |   reroll none",
    "accept": "accept   |   challenge   (reject the central hand)",
    "turn": "pass three Q   |   pass full 4 J swap 2-0 reveal 1 3   (swap own-central)",
    "choose": "choose 2   (the seat that receives your claim)",
}


class HumanBot(Bot):
    """A person typing actions at the terminal."""

    name = "human"

    def __init__(self, context: BotContext,
                 ask: Callable[[str], str] | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        super().__init__(context)
        self.ask = ask or (lambda prompt: click.prompt(prompt, prompt_suffix=" > "))
        self.say = say or click.echo

    def act(self, observation: Observation) -> Action:
        """Show the private view and read an action until it is legal."""
        self.say(view_lines(observation))
        sof = bool(self.context.options.get("straight_over_full", False))
        while True:
            text = self.ask(f"seat {self.seat}, {observation.decision}")
            try:
                action = parse_action(text, sof)
            except HandError as exc:
                self.say(f"  not understood: {exc}\n  try: {_HINTS[observation.decision]}")
                continue
            problem = observation.legal.problem(action)
            if problem is None:
                return action
            self.say(f"  not legal: {problem}\n  try: {_HINTS[observation.decision]}")


def view_lines(obs: Observation) -> str:
    """What the human may see now, in a few lines."""
    word = "chips" if obs.rules == "cards" else "points"
    scores = "  ".join(f"seat {s}: {v}{'' if obs.active[s] else ' (out)'}"
                       for s, v in enumerate(obs.scores))
    lines = [f"  {word}: {scores}"]
    if obs.hand is not None:
        label = "your cards" if obs.rules == "cards" else "under the cup"
        lines.append(f"  {label}: {' '.join(obs.hand)}   (positions 0-4)")
    if obs.central is not None:
        lines.append("  central hand: " + " ".join(c or "??" for c in obs.central))
    if obs.claim is not None:
        lines.append(f"  claim to beat: {obs.claim} (by seat {obs.claimant})")
    low = obs.min_claim
    lines.append(f"  you decide: {obs.decision}; "
                 + (f"lowest legal claim: {low}" if low else "no higher claim exists"))
    return "\n".join(lines)
