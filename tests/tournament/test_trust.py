"""What the organiser refuses of a game a cluster worker returns (arena.tournament.run.trust),
lie by lie, without a cluster: every field a worker could forge is checked against the
schedule, the seed and the rules, and the sample of games played again is the fraction
asked, drawn by a key no worker sees."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from cli_support import write_config

from arena.executor.trust import Untrusted
from arena.tournament.errors import TournamentError
from arena.tournament.formats.registry import plan_for
from arena.tournament.formats.schedule import GameSpec
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import tournament_setup
from arena.tournament.run.trust import GameJudge, sample_fraction
from arena.tournament.run.worker import Played, _Worker

CONFIG = """
    name: trust
    rules: dice
    entrants: [honest, random, statistician]
    format: {type: round-robin, seats: 2, games: 1}
    seed: 11
"""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[GameJudge, GameSpec, Played]:
    """A judge, a game of the schedule, and that game as an honest worker returns it."""
    cfg = load_tournament(write_config(tmp_path_factory.mktemp("trust"), CONFIG))
    setup = replace(tournament_setup(cfg), replays=True)
    game = next(g for g in plan_for(cfg).batch({}) if g.id == "rr-000001")
    worker = _Worker(setup)
    try:
        return GameJudge(setup, True, 0.0), game, worker.play(game)
    finally:
        worker.shutdown()


def _lines(played: Played) -> list[dict[str, Any]]:
    return [json.loads(x) for x in gzip.decompress(played.replay or b"").decode().splitlines()]


def _forged(played: Played, change: Any) -> Played:
    lines = _lines(played)
    change(lines)
    text = "".join(json.dumps(line) + "\n" for line in lines)
    return replace(played, replay=gzip.compress(text.encode(), mtime=0))


def test_an_honest_game_is_accepted_and_its_line_is_the_workers_own(
    played: tuple[GameJudge, GameSpec, Played],
) -> None:
    judge, game, honest = played
    assert judge.accept(game, honest) == honest
    assert judge.same(honest, judge.accept(game, _forged(honest, lambda lines: None)))


def _seat_renamed(lines: list[dict[str, Any]]) -> None:
    lines[0]["entrants"][0]["name"] = "statistician"


def _fault_forged(lines: list[dict[str, Any]]) -> None:
    lines[-1]["faults"] = [{"seat": 0, "kind": "timeout", "message": "forged", "decision": 1}]


def _options(lines: list[dict[str, Any]]) -> None:
    lines[0]["options"]["dice"] = 4


LIES = {
    "another seed": lambda lines: lines[0].update(seed=lines[0]["seed"] + 1),
    "another game's id": lambda lines: lines[0]["game"].update(id="rr-000002"),
    "another tournament": lambda lines: lines[0]["game"].update(tournament="other"),
    "a seat renamed": _seat_renamed,
    "other options": _options,
    "longer time limits": lambda lines: lines[0]["limits"].update(decision=60.0),
    "placements": lambda lines: lines[-1].update(placements=lines[-1]["placements"][::-1]),
    "a fault the log has not": _fault_forged,
    "a die changed": lambda lines: next(x for x in lines if x["type"] == "chance").update(
        outcome=[6] * len(next(x for x in lines if x["type"] == "chance")["outcome"])),
}


@pytest.mark.parametrize("lie", sorted(LIES))
def test_each_forged_field_of_a_game_is_refused(
    played: tuple[GameJudge, GameSpec, Played], lie: str,
) -> None:
    judge, game, honest = played
    with pytest.raises(Untrusted, match=f"^game {game.id}: "):
        judge.accept(game, _forged(honest, LIES[lie]))


REPLAYS: dict[str, tuple[Callable[[], bytes | None], str]] = {
    "too big": (lambda: b"\0" * ((16 << 20) + 1), "its replay is larger than 16 MiB"),
    "a bomb": (lambda: gzip.compress(b" " * (65 << 20), mtime=0), "unpacks to more than 64 MiB"),
    "junk": (lambda: b"junk", "its replay:1: not JSON"),
    "no header": (lambda: gzip.compress(b"[]\n", mtime=0), "line 1 is not an arena-replay header"),
    "none": (lambda: None, "it sent no replay"),
}
"""What a worker sends as a game's replay, made in its test (not at collection, in every
process that collects: the bomb is 65 MiB to pack), named (its bytes would be a test id of
tens of MiB), and what the judge says of it."""


@pytest.mark.parametrize("sent", sorted(REPLAYS))
def test_a_replay_too_big_a_bomb_junk_or_none_is_refused_in_one_line(
    played: tuple[GameJudge, GameSpec, Played], sent: str,
) -> None:
    make, said = REPLAYS[sent]
    replay = make()
    judge, game, honest = played
    with pytest.raises(Untrusted, match=said) as refused:
        judge.accept(game, replace(honest, replay=replay))
    assert "\n" not in str(refused.value)


def test_the_sample_is_the_fraction_asked_and_no_two_runs_choose_the_same_games(
    played: tuple[GameJudge, GameSpec, Played], monkeypatch: pytest.MonkeyPatch,
) -> None:
    judge, game, _ = played
    games = [replace(game, id=f"rr-{i:06}") for i in range(20000)]
    one, other = (GameJudge(judge.setup, True, 0.05) for _ in range(2))
    chosen = [g.id for g in games if one.sampled(g)]
    assert 800 < len(chosen) < 1200  # 5% of 20,000: 1,000, give or take 6 sigma
    assert chosen != [g.id for g in games if other.sampled(g)]
    monkeypatch.setenv("ARENA_CLUSTER_CHECKS", "0.2")
    assert sample_fraction() == 0.2
    monkeypatch.setenv("ARENA_CLUSTER_CHECKS", "most")
    with pytest.raises(TournamentError, match="ARENA_CLUSTER_CHECKS must be the fraction"):
        sample_fraction()

