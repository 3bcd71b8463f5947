"""A host is an `arena.hosts.inline.Host`: it implements start, act, notify and end, and every
other member the referee, the trial, check-bot and the runner use has its default there, so
a host that has nothing more to say plays as it is, and no caller asks a host what it has."""

from __future__ import annotations

import ast
from pathlib import Path

from arena import play_game
from arena.bot import BotContext, GameEnd
from arena.hosts.inline import Host
from arena.kept import KeptHosts
from arena.referee import Player
from arena.rules.actions import Action, Bid
from arena.rules.base import Event, Observation

ARENA = Path(__file__).resolve().parents[2] / "arena"


class Plain(Host):
    """Only what a host must do, answering the plainest legal action (a challenge where one
    is legal, else the lowest claim)."""

    mode = "inline"

    def __init__(self) -> None:
        self.events: list[str] = []

    def start(self, context: BotContext) -> None:
        self.events.clear()

    def act(self, observation: Observation, timeout: float) -> Action:
        return observation.legal_actions()[0]

    def notify(self, event: Event) -> None:
        self.events.append(event.kind)

    def end(self, result: GameEnd) -> None:
        self.events.append("end")


def test_a_host_with_only_the_four_calls_plays_and_is_told_the_events() -> None:
    plain = Plain()
    record = play_game("dice", [Player("plain", plain), "random"], seed=3)
    assert record.faults == ()
    assert "round" in plain.events and plain.events[-1] == "end"  # it listens by default


def test_an_illegal_answer_from_such_a_host_shows_the_action_it_gave() -> None:
    class Wrong(Plain):
        def act(self, observation: Observation, timeout: float) -> Action:
            return Bid("no such claim")  # type: ignore[arg-type]

    record = play_game("dice", [Player("wrong", Wrong()), "random"], seed=3)
    fault = record.faults[0]
    assert (fault.seat, fault.kind) == (0, "illegal")
    assert "no such claim" in (fault.sent or "")  # no reply line of its own: the action's JSON


def test_a_kept_host_with_no_process_is_stopped_quietly() -> None:
    kept = KeptHosts()
    plain = Plain()
    kept._hosts[("seat", 0)] = plain  # as `host()` keeps one (its first copy)
    kept.close()
    assert plain.shutdown() is None and plain.introduce() is None and plain.note() == ""


def _members() -> frozenset[str]:
    return frozenset(name for name in dir(Host) if not name.startswith("__"))


def test_no_module_asks_a_host_for_a_member_through_getattr() -> None:
    """A host's optional member is declared on Host with its default, never probed."""
    probes = []
    for path in sorted(ARENA.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2
                    and isinstance(node.args[1], ast.Constant)
                    and node.args[1].value in _members()):
                probes.append(f"{path.relative_to(ARENA.parent)}:{node.lineno}")
    assert probes == []
