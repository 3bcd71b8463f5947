"""A seed names one game, for ever: short games of each rule set, written out move by move
(OpenSpiel-style playthroughs) in tests/playthroughs/, and played again here to the letter.

Each file holds one game through the referee with `random` bots: its seed and options, then
every chance outcome, every event (private ones marked with the seat that sees them), what
the seat to act observed (decision, claim to beat, hand, scores, what was legal) and what it
did, and the result. When a change to the rules, the referee or the way chance is drawn alters
a game, the test fails with the diff of the first lines that differ; a change meant to alter
games goes with a rule-set version and new files, written with

    ARENA_REGEN_PLAYTHROUGHS=1 python -m pytest tests/test_playthroughs.py

(which rewrites every file and skips the comparison), then read with `git diff` before commit.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from arena_bots.random_bot import RandomBot

import arena
from arena.referee import ActionEntry, GameRecord, play_game
from arena.rules.actions import Chance
from arena.rules.base import Event

FOLDER = Path(__file__).parent / "playthroughs"
REGEN = "ARENA_REGEN_PLAYTHROUGHS"

GAMES: dict[str, tuple[str, int, int, dict[str, Any]]] = {
    "dice-2": ("dice", 2, 11, {"max_points": 2}),
    "dice-3-loser-chooses": ("dice", 3, 2, {"max_points": 2, "receiver": "loser_chooses",
                                            "look_must_reroll": True,
                                            "reroll_once_per": "round"}),
    "dice-cards-2": ("dice-cards", 2, 11, {"max_points": 2}),
    "dice-cards-3": ("dice-cards", 3, 3, {"max_points": 1, "straight_over_full": True}),
    "cards-3": ("cards", 3, 6, {"chips": 2, "penalty": 1, "accept_reward": 0}),
    "cards-3-rejecter": ("cards", 3, 5, {"chips": 1, "fresh_hand_to": "rejecter",
                                         "accept_reward": 0}),
    "dice-2-defaults": ("dice", 2, 11, {}),
    "dice-cards-3-defaults": ("dice-cards", 3, 11, {}),
    "cards-3-defaults": ("cards", 3, 11, {}),
}
"""Each playthrough: rule set, seats, seed and options (small ones keep a game short); the
three `-defaults` games are the ones tests/test_same_seed_same_game.py pinned by a hash."""


def recording(lines: list[str]) -> type[arena.Bot]:
    """The `random` bot, noting each observation before it acts."""

    class Recording(RandomBot):
        def act(self, observation: arena.Observation) -> arena.Action:
            lines.append(observed(observation))
            return super().act(observation)

    return Recording


def _tokens(values: tuple[Any, ...] | None) -> str:
    return " ".join("??" if v is None else str(v) for v in values or ()) or "-"


def observed(obs: arena.Observation) -> str:
    """One observation's key facts on one line."""
    claim = "none" if obs.claim is None else f"{obs.claim} by seat {obs.claimant}"
    facts = [f"decision {obs.decision}", f"claim {claim}", f"hand {_tokens(obs.hand)}"]
    if obs.central is not None:
        facts += [f"central {_tokens(obs.central)}", f"draw pile {obs.draw_pile}"]
    still_in = tuple(seat for seat, active in enumerate(obs.active) if active)
    facts += [f"scores {_tokens(obs.scores)}", f"in {_tokens(still_in)}"]
    return f"seat {obs.seat} observes: " + "; ".join(facts) + f"; {obs.legal.describe()}"


def _options(options: Mapping[str, Any]) -> str:
    return " ".join(f"{key}={value}" for key, value in sorted(options.items()))


def playthrough(name: str) -> str:
    """Play the named game again and write it out move by move."""
    rules, seats, seed, options = GAMES[name]
    seen: list[str] = []
    record = play_game(rules, [recording(seen)] * seats, seed=seed, options=options)
    assert record.faults == ()
    header = [
        f"# playthrough {name}: {rules}, {seats} random bots, seed {seed}",
        f"# written by tests/test_playthroughs.py; rewrite on purpose: {REGEN}=1",
        f"rules {record.rules} version {record.version}",
        f"options {_options(record.options)}",
        f"seed {record.seed}",
        "",
    ]
    return "\n".join(header + moves(record, iter(seen)) + ["", *ending(record)]) + "\n"


def moves(record: GameRecord, seen: Any) -> list[str]:
    """The game's log as lines: chance outcomes, events, and each decision with what the
    seat observed before it."""
    lines = []
    for entry in record.log:
        if isinstance(entry, Chance):
            lines.append(str(entry))
        elif isinstance(entry, Event):
            private = "" if entry.to is None else f" (to seat {entry.to})"
            lines.append(f"  event: {entry}{private}")
        elif isinstance(entry, ActionEntry):
            lines += [next(seen), f"seat {entry.seat} acts: {entry.action}"]
    return lines


def ending(record: GameRecord) -> list[str]:
    """How the game came out, and how many decisions it took."""
    result = record.result
    placed = f"result: placements {_tokens(result.placements)}; scores {_tokens(result.scores)}"
    return [f"{placed}; out in order {_tokens(result.out_order)}", f"decisions {record.decisions}"]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_seed_plays_the_game_written_in_its_playthrough(name: str) -> None:
    path = FOLDER / f"{name}.txt"
    text = playthrough(name)
    if os.environ.get(REGEN):
        path.write_text(text, encoding="utf-8")
        pytest.skip(f"{REGEN}: rewrote {path.name}")
    written = path.read_text(encoding="utf-8")
    diff = difflib.unified_diff(written.splitlines(), text.splitlines(), f"{path.name} (written)",
                                f"{name} (played now)", lineterm="")
    assert text == written, "\n".join(diff)


def test_every_playthrough_file_is_a_game_played_here() -> None:
    assert sorted(p.stem for p in FOLDER.glob("*.txt")) == sorted(GAMES)
