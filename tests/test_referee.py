"""The referee: faults of every kind are recorded and the game completes; referee bugs are
not charged to bots; games are reproducible from their seed."""

from __future__ import annotations

import contextlib
import json
import threading
import time

import pytest
from arena_bots.random_bot import RandomBot

import arena
from arena import play_game
from arena.hosts.inline import InlineHost
from arena.referee import ActionEntry, FaultEntry, LogEntry, Player, RefereeError
from arena.replay import parse_replay, replay_lines
from arena.rules import RULESETS
from arena.rules.actions import Chance
from arena.rules.playout import random_action
from arena.verify import verify_replay


class Raiser(arena.Bot):
    name = "raiser"

    def act(self, observation: arena.Observation) -> arena.Action:
        raise ValueError("boom")


class Garbage(arena.Bot):
    name = "garbage"

    def act(self, observation: arena.Observation) -> arena.Action:
        return "hello"  # type: ignore[return-value]


class LowBidder(arena.Bot):
    """Always claims the lowest claim of all (illegal once any claim stands)."""

    name = "low"

    def act(self, observation: arena.Observation) -> arena.Action:
        if observation.decision == "reroll":
            return arena.Reroll(())
        return arena.Bid(observation.legal.space.claims[0])


class Sleeper(arena.Bot):
    name = "sleeper"

    def act(self, observation: arena.Observation) -> arena.Action:
        time.sleep(5)
        return random_action(observation.legal, self.rng)


class BusyLoop(arena.Bot):
    name = "busy"

    def act(self, observation: arena.Observation) -> arena.Action:
        while True:
            pass


class Swallower(arena.Bot):
    """Catches everything, even the referee's interrupt, and answers late: 0.6 s against a
    0.1 s wall limit, late however much of it a loaded machine kept it waiting for a CPU."""

    name = "swallower"

    def act(self, observation: arena.Observation) -> arena.Action:
        deadline = time.perf_counter() + 0.6
        while time.perf_counter() < deadline:
            with contextlib.suppress(BaseException):  # the point of this bot
                time.sleep(0.01)
        return random_action(observation.legal, self.rng)


class BrokenStart(arena.Bot):
    name = "broken-start"

    def __init__(self, context: arena.BotContext) -> None:
        super().__init__(context)
        raise RuntimeError("cannot build")


class BadListener(RandomBot):
    name = "bad-listener"

    def notify(self, event: arena.Event) -> None:
        if event.kind == "claim":
            raise KeyError("oops")


def _fault_game(bot: type[arena.Bot], rules: str = "dice", players: int = 3,
                **limits: float) -> arena.GameRecord:
    others = [RandomBot] * (players - 1)
    return play_game(rules, [bot, *others], seed=11, limits=arena.Limits(**limits))


@pytest.mark.parametrize(("bot", "kind", "text"), [
    (Raiser, "crash", "ValueError: boom"),
    (Garbage, "illegal", "'hello'"),
    (LowBidder, "illegal", "not higher than the claim to beat"),
    (BrokenStart, "crash", "while starting: RuntimeError: cannot build"),
    (BadListener, "crash", "in notify: KeyError"),
])
def test_each_fault_is_recorded_and_the_game_completes(bot: type[arena.Bot], kind: str,
                                                       text: str) -> None:
    record = _fault_game(bot)
    assert [f.kind for f in record.faults] == [kind]
    assert text in record.faults[0].message
    assert record.faults[0].seat == 0
    # forfeit: out at once, placed last; the others' places are a permutation of the rest
    assert record.result.placements[0] == 3
    assert sorted(record.result.placements[1:]) == [1, 2]
    assert record.result.out_order[0] == 0


@pytest.mark.parametrize(("bot", "factor", "words"), [
    (Sleeper, 2, "no answer after"), (Sleeper, 2, "wall limit 0.2s (0.1s × wall_factor 2)"),
    (BusyLoop, 20, "s of CPU time, limit 0.1s")])
def test_a_bot_past_its_time_limit_is_interrupted(bot: type[arena.Bot], factor: float,
                                                  words: str) -> None:
    """A sleeping bot at its wall limit (time × wall_factor), a busy one at its CPU time
    (however loaded the machine, with a wall limit far off)."""
    started = time.perf_counter()
    record = _fault_game(bot, decision=0.1, wall_factor=factor)
    assert time.perf_counter() - started < 3
    assert [f.kind for f in record.faults] == ["timeout"]
    assert words in record.faults[0].message


def test_a_bot_that_swallows_the_interrupt_is_timed_out_after_the_fact() -> None:
    record = _fault_game(Swallower, decision=0.05)
    assert [f.kind for f in record.faults] == ["timeout"]
    assert "answered after" in record.faults[0].message


def test_off_the_main_thread_the_limit_is_checked_after_the_fact() -> None:
    class Slow(arena.Bot):
        name = "slow"

        def act(self, observation: arena.Observation) -> arena.Action:
            time.sleep(0.15)
            return random_action(observation.legal, self.rng)

    records: list[arena.GameRecord] = []
    thread = threading.Thread(target=lambda: records.append(_fault_game(Slow, decision=0.05)))
    thread.start()
    thread.join(10)
    assert [f.kind for f in records[0].faults] == ["timeout"]
    assert "answered after" in records[0].faults[0].message


def test_penalty_policy_lets_the_bot_play_on_until_max_faults() -> None:
    record = play_game("dice", [Raiser, RandomBot], seed=3,
                       options={"on_fault": "penalty", "max_faults": 3})
    assert [f.kind for f in record.faults] == ["crash"] * 3
    kinds = [e.kind for e in record.log if isinstance(e, arena.Event)]
    assert kinds.count("penalty") == 2
    assert record.result.placements == (2, 1)


def test_time_bank_absorbs_a_slow_decision() -> None:
    class OnceSlow(RandomBot):
        name = "once-slow"
        slow = True

        def act(self, observation: arena.Observation) -> arena.Action:
            if OnceSlow.slow:
                OnceSlow.slow = False
                busy = time.thread_time() + 0.15  # CPU time: what the limit bills
                while time.thread_time() < busy:
                    pass
            return super().act(observation)

    assert not play_game("dice", [OnceSlow, RandomBot], seed=1,
                         limits=arena.Limits(decision=0.1, bank=0.5)).faults
    OnceSlow.slow = True
    assert play_game("dice", [OnceSlow, RandomBot], seed=1,
                     limits=arena.Limits(decision=0.1)).faults


def test_the_same_seed_gives_the_same_game() -> None:
    def actions(seed: int) -> list[str]:
        record = play_game("cards", [RandomBot] * 4, seed=seed)
        return [str(e.action) if isinstance(e, ActionEntry) else str(e)
                for e in record.log if isinstance(e, ActionEntry | Chance)]

    assert actions(5) == actions(5)
    assert actions(5) != actions(6)


def test_bots_get_their_own_generator_seeded_by_game_and_seat() -> None:
    draws: list[tuple[int, float]] = []

    class Recorder(RandomBot):
        name = "recorder"

        def start(self, context: arena.BotContext) -> None:
            draws.append((context.seat, context.rng.random()))

    play_game("dice", [Recorder, Recorder], seed=9)
    play_game("dice", [Recorder, Recorder], seed=9)
    assert draws[:2] == draws[2:]
    assert draws[0][1] != draws[1][1]


def test_a_rules_bug_is_a_referee_error_not_a_fault() -> None:
    class BrokenRules:
        def __init__(self) -> None:
            self.inner = RULESETS["dice"]

        def __getattr__(self, name: str) -> object:
            return getattr(self.inner, name)

        def apply(self, state: object, action: object) -> object:
            if isinstance(action, arena.Bid):
                raise ZeroDivisionError("rules bug")
            return self.inner.apply(state, action)

    with pytest.raises(RefereeError, match="referee bug in apply"):
        play_game(BrokenRules(), [RandomBot, RandomBot], seed=1)  # type: ignore[arg-type]


def test_a_host_bug_is_a_referee_error_not_a_fault() -> None:
    class BrokenHost(InlineHost):
        def act(self, observation: arena.Observation, timeout: float) -> arena.Action:
            raise KeyError("host bug")

    with pytest.raises(RefereeError, match=r"referee bug in act .*KeyError: 'host bug'"):
        play_game("dice", [Player("broken", BrokenHost(RandomBot)), "random"], seed=1)


def test_the_record_holds_decisions_with_times_and_every_event() -> None:
    record = play_game("dice", ["random", "random"], seed=2)
    actions = [e for e in record.log if isinstance(e, ActionEntry)]
    assert len(actions) == record.decisions
    assert all(e.seconds >= 0 for e in actions)
    kinds = {e.kind for e in record.log if isinstance(e, arena.Event)}
    assert {"round", "roll", "claim", "challenge", "point", "out", "over"} <= kinds
    assert [p.name for p in record.players] == ["random", "random"]
    assert all(isinstance(p, Player) and p.origin.startswith("arena ") for p in record.players)


class DeafAfterTheFirstClaim(RandomBot):
    """Fails in notify on seat 0's first claim (or pass), while seat 1 is to answer it."""

    name = "deaf"

    def notify(self, event: arena.Event) -> None:
        if event.seat == 0 and event.kind in ("claim", "pass"):
            raise KeyError("cannot hear that")


def _entries_after_first_claim(record: arena.GameRecord) -> list[LogEntry]:
    start = next(i for i, e in enumerate(record.log) if isinstance(e, arena.Event)
                 and e.seat == 0 and e.kind in ("claim", "pass"))
    return list(record.log[start + 1:])


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_a_fault_in_notify_takes_effect_at_once_and_the_round_is_abandoned(rules: str) -> None:
    """RULES.md: a faulting bot is "out of that game at once": no decision of another seat
    comes between the fault and its effect, and the round in progress gives nobody a point;
    in `cards` the central hand, held by seat 1, not by the bot, stays in play."""
    record = play_game(rules, [RandomBot, RandomBot, DeafAfterTheFirstClaim], seed=4)
    assert [(f.seat, f.kind) for f in record.faults] == [(2, "crash")]
    assert "in notify: KeyError" in record.faults[0].message
    after = _entries_after_first_claim(record)
    assert isinstance(after[0], FaultEntry)
    assert (after[0].seat, after[0].kind) == (2, "crash")
    assert after[0].outside == "notify"  # raised outside the bot's decision
    assert isinstance(after[1], arena.Event)
    assert (after[1].kind, after[1].seat, after[1].data["reason"]) == ("out", 2, "forfeit")
    if rules == "cards":  # seat 1 answers the claim it holds, on the same central hand
        assert isinstance(after[2], ActionEntry) and after[2].seat == 1
    else:
        effects = [e for e in after[2:] if isinstance(e, arena.Event)][:2]
        assert not any(e.kind in ("point", "pay", "challenge") for e in effects)
    assert record.result.placements[2] == 3
    lines = replay_lines(record, {"id": "g"}, [
        {"name": p.name, "bot": p.name, "origin": "", "version": "", "mode": "inline"}
        for p in record.players])
    assert verify_replay(parse_replay([json.dumps(line) for line in lines])) is None
    assert lines[-1]["decisions"] == record.decisions


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_with_the_penalty_policy_a_fault_in_notify_costs_the_round_at_once(rules: str) -> None:
    record = play_game(rules, [RandomBot, RandomBot, DeafAfterTheFirstClaim], seed=4,
                       options={"on_fault": "penalty", "max_faults": 3})
    after = _entries_after_first_claim(record)
    assert isinstance(after[0], FaultEntry)
    assert (after[0].seat, after[0].kind) == (2, "crash")
    effects = [e for e in after[1:] if isinstance(e, arena.Event)]
    assert (effects[0].kind, effects[0].seat) == ("penalty", 2)
    if rules == "cards":  # outside its decision: to the bank, and seat 1 keeps the hand
        assert (effects[1].kind, effects[1].seat, effects[1].data["payee"]) == ("pay", 2, -1)
        assert effects[2].kind == "accept" or effects[2].kind == "challenge"
    else:  # the point is the bot's, and it throws the next round
        assert (effects[1].kind, effects[1].seat) == ("point", 2)
    lines = replay_lines(record, {"id": "g"}, [
        {"name": p.name, "bot": p.name, "origin": "", "version": "", "mode": "inline"}
        for p in record.players])
    assert verify_replay(parse_replay([json.dumps(line) for line in lines])) is None


class DeafToTheFirstPass(RandomBot):
    """Fails in notify once: on seat 0's first pass, which hands it the central hand."""

    name = "deaf-to-the-pass"

    def start(self, context: arena.BotContext) -> None:
        self.heard = False

    def notify(self, event: arena.Event) -> None:
        if event.kind == "pass" and not self.heard:
            self.heard = True
            raise KeyError("cannot hear that")


def test_a_cards_penalty_outside_the_decision_of_the_holder_goes_to_the_bank() -> None:
    # RULES.md: to the bank "when the fault came outside its own decision"; it went to the
    # passer, and the verifier (the independent re-check) agrees with the referee.
    record = play_game("cards", [RandomBot, DeafToTheFirstPass, RandomBot], seed=4,
                       options={"on_fault": "penalty", "max_faults": 3})
    after = _entries_after_first_claim(record)
    assert isinstance(after[0], FaultEntry)
    assert (after[0].seat, after[0].outside) == (1, "notify")
    kinds = [(e.kind, e.seat) for e in after[1:4] if isinstance(e, arena.Event)]
    assert kinds == [("penalty", 1), ("pay", 1), ("central", 2)]  # it held it: a fresh one
    assert after[2].data["payee"] == -1  # type: ignore[union-attr]
    assert [(f.seat, f.kind) for f in record.faults] == [(1, "crash")]
    lines = replay_lines(record, {"id": "g"}, [
        {"name": p.name, "bot": p.name, "origin": "", "version": "", "mode": "inline"}
        for p in record.players])
    assert verify_replay(parse_replay([json.dumps(line) for line in lines])) is None


def test_a_bot_that_cannot_be_started_is_out_before_the_first_decision() -> None:
    record = play_game("dice", [RandomBot, BrokenStart, RandomBot], seed=2)
    assert [(f.seat, f.kind) for f in record.faults] == [(1, "crash")]
    first = next(e for e in record.log if isinstance(e, ActionEntry | FaultEntry))
    assert isinstance(first, FaultEntry)
    assert (first.seat, first.kind, first.outside) == (1, "crash", "start")


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_an_inline_bot_whose_constructor_raised_once_is_built_again_and_plays_on(
        rules: str) -> None:
    # docs/rules.md: one exception costs one fault, and under `penalty` the bot plays on; a
    # bot that could not be built is built again at its next decision.
    built: list[int] = []

    class UnbuiltOnce(RandomBot):
        name = "unbuilt-once"

        def __init__(self, context: arena.BotContext) -> None:
            super().__init__(context)
            built.append(context.seat)
            if len(built) == 1:
                raise RuntimeError("cannot build yet")

    record = play_game(rules, [RandomBot, RandomBot, UnbuiltOnce], seed=3,
                       options={"on_fault": "penalty", "max_faults": 3})
    assert [(f.seat, f.kind) for f in record.faults] == [(2, "crash")]
    assert "while starting: RuntimeError: cannot build yet" in record.faults[0].message
    assert built == [2, 2]
    assert [e for e in record.log if isinstance(e, ActionEntry) and e.seat == 2]


class DeafWhenOut(RandomBot):
    """Fails in notify on the first event it sees after it went out of the game."""

    name = "deaf-when-out"

    def start(self, context: arena.BotContext) -> None:
        self.out = False

    def notify(self, event: arena.Event) -> None:
        if self.out:
            raise KeyError("nobody listens any more")
        self.out = event.kind == "out" and event.seat == self.context.seat


def test_a_fault_in_notify_of_a_seat_already_out_is_recorded_and_changes_nothing() -> None:
    quiet = play_game("dice", [DeafWhenOut, RandomBot, RandomBot], seed=5)
    out = next(e for e in quiet.log if isinstance(e, arena.Event) and e.kind == "out")
    assert out.seat == 0, "the test needs seat 0 out first"
    assert [(f.seat, f.kind) for f in quiet.faults] == [(0, "crash")]
    assert "nobody listens any more" in quiet.faults[0].message
    assert not [e for e in quiet.log if isinstance(e, FaultEntry)]
