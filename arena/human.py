"""A human at the keyboard, as a bot: `arena play --bots statistician,human` prompts for
every decision, shows the seat's private view, and re-prompts on bad input with answers
that are legal at that moment; `help` shows the choices and the claim ladder."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import click

from arena.bot import Bot, BotContext
from arena.hands import CATEGORY_TEXT, Claim, HandError, value
from arena.primer import rules_help
from arena.rules import description_of, get_rules
from arena.rules.actions import (
    Accept,
    Action,
    Bid,
    Challenge,
    Choose,
    Look,
    Pass,
    Reroll,
    parse_action,
)
from arena.rules.base import Description, Observation

ACTION_WORDS = frozenset(
    ("challenge", "reject", "liar", "mentiroso", "accept", "look", "reroll", "exchange",
     "claim", "pass", "choose")
)
CLAIM_WORDS = frozenset(text.partition("-")[0] for text in CATEGORY_TEXT.values())
"""First words of a claim ('full', 'two' of 'two-pair', 'three' of 'three-of-a-kind')."""
HELP_WORDS = frozenset(("help", "?", "h"))
RULES_WORD = "rules"
"""After a help word (or alone): how the game goes, every claim, the options in force."""
STOP = "end of input (Ctrl-D) or Ctrl-C stops the game"
"""How a person at the terminal stops a game, as `help` says it."""
LADDER_BELOW, LADDER_ABOVE = 2, 4
"""Claims shown below the claim to beat and above it in `help`."""


class Quit(BaseException):
    """The person stopped the game (end of input or Ctrl-C). A BaseException, so that no host
    turns it into the seat's fault: the game stops at once instead."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


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
        rules = self.context.description or observation.rules
        self.say(view_lines(observation, rules))
        sof = bool(self.context.options.get("straight_over_full", False))
        while True:
            text = self._read(f"seat {self.seat}, {observation.decision}")
            if asks_rules(text):
                self.say("\n".join(rules_help(get_rules(self.context.rules),
                                              self.context.options)))
                continue
            if text.strip().lower() in HELP_WORDS:
                self.say(help_lines(observation, sof, rules))
                continue
            answer = take(text, observation, sof)
            if not isinstance(answer, str):
                return answer
            self.say(answer)

    def _read(self, prompt: str) -> str:
        """One line from the person; end of input or Ctrl-C stops the game."""
        try:
            return self.ask(prompt)
        except (click.Abort, EOFError, KeyboardInterrupt) as exc:
            cause = exc.__context__ if isinstance(exc, click.Abort) else exc
            self.say("")  # end the prompt's line
            raise Quit("Ctrl-C" if isinstance(cause, KeyboardInterrupt)
                       else "end of input") from None


def asks_rules(text: str) -> bool:
    """Whether the person typed `help rules` (or `rules`, `? rules`)."""
    words = text.lower().split()
    return words[-1:] == [RULES_WORD] and (len(words) == 1 or (
        len(words) == 2 and words[0] in HELP_WORDS))


def read_action(text: str, decision: str, straight_over_full: bool = False) -> Action:
    """Read an action as typed; a bare claim ('pair J') is the claim of this decision (a
    pass in a `cards` turn)."""
    words = text.split()
    if not words or words[0].lower() in ACTION_WORDS:
        return parse_action(text, straight_over_full)
    if decision == "choose" and len(words) == 1 and words[0].isdigit():
        return parse_action(f"choose {words[0]}", straight_over_full)  # a bare seat number
    verb = "pass" if decision == "turn" else "claim"
    try:
        return parse_action(f"{verb} {text}", straight_over_full)
    except HandError:
        if words[0].lower().partition("-")[0] in CLAIM_WORDS:
            raise  # a claim, badly written: its own message says what is wrong
        raise HandError(f"{text!r} is not an action or a claim (type help for the choices)"
                        ) from None


def take(text: str, observation: Observation, straight_over_full: bool = False) -> Action | str:
    """The person's line as a legal action of this decision, or what the prompt answers (not
    understood or not legal, and what to try): the terminal and the browser say the same."""
    try:
        action = read_action(text, observation.decision, straight_over_full)
    except HandError as exc:
        return f"  not understood: {exc}\n  try: {try_line(observation)}"
    problem = observation.legal.problem(action)
    if problem is None:
        return action
    return f"  not legal: {problem}\n  try: {try_line(observation)}"


def legal_examples(obs: Observation) -> list[Action]:
    """A few answers that are legal at this decision, the simplest first."""
    claims = obs.legal_claims()
    picks: list[Claim] = list(dict.fromkeys(claims[i] for i in (0, len(claims) // 3)
                                            if claims))
    face_down = [p for p, up in enumerate(obs.face_up or ()) if not up][:2]
    candidates: list[Action] = [Challenge(), Look(), Accept(), *map(Bid, picks),
                                Reroll((0, 3)), Reroll(()), *map(Pass, picks),
                                *map(Choose, obs.legal.seats[:2])]
    if picks:
        candidates.append(Pass(picks[0], ((2, 0),), tuple(face_down)))
    return [a for a in candidates if obs.legal.problem(a) is None]


def example_texts(obs: Observation) -> list[str]:
    """The legal examples written as the person would type them."""
    return [str(a).replace(",", "") for a in legal_examples(obs)]


def try_line(obs: Observation) -> str:
    """The legal examples as the prompt reads them, for a re-prompt."""
    return "   |   ".join(example_texts(obs))


def ladder(obs: Observation) -> str:
    """The claims around the claim to beat, lowest first, the claim to beat in brackets."""
    space = obs.legal.space
    beat = -1 if obs.claim is None else space.index.get(obs.claim, -1)
    middle = beat if beat >= 0 else obs.legal.min_index
    start, stop = max(0, middle - LADDER_BELOW), min(len(space), middle + LADDER_ABOVE + 1)
    shown = [f"[{c}]" if i == beat else str(c)
             for i, c in enumerate(space.claims[start:stop], start)]
    head = "... < " if start > 0 else ""
    tail = " < ..." if stop < len(space) else ""
    return head + " < ".join(shown) + tail


def hand_values(obs: Observation, straight_over_full: bool,
                rules: Description | str | None = None) -> list[str]:
    """What the hands you can see are worth: your own, and the central hand when you see all
    of it."""
    lines = []
    if obs.hand is not None:
        label = "your cards" if description_of(rules or obs.rules).central else "your hand"
        lines.append(f"{label}: {_worth(obs.hand, straight_over_full)}")
    if obs.central is not None and all(obs.central):
        lines.append(f"the central hand: {_worth(obs.central, straight_over_full)}")
    return lines


def _worth(tokens: Sequence[str | None], straight_over_full: bool) -> str:
    text = " ".join(t or "" for t in tokens)
    return f"{value(text, straight_over_full)} ({text})"


def help_lines(obs: Observation, straight_over_full: bool = False,
               rules: Description | str | None = None, stop: str = STOP) -> str:
    """The choices of this decision, the claim ladder, and the value of what you hold; `stop`
    says how to stop the game where the person plays (none in a browser)."""
    lines = [f"  you may: {obs.legal.describe().removeprefix('legal: ')}",
             f"  e.g.: {try_line(obs)}"]
    if obs.decision != "choose":  # choosing the receiver claims nothing
        lines.append(f"  claim ladder: {ladder(obs)}")
    lines += [f"  {line}" for line in hand_values(obs, straight_over_full, rules)]
    verb = "pass" if obs.decision == "turn" else "claim"
    low = obs.min_claim
    bare = f"'{low}' alone means '{verb} {low}'; " if any(
        isinstance(a, Bid | Pass) for a in legal_examples(obs)) else ""
    if obs.decision == "choose" and obs.legal.seats:
        seat = obs.legal.seats[0]
        bare = f"'{seat}' alone means 'choose {seat}'; "
    if bare or stop:
        lines.append(f"  {bare}{stop}".removesuffix("; "))
    lines.append("  help rules: how the game goes, every claim, the options in force")
    return "\n".join(lines)


def view_lines(obs: Observation, rules: Description | str | None = None) -> str:
    """What the human may see now, in a few lines (`rules`: the rule set's description, or
    a built-in id; default: the observation's)."""
    description = description_of(rules or obs.rules)
    word = description.unit
    scores = "  ".join(f"seat {s}: {v}{'' if obs.active[s] else ' (out)'}"
                       for s, v in enumerate(obs.scores))
    lines = [f"  {word}: {scores}"]
    if obs.hand is not None:
        label = "your cards" if description.central else "under the cup"
        lines.append(f"  {label}: {' '.join(obs.hand)}   (positions 0-4)")
    if obs.central is not None:
        lines.append("  central hand: " + " ".join(c or "??" for c in obs.central))
    if obs.claim is not None:
        lines.append(f"  claim to beat: {obs.claim} (by seat {obs.claimant})")
    low = obs.min_claim
    if obs.decision == "choose":  # no claim is made here: say whom you may choose
        choice = obs.legal.describe().removeprefix("legal: ")
    else:
        choice = f"lowest legal claim: {low}" if low else "no higher claim exists"
    lines.append(f"  you decide: {obs.decision}; {choice}   (help: your choices)")
    return "\n".join(lines)
