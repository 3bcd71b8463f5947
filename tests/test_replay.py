"""Replays: written from a game record, valid against the schema, re-applied without bots."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from stumbling import stumbler

import arena
from arena import play_game
from arena.referee import GameRecord
from arena.replay import (
    Replay,
    ReplayError,
    encode_game,
    encode_replay,
    parse_replay,
    read_replay,
    replay_lines,
    schema,
    timeless,
    write_replay,
)
from arena.verify import verify_replay

VALIDATOR = jsonschema.Draft202012Validator(schema())


Stumbler = stumbler(lambda n: n % 3 == 0)


class Cheat(arena.Bot):
    """Always answers with a challenge, which is illegal where a claim is due."""

    name = "cheat"

    def act(self, observation: arena.Observation) -> arena.Action:
        return arena.Challenge()


GAMES = {
    "dice": (["random", Stumbler, "random", "random"], {"on_fault": "penalty", "max_faults": 2}),
    "dice-cards": (["random", "random", Cheat], {}),
    "cards": (["random", Stumbler, "random"], {"on_fault": "penalty", "max_faults": 3}),
}


def _seats(record: GameRecord) -> list[dict[str, Any]]:
    return [
        {"name": p.name, "bot": p.name, "origin": p.origin, "version": p.version, "mode": "inline"}
        for p in record.players
    ]


def _lines(rules: str, seed: int = 11) -> list[dict[str, Any]]:
    players, options = GAMES[rules]
    record = play_game(rules, players, seed=seed, options=options)
    return replay_lines(record, {"id": f"{rules}-1", "stage": "main", "table": 1}, _seats(record))


@pytest.mark.parametrize("rules", sorted(GAMES))
def test_a_tournament_writes_the_replay_lines_and_the_same_bytes_for_the_same_game(
    rules: str,
) -> None:
    """encode_game, which writes the text straight from the record keeping the lines it has
    made, gives replay_lines' dicts as compact JSON lines, game after game, and the same
    bytes for the same game however many it wrote before."""
    players, options = GAMES[rules]
    records = [play_game(rules, players, seed=seed, options=options) for seed in range(12)]
    files = []
    for seed, record in enumerate(records):
        about, seats = {"id": f"{rules}-{seed}", "stage": "main", "table": 1}, _seats(record)
        raw = encode_game(record, about, seats)
        text = gzip.decompress(raw).decode()
        assert text.endswith("\n") and "\n\n" not in text
        assert [json.loads(line) for line in text.splitlines()] == json.loads(
            json.dumps(replay_lines(record, about, seats)))
        assert read_replay(raw).lines() == read_replay(encode_replay(
            replay_lines(record, about, seats))).lines()
        files.append(raw)
    again = [encode_game(r, {"id": f"{rules}-{s}", "stage": "main", "table": 1}, _seats(r))
             for s, r in enumerate(records)]
    assert again == files


def _replay(lines: list[dict[str, Any]]) -> Replay:
    return parse_replay([json.dumps(line) for line in lines])


@pytest.fixture(scope="module", params=sorted(GAMES))
def lines(request: pytest.FixtureRequest) -> list[dict[str, Any]]:
    return _lines(request.param)


def test_replays_validate_against_the_schema_and_verify(lines: list[dict[str, Any]]) -> None:
    replay = read_replay(encode_replay(lines))
    VALIDATOR.validate(replay.lines())
    assert verify_replay(replay) is None
    kinds = {line["type"] for line in replay.log}
    assert kinds == {"chance", "action", "event", "fault"}
    assert replay.result["faults"], "the game was meant to have faults"


def test_private_information_is_in_the_replay(lines: list[dict[str, Any]]) -> None:
    events = [line["event"] for line in lines if line["type"] == "event"]
    shown = [e for e in events if "to" in e and ("hand" in e or "central" in e)]
    assert shown, "no private hand: a replay must show every die and card"
    seats = len(lines[0]["entrants"])
    seen_by = {e["to"] for e in shown}
    if lines[0]["rules"]["id"] == "cards":
        assert seen_by == set(range(seats)), "in cards every seat is dealt a private hand"
    else:
        assert seen_by <= set(range(seats)) and 0 in seen_by, "seat 0 throws first"


def test_a_replay_file_round_trips_and_its_bytes_depend_only_on_the_game(tmp_path: Path) -> None:
    lines = _lines("dice")
    path = tmp_path / "g.json.gz"
    write_replay(path, lines)
    raw = path.read_bytes()
    assert raw[4:8] == b"\0\0\0\0", "gzip mtime must be 0"
    assert raw == encode_replay(copy.deepcopy(lines))
    assert read_replay(path).lines() == lines
    again = _lines("dice")
    assert timeless(_replay(again)) == timeless(_replay(lines))
    assert [p.name for p in tmp_path.iterdir()] == ["g.json.gz"]


def test_plain_json_lines_are_read_too() -> None:
    lines = _lines("cards")
    text = "\n".join(json.dumps(line) for line in lines).encode()
    assert read_replay(text).lines() == lines


def _first(lines: list[dict[str, Any]], kind: str, after: int = 0) -> int:
    return next(i for i, line in enumerate(lines) if line["type"] == kind and i > after)


def _tamper(lines: list[dict[str, Any]], index: int, **changes: Any) -> list[dict[str, Any]]:
    out = copy.deepcopy(lines)
    out[index].update(changes)
    return out


def test_a_changed_die_is_found_at_its_line() -> None:
    lines = _lines("dice")
    at = _first(lines, "chance")
    faces = lines[at]["outcome"]
    changed = [14 if faces[0] != 14 else 9, *faces[1:]]
    difference = verify_replay(_replay(_tamper(lines, at, outcome=changed)))
    assert difference is not None
    assert difference.line == at + 3  # the roll event two lines on shows other dice
    assert "differs from the rules'" in difference.message


def test_an_impossible_chance_outcome_is_found() -> None:
    lines = _lines("dice")
    at = _first(lines, "chance")
    difference = verify_replay(_replay(_tamper(lines, at, outcome=[1, 2, 3])))
    assert difference is not None and difference.line == at + 1
    assert difference.message.startswith("chance cannot be applied")


def test_a_changed_event_a_missing_event_and_an_extra_event_are_found() -> None:
    lines = _lines("dice")
    at = _first(lines, "event")
    changed = _tamper(lines, at, event={**lines[at]["event"], "seat": 3})
    assert verify_replay(_replay(changed)) is not None
    assert verify_replay(_replay(changed)).line == at + 1  # type: ignore[union-attr]
    missing = lines[:at] + lines[at + 1 :]
    difference = verify_replay(_replay(missing))
    assert difference is not None and difference.line in (at + 1, at + 2)
    extra = [*lines[: at + 1], lines[at], *lines[at + 1 :]]
    difference = verify_replay(_replay(extra))
    assert difference is not None and difference.line in (at + 2, at + 3)


def test_an_action_by_the_wrong_seat_or_an_illegal_action_is_found() -> None:
    lines = _lines("dice")
    at = _first(lines, "action")
    wrong_seat = _tamper(lines, at, seat=(lines[at]["seat"] + 1) % 4)
    difference = verify_replay(_replay(wrong_seat))
    assert difference is not None and difference.line == at + 1
    assert "acts where seat" in difference.message
    illegal = _tamper(lines, at, action={"type": "accept"})
    difference = verify_replay(_replay(illegal))
    assert difference is not None and difference.line == at + 1
    assert "action cannot be applied" in difference.message


def test_a_different_result_or_a_cut_log_is_found() -> None:
    lines = _lines("cards")
    last = len(lines)
    wrong = _tamper(lines, last - 1, placements=list(reversed(lines[-1]["placements"])))
    if wrong[-1]["placements"] != lines[-1]["placements"]:
        difference = verify_replay(_replay(wrong))
        assert difference is not None and difference.line == last
        assert "result placements" in difference.message
    decisions = _tamper(lines, last - 1, decisions=lines[-1]["decisions"] + 1)
    assert "result decisions" in str(verify_replay(_replay(decisions)))
    cut_at = _first(lines, "action", after=len(lines) // 2)
    cut = [*lines[:cut_at], lines[-1]]
    difference = verify_replay(_replay(cut))
    assert difference is not None
    assert "ends before the game is over" in difference.message


def test_a_replay_of_another_rules_version_is_refused_at_line_1() -> None:
    lines = _lines("dice")
    header = {**lines[0], "rules": {"id": "dice", "version": 999}}
    difference = verify_replay(_replay([header, *lines[1:]]))
    assert str(difference).startswith("line 1: rule set 'dice' is version 1")
    unknown = {**lines[0], "rules": {"id": "chess", "version": 1}}
    assert str(verify_replay(_replay([unknown, *lines[1:]]))) == "line 1: unknown rule set 'chess'"


def test_unreadable_replays_raise_replay_error(tmp_path: Path) -> None:
    lines = _lines("dice")
    with pytest.raises(ReplayError, match="not JSON"):
        read_replay(gzip.compress(b'{"type": "header"\n'))
    with pytest.raises(ReplayError, match="is not an arena-replay header"):
        read_replay(b'{"type": "result"}\n')
    with pytest.raises(ReplayError, match="cut short"):
        parse_replay([json.dumps(line) for line in lines[:-1]])
    with pytest.raises(ReplayError, match="format version 2"):
        parse_replay([json.dumps({**lines[0], "version": 2}), json.dumps(lines[-1])])
    with pytest.raises(ReplayError, match="cannot read"):
        read_replay(tmp_path / "missing.json.gz")
    with pytest.raises(ReplayError, match="cannot read"):
        read_replay(b"\x1f\x8bnot really gzip")
    raw = encode_replay(lines)
    with pytest.raises(ReplayError, match="cannot read: Error -3 while decompressing"):
        read_replay(raw[:10] + b"\xff" * 8 + raw[18:])


def test_the_schema_rejects_what_is_not_a_replay() -> None:
    lines = _lines("dice")
    at = _first(lines, "action")
    no_seconds = copy.deepcopy(lines)
    del no_seconds[at]["seconds"]
    bad_fault = _tamper(lines, _first(lines, "fault"), kind="tantrum")
    two_results = [*lines, lines[-1]]
    for bad in (no_seconds, bad_fault, two_results, lines[1:]):
        assert not VALIDATOR.is_valid(bad)
    assert VALIDATOR.is_valid(lines)


OLD_FOLDER = Path(__file__).parent / "fixtures" / "results-v1"


def test_a_results_folder_written_before_the_fault_details_still_verifies_and_reports(
        tmp_path: Path) -> None:
    import shutil

    from click.testing import CliRunner

    from arena.cli.main import cli

    folder = tmp_path / "old"
    shutil.copytree(OLD_FOLDER, folder)
    verified = CliRunner().invoke(cli, ["replay", str(folder), "--verify"])
    assert verified.exit_code == 0, verified.output
    assert "6 games verified" in verified.output
    for path in sorted((folder / "replays").glob("*.json.gz")):
        VALIDATOR.validate(read_replay(path).lines())
    reported = CliRunner().invoke(cli, ["report", str(folder)])
    assert reported.exit_code == 0, reported.output
    html = (folder / "report.html").read_text()
    assert "is not higher than the claim to beat" in html


def test_an_illegal_answer_is_kept_as_the_bot_sent_it_in_the_replay() -> None:
    lines = _lines("dice-cards")
    VALIDATOR.validate(lines)
    faults = [line for line in lines if line["type"] == "fault"]
    assert faults and all(f["sent"] == '{"type": "challenge"}' for f in faults)
    assert [f["sent"] for f in lines[-1]["faults"]] == ['{"type": "challenge"}']
    crashes = [line for line in _lines("dice") if line["type"] == "fault"]
    assert crashes and all("sent" not in f for f in crashes)


def test_games_jsonl_keeps_what_a_bot_sent_for_an_illegal_answer(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena.cli.main import cli

    config = tmp_path / "liar.yaml"
    config.write_text(f"name: liar\nrules: dice\nentrants:\n  - random\n"
                      f"  - bot: {OLD_FOLDER / 'liar.py'}\n    alias: liar\n"
                      f"format:\n  type: round-robin\n  seats: 2\n  games: 1\n"
                      f"seed: 3\nworkers: 1\n")
    ran = CliRunner().invoke(cli, ["run", str(config), "--out", str(tmp_path / "out")])
    assert ran.exit_code == 0, ran.output
    games = [json.loads(t) for t in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    faults = [f for g in games for f in g["faults"]]
    assert faults and {f["kind"] for f in faults} == {"illegal"}
    for fault in faults:
        sent = json.loads(fault["sent"])
        assert sent["type"] == "action" and sent["action"] == {"type": "bid", "claim": "high A"}


def test_the_header_records_the_time_limits_and_verify_checks_the_seconds_against_them(
        ) -> None:
    record = play_game("dice", ["random", "random"], seed=2,
                       limits=arena.Limits(0.5, bank=1.0, wall_factor=3.0))
    lines = replay_lines(record, {"id": "g", "stage": "main", "table": 1}, _seats(record))
    VALIDATOR.validate(lines)
    assert lines[0]["limits"] == {"decision": 0.5, "bank": 1.0, "wall_factor": 3.0}
    assert verify_replay(_replay(lines)) is None
    index = _first(lines, "action")
    seat = lines[index]["seat"]
    again = next(i for i, line in enumerate(lines)
                 if i > index and line["type"] == "action" and line["seat"] == seat)
    banked = _tamper(lines, index, seconds=1.4)  # 0.9 s of the bank: still within the limits
    assert verify_replay(_replay(banked)) is None
    twice = _tamper(banked, again, seconds=0.7)  # 0.1 s of the bank left: limit 0.6 s
    difference = verify_replay(_replay(twice))
    assert difference is not None and difference.line == again + 1
    assert f"seat {seat} took 0.7s, over its limit of 0.6s" in difference.message
    unlimited = copy.deepcopy(twice)
    del unlimited[0]["limits"]  # a replay from before the limits were recorded
    assert verify_replay(_replay(unlimited)) is None


def test_a_tournament_s_wall_factor_is_played_and_recorded_in_every_replay(
        tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena.cli.main import cli

    config = tmp_path / "t.yaml"
    config.write_text("name: t\nrules: dice\nentrants: [random, honest]\n"
                      "limits:\n  decision: 0.5\n  wall_factor: 4\nseed: 1\nworkers: 1\n")
    ran = CliRunner().invoke(cli, ["run", str(config), "--out", str(tmp_path / "out")])
    assert ran.exit_code == 0, ran.output
    replays = sorted((tmp_path / "out" / "replays").glob("*.json.gz"))
    assert replays
    for path in replays:
        header = read_replay(path).header
        assert header["limits"] == {"decision": 0.5, "bank": None, "wall_factor": 4.0}


def test_a_fault_s_seconds_draw_on_the_bank_in_verify_as_in_the_referee() -> None:
    record = play_game("dice", ["random", Stumbler], seed=5, limits=arena.Limits(0.5, bank=1.0),
                       options={"on_fault": "penalty", "max_faults": 3})
    lines = replay_lines(record, {"id": "g"}, _seats(record))
    fault = _first(lines, "fault")
    seat = lines[fault]["seat"]
    later = next(i for i, line in enumerate(lines)
                 if i > fault and line["type"] == "action" and line["seat"] == seat)
    slow = _tamper(_tamper(lines, fault, seconds=1.4), later, seconds=0.7)
    difference = verify_replay(_replay(slow))
    assert difference is not None and difference.line == later + 1
    assert verify_replay(_replay(_tamper(lines, later, seconds=0.7))) is None
