"""What the organiser checks of a game a cluster worker says it played (arena.executor.trust
asks): nothing of a worker's result is taken on its word.

- The replay is the evidence: at most REPLAY_BYTES, unpacked as a stream no further than
  arena.tournament.run.safe_read allows, parsed line by line within its limits.
- Its header must be the game the organiser scheduled (id, stage, table, tournament, seed,
  rule set, options, limits, who sits where), and it must re-apply through the rules
  (arena.verify) with every fault of its result in its log: the dice and cards come from
  the seed, which the organiser knows, so a forged die, placement or score cannot pass.
- The games.jsonl line and the placements are rebuilt here from that replay, never taken
  from the worker: the line is the one a local run writes, byte for byte.
- A game the rules accept may still have been played by another bot: a fraction SAMPLE of
  the games, chosen by a key drawn here (no worker can tell which), are played again on
  another worker and compared without their timings (`same`).

On a cluster every game's replay comes back to be checked (with `replays: false` the run
drops it once checked, and the line lists none). This module never plays a game and never
writes a file.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Mapping
from typing import Any

from arena.executor.trust import Untrusted
from arena.replay import Replay, ReplayError, read_replay, timeless
from arena.rules import get_rules
from arena.tournament.errors import TournamentError
from arena.tournament.formats.schedule import GameSpec
from arena.tournament.run import safe_read
from arena.tournament.run.worker import _LINE, GameSetup, Played, replay_name
from arena.verify import verify_replay

__all__ = ["SAMPLE", "GameJudge", "sample_fraction"]

SAMPLE = 0.05
"""The fraction of a cluster's games played again on another worker (ARENA_CLUSTER_CHECKS
says otherwise): a worker that swaps a bot in k games is caught with probability
1 - 0.95^k (64% at k = 20, 92% at 50, 99.4% at 100), for 5% more games played
(docs/cluster.md)."""


def sample_fraction() -> float:
    """SAMPLE, or ARENA_CLUSTER_CHECKS from the environment (0 to 1)."""
    text = os.environ.get("ARENA_CLUSTER_CHECKS", "").strip()
    if not text:
        return SAMPLE
    try:
        fraction = float(text)
    except ValueError:
        fraction = -1.0
    if not 0.0 <= fraction <= 1.0:
        raise TournamentError("ARENA_CLUSTER_CHECKS must be the fraction of a cluster's games "
                              f"played again elsewhere, from 0 to 1, not {text!r}")
    return fraction


class GameJudge:
    """The organiser's judge of a tournament's games played on a cluster."""

    def __init__(self, setup: GameSetup, replays: bool, fraction: float | None = None) -> None:
        self.setup, self.replays = setup, replays
        self.fraction = sample_fraction() if fraction is None else fraction
        self.key = secrets.token_bytes(32)
        """Which games are sampled: drawn here, never sent anywhere."""
        ruleset = get_rules(setup.rules)
        limits = setup.limits
        self.fixed = _plain({
            "rules": {"id": ruleset.id, "version": ruleset.version},
            "options": dict(ruleset.check_options(setup.options.dict())),
            "limits": {"decision": limits.decision, "bank": limits.bank,
                       "wall_factor": limits.wall_factor},
        })
        """What every game's header says, whoever plays it."""

    def sampled(self, game: GameSpec) -> bool:
        """Whether this game is played again on another worker (by the secret key)."""
        mac = hmac.new(self.key, game.id.encode("utf-8"), hashlib.sha256).digest()
        return int.from_bytes(mac[:8], "big") < self.fraction * 2 ** 64

    def same(self, one: Played, other: Played) -> bool:
        """Whether two checked plays of a game are the same play, but for their timings."""
        return _timeless(one) == _timeless(other)

    def accept(self, game: GameSpec, played: object) -> Played:
        """The game as the organiser rebuilds it from its checked replay; Untrusted if not."""
        replay = self._replay(game, played)
        problem = self._header_problem(game, replay.header) or verify_replay(replay) \
            or _faults_problem(replay)
        if problem is not None:
            raise Untrusted(f"game {game.id}: {problem}")
        line = _LINE.encode(_line(game, replay, replay_name(game.id) if self.replays else None))
        return Played(game.id, tuple(replay.result["placements"]), line,
                      played.replay if isinstance(played, Played) else None)

    def _replay(self, game: GameSpec, played: object) -> Replay:
        """The worker's replay of the game, read within the caps; Untrusted if none."""
        data = played.replay if isinstance(played, Played) else None
        if not isinstance(data, bytes):
            raise Untrusted(f"game {game.id}: it sent no replay")
        if len(data) > safe_read.REPLAY_BYTES:
            raise Untrusted(f"game {game.id}: its replay is larger than "
                            f"{safe_read.REPLAY_BYTES >> 20} MiB")
        try:
            return read_replay(data, "its replay")
        except (ReplayError, RecursionError) as exc:
            raise Untrusted(f"game {game.id}: {exc}") from None

    def _header_problem(self, game: GameSpec, header: Mapping[str, Any]) -> str | None:
        """How the replay's header differs from the game the organiser scheduled."""
        wanted = {**self.fixed, "seed": game.seed, "game": _plain({
            "id": game.id, "stage": game.stage, "table": game.table,
            "tournament": self.setup.tournament})}
        for key, value in wanted.items():
            if header.get(key) != value:
                return f"its replay's header has {key} {_show(header.get(key))}, not {_show(value)}"
        seats = header.get("entrants")
        if not isinstance(seats, list) or len(seats) != len(game.seats):
            return f"its replay seats {_show(seats)}, not {len(game.seats)} entrants"
        for seat, (index, found) in enumerate(zip(game.seats, seats, strict=True)):
            entrant = self.setup.entrants[index]
            want = _plain({"seat": seat, "name": entrant.name, "bot": entrant.bot,
                           **({"command": list(entrant.command)} if entrant.command else {})})
            if not isinstance(found, dict) or {k: found.get(k) for k in want} != want:
                return f"its replay's seat {seat} is {_show(found)}, not {entrant.name}"
        return None


def _faults_problem(replay: Replay) -> str | None:
    """Whether the result's faults are the log's (the rules check the rest of the result)."""
    keys = ("seat", "kind", "message", "sent", "trace")
    logged = [{k: e.get(k) for k in keys} for e in replay.log if e.get("type") == "fault"]
    result = replay.result.get("faults")
    told = [{k: f.get(k) for k in keys} for f in result] if isinstance(result, list) and \
        all(isinstance(f, dict) for f in result) else None
    if told != logged:
        return "its replay's result lists other faults than its log"
    return None


def _line(game: GameSpec, replay: Replay, listed: str | None) -> dict[str, Any]:
    """The games.jsonl line of a checked game, as arena.tournament.run.worker.game_line writes."""
    result = replay.result
    return {
        "id": game.id,
        "stage": game.stage,
        "table": game.table,
        "seed": game.seed,
        "entrants": [seat["name"] for seat in replay.header["entrants"]],
        "placements": result["placements"],
        "scores": result["scores"],
        "faults": [{k: v for k, v in f.items() if k != "decision"} for f in result["faults"]],
        "decisions": result["decisions"],
        "replay": listed,
    }


def _timeless(played: Played) -> list[dict[str, Any]]:
    return timeless(read_replay(played.replay or b"", "replay"))


def _plain(value: object) -> Any:
    return json.loads(json.dumps(value))


def _show(value: object) -> str:
    return json.dumps(value, sort_keys=True)[:120]
