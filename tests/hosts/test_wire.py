"""What the referee writes to a bot in its own process: events encoded once and kept per seat,
requests that point into them, and a restarted bot sent the game so far."""

from __future__ import annotations

import json
import random

from arena import hands
from arena.hosts.codec import action_text, action_to_json
from arena.hosts.text import event_line
from arena.hosts.wire import SeatLog
from arena.rules import CHANCE, RULESETS, TERMINAL
from arena.rules.actions import Accept, Bid, Challenge, Choose, Look, Pass, Reroll
from arena.rules.base import Event
from arena.rules.playout import random_action

ROUND = Event("round", 0, {"round": 1})
ROLL = Event("roll", 0, {"hand": ("9", "A")}, 0)
CLAIM = Event("claim", 1, {"claim": "pair 9", "blind": False})


def lines(data: bytes) -> list[dict]:
    return [json.loads(t) for t in data.splitlines()]


def test_events_go_with_the_next_request_once() -> None:
    log = SeatLog()
    for event in (ROUND, ROLL):
        log.add(event)
    first = lines(log.flush(b'{"type":"act"}\n'))
    assert [m["type"] for m in first] == ["event", "event", "act"]
    assert first[1]["event"] == {"kind": "roll", "seat": 0, "to": 0, "hand": ["9", "A"]}
    assert log.flush(b"x\n") == b"x\n"


def test_a_rewound_log_sends_the_whole_game_again() -> None:
    log = SeatLog()
    log.add(ROUND)
    log.flush(b"")
    log.add(CLAIM)
    log.rewind()
    assert [m["event"]["kind"] for m in lines(log.flush(b""))] == ["round", "claim"]


def test_the_history_is_found_among_the_public_events_sent() -> None:
    log = SeatLog()
    for event in (ROUND, ROLL, CLAIM):
        log.add(event)
    assert log.history_from((ROUND, CLAIM)) == 0
    assert log.history_from((CLAIM,)) == 2
    assert log.history_from(()) == 3


def test_a_history_that_was_not_sent_is_sent_with_the_request() -> None:
    log = SeatLog()
    log.add(ROUND)
    start = log.history_from((CLAIM, ROUND))
    assert start == 1
    sent = lines(log.flush(b""))
    assert [m["event"]["kind"] for m in sent[start:]] == ["claim", "round"]


def test_an_event_is_encoded_once_for_every_seat_that_sees_it() -> None:
    assert event_line(CLAIM) is event_line(CLAIM)
    assert json.loads(event_line(CLAIM)) == {
        "type": "event", "event": {"kind": "claim", "seat": 1, "claim": "pair 9", "blind": False}}


def test_events_alike_in_value_but_not_in_type_are_encoded_apart() -> None:
    lines_of = [event_line(Event("x", 0, {"v": v})) for v in (True, 1, 1.0, True)]
    assert [json.loads(t)["event"]["v"] for t in lines_of] == [True, 1, 1.0, True]
    assert [t.split(b'"v":')[1] for t in lines_of] == [b"true}}\n", b"1}}\n", b"1.0}}\n",
                                                       b"true}}\n"]
    assert b'"v":[1,2]' in event_line(Event("x", 0, {"v": [1, 2]}))


def test_every_rule_set_s_history_is_the_latest_public_events_of_the_seat() -> None:
    """The contract `history_from` relies on, over random games of every rule set."""
    for name, rules in RULESETS.items():
        rng = random.Random(7)
        for _ in range(20):
            state = rules.new_game(3, rules.check_options({}))
            sent: list[list[Event]] = [[], [], []]
            while (seat := rules.to_act(state)) != TERMINAL:
                if seat == CHANCE:
                    state = rules.apply(state, rules.chance(state, rng))
                else:
                    observation = rules.observe(state, seat)
                    public = [e for e in sent[seat] if e.to is None]
                    count = len(observation.history)
                    assert tuple(public[len(public) - count:]) == observation.history, name
                    state = rules.apply(state, random_action(observation.legal, rng))
                for event in rules.events(state):
                    for other in range(3):
                        if event.to in (None, other):
                            sent[other].append(event)


def test_an_actions_text_is_its_json_every_time_and_a_lookalike_gets_its_own() -> None:
    claims = [hands.parse_claim(t) for t in ("pair J", "full K 9", "two-pair A 9")]
    actions = [*(Bid(c) for c in claims), Challenge(), Accept(), Look(), Reroll((0, 3)),
               Pass(claims[0], ((0, 1),), (2,)), Choose(1), Choose(True),  # type: ignore[arg-type]
               Reroll((True, 0)), Bid(hands.parse_claim("pair J", True))]
    for _ in range(2):  # the second time from what the first kept
        for action in actions:
            expected = json.dumps(action_to_json(action), separators=(",", ":")).encode()
            assert action_text(action) == expected, action
    assert action_text(Choose(True)) == b'{"type":"choose","seat":true}'  # not Choose(1)'s


def test_a_bot_is_sent_each_event_in_the_very_text_its_replay_holds() -> None:
    """One text of events (arena.hosts.text): the wire's line of an event is, byte for byte,
    the replay's, whether the replay is written from the record or from its dicts."""
    import gzip

    import arena
    from arena.replay import encode_game, encode_replay, replay_lines

    for rules in sorted(RULESETS):
        record = arena.play_game(rules, ["random", "random", "random"], seed=5)
        sent = [event_line(e) for e in record.log if isinstance(e, Event)]
        for replay in (encode_game(record, {"id": "g"}, [{}] * 3),
                       encode_replay(replay_lines(record, {"id": "g"}, [{}] * 3))):
            written = [line + b"\n" for line in gzip.decompress(replay).splitlines()
                       if line.startswith(b'{"type":"event"')]
            assert written == sent, rules
