"""One reference, one trust policy, one host builder: the same bot runs the same way in every
command (its own process unless trusted), and a worker keeps a bounded set of bot processes."""

from __future__ import annotations

import fcntl
import os
import random
from pathlib import Path
from typing import Any, cast

import pytest
from arena_bots.random_bot import RandomBot
from click.testing import CliRunner

import arena
from arena import referee
from arena.cli.main import cli
from arena.compare.groups import Entrant
from arena.entrants import EntrantError, Reference, mode_of, resolve
from arena.hosts import machine, sandbox
from arena.kept import KEPT_CAP, KEPT_FLOOR, KeptHosts, kept_that_fit
from arena.plugins import Registry, build_registry
from arena.tournament.config import EntrantConfig, Options
from arena.tournament.load import entrant_mode

BOT = """\
import fcntl
import os

import arena

LOG = {log!r}
HELD = []


class Mine(arena.Bot):
    \"\"\"Writes where it runs at every start, then plays the first legal action.\"\"\"

    name = "mine"

    def start(self, context):
        if not HELD:  # a lock held for as long as the process that started the bot lives
            HELD.append(open(LOG + ".lock", "w"))  # (shared: a second process is not held up
            fcntl.flock(HELD[0], fcntl.LOCK_SH)  # until the first is gone)
        seen = "pytest" if "PYTEST_CURRENT_TEST" in os.environ else "clean"
        with open(LOG, "a") as log:
            log.write(f"{{os.getpid()}} {{seen}}\\n")

    def act(self, observation):
        return observation.legal_actions()[0]
"""


def _bot(folder: Path, stem: str = "mine") -> tuple[Path, Path]:
    """A bot file that logs where it runs at every start, and its log."""
    log = folder / f"{stem}.log"
    path = folder / f"{stem}.py"
    path.write_text(BOT.format(log=str(log)))
    return path, log


def _starts(log: Path) -> set[tuple[int, str]]:
    """(process id, environment) of each start of the bot."""
    lines = (line.split() for line in log.read_text().splitlines())
    return {(int(pid), seen) for pid, seen in lines}


def _here() -> set[tuple[int, str]]:
    return {(os.getpid(), "pytest")}


def _held(log: Path) -> bool:
    """Whether a process that loaded the bot still lives (it holds the lock)."""
    with open(f"{log}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(lock, fcntl.LOCK_UN)
    return False


# --- one parse ---------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "kind", "ref", "options"), [
    ("random", "name", "random", ()),
    ("./my_bot.py", "file", "./my_bot.py", ()),
    ("./my_bot.py:Mine", "file", "./my_bot.py:Mine", ()),
    ("pkg.bots:Mine", "module", "pkg.bots:Mine", ()),
    ("cmd:node bot.js --fast", "command", "cmd:node bot.js --fast", ()),
    ("bluffer?doubt=0.5&seats=3", "name", "bluffer", (("doubt", 0.5), ("seats", 3))),
])
def test_a_reference_reads_one_way(text: str, kind: str, ref: str, options: tuple) -> None:
    reference = Reference.parse(text)
    assert (reference.kind, reference.ref, reference.options, reference.mode) == (
        kind, ref, options, None)
    assert reference.label == text
    assert Entrant.parse(text) == reference  # arena compare and arena play read it so


def test_a_command_reference_names_its_program() -> None:
    assert Reference.parse("cmd:node 'my bot.js' -v").command == ("node", "my bot.js", "-v")
    assert Reference.parse("random").command is None
    with pytest.raises(EntrantError, match="name the program"):
        resolve(Reference.parse("cmd:"))


def test_a_yaml_entrant_is_the_same_reference() -> None:
    bot = EntrantConfig("b", bot="bluffer", options=Options.of({"doubt": 0.5}))
    assert bot.reference == Reference.parse("bluffer?doubt=0.5")
    command = EntrantConfig("c", command=("node", "bot.js"), mode="command")
    assert command.reference == Reference.parse("cmd:node bot.js", mode="command")
    assert command.reference.command == ("node", "bot.js")


# --- one trust policy, from where the bot came from ----------------------------------------


def test_trust_is_decided_from_the_bots_source_not_its_display_origin() -> None:
    registry = Registry()
    impostor = registry.register(RandomBot, "arena 0.1.0")  # an installed plugin's display text
    assert not impostor.builtin
    assert mode_of(Reference("random"), impostor) == "process"
    assert entrant_mode(EntrantConfig("r", bot="random"), impostor) == "process"
    assert mode_of(Reference("random", mode="inline"), impostor) == "inline"


def test_the_bots_shipped_with_arena_are_the_only_ones_trusted() -> None:
    registry = build_registry()
    assert {spec.source for spec in registry.specs()} == {"builtin"}
    assert resolve(Reference("random"), registry).mode == "inline"
    assert resolve(Reference.parse("cmd:node bot.js")).mode == "command"


def test_a_bot_file_runs_in_its_own_process_unless_trusted(tmp_path: Path) -> None:
    path, _ = _bot(tmp_path)
    assert resolve(Reference(str(path))).mode == "process"
    assert resolve(Reference(str(path)).trusted()).mode == "inline"
    assert Reference.parse("cmd:prog").trusted().mode is None  # a program stays its program


# --- every command follows it ----------------------------------------------------------------


def test_arena_play_runs_a_bot_file_in_its_own_process(tmp_path: Path) -> None:
    path, log = _bot(tmp_path)
    result = CliRunner().invoke(cli, ["play", "--bots", f"{path},random", "--seed", "2",
                                      "--isolation", "none"])  # it writes beside its file
    assert result.exit_code == 0, result.output
    assert _starts(log) and not _starts(log) & _here()
    assert {seen for _, seen in _starts(log)} == {"clean"}


def test_arena_play_runs_a_trusted_bot_file_inline(tmp_path: Path) -> None:
    path, log = _bot(tmp_path)
    result = CliRunner().invoke(cli, ["play", "--trust", "--bots", f"{path},random"])
    assert result.exit_code == 0, result.output
    assert _starts(log) == _here()


@pytest.mark.parametrize("trust", [False, True])
def test_arena_compare_hosts_a_bot_file_by_the_same_policy(tmp_path: Path, trust: bool) -> None:
    path, log = _bot(tmp_path)
    args = ["compare", str(path), "random", "--games", "2", "--workers", "1", "-q",
            "--isolation", "none"]  # the bot writes its log beside its file
    result = CliRunner().invoke(cli, args + ["--trust"] * trust)
    assert result.exit_code in (0, 1, 3), result.output
    starts = _starts(log)
    assert starts == _here() if trust else (starts and not starts & _here())


def test_arena_play_game_hosts_a_named_bot_file_in_its_own_process(tmp_path: Path) -> None:
    path, log = _bot(tmp_path)
    record = arena.play_game("dice", [Reference(str(path), isolation="none"), "random"], seed=1)
    assert [p.host.mode for p in record.players] == ["process", "inline"]
    assert record.players[0].name == "mine"
    assert _starts(log) and not _starts(log) & _here()


def test_the_help_of_play_and_compare_says_where_bots_run() -> None:
    for command in ("play", "compare"):
        text = " ".join(CliRunner().invoke(cli, [command, "--help"]).output.split())
        assert "every other Python bot runs in its own process" in text
        assert "--trust" in text


def test_the_referee_takes_players_not_names() -> None:
    with pytest.raises(TypeError, match=r"arena\.play_game"):
        referee.play_game("dice", ["random", "random"])


# --- a worker's kept hosts ------------------------------------------------------------------


def test_kept_hosts_beyond_the_cap_are_closed_oldest_first(tmp_path: Path) -> None:
    (first, first_log), (second, second_log) = (_bot(tmp_path, stem) for stem in ("a", "b"))
    one, two = (resolve(Reference(str(bot), isolation="none")) for bot in (first, second))
    kept = KeptHosts(cap=1)
    try:
        host = kept.host("a", one)
        arena.play_game("dice", [one.player(host), "random"], seed=1)
        assert kept.host("a", one) is host  # kept: its process serves the next game
        assert _held(first_log)
        other = kept.host("b", two)
        arena.play_game("dice", [two.player(other), "random"], seed=1)
        assert not _held(first_log)  # the least recently used process was closed
        assert _held(second_log)
        assert len(kept) == 1
    finally:
        kept.close()
    assert not _held(second_log)


def test_inline_hosts_are_new_for_every_game_and_never_kept() -> None:
    kept = KeptHosts(cap=1)
    builtin = resolve(Reference("random"))
    assert kept.host("r", builtin) is not kept.host("r", builtin)
    assert len(kept) == 0


class _Fake:
    """A sandboxed entrant whose processes are counted, each a record of what it played."""

    mode, sandboxed = "process", True

    def __init__(self) -> None:
        self.started: list[_Played] = []

    def host(self, image: int = 0) -> Any:
        self.started.append(_Played(image))
        return self.started[-1]


class _Played:
    def __init__(self, image: int) -> None:
        self.image = image
        self.streams: list[int] = []

    def shutdown(self) -> None:
        pass


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_a_table_never_shows_two_seats_one_image_nor_a_process_one_deal_twice(
        seats: int) -> None:
    """Any order of tables, twin deals included, whatever was kept before: each table's
    sandboxed processes are shown distinct images, and none plays a deal it played."""
    bot, draw = _Fake(), random.Random(seats)
    kept = KeptHosts(cap=12)
    for game in range(400):
        table = draw.sample(range(9), seats)
        deal = game // 2 if draw.random() < 0.5 else 1000 + game  # twins share a deal
        hosts = kept.table([(entrant, cast(Any, bot)) for entrant in table], deal)
        assert len({host.image for host in hosts}) == seats
        for host in hosts:
            assert deal not in host.streams
            host.streams.append(deal)


def test_a_kept_process_serves_its_entrant_at_either_seat() -> None:
    """Seated by the entrants' order, not the seat index: entrant 3 below entrants 5 and 7
    is shown image 0 at seat 1 as at seat 0, one process for both games."""
    bot = _Fake()
    kept = KeptHosts()
    first = kept.table([(3, cast(Any, bot)), (5, cast(Any, bot))], 1)
    second = kept.table([(7, cast(Any, bot)), (3, cast(Any, bot))], 2)
    assert second[1] is first[0]
    assert len(bot.started) == 3  # 3 once, 5 and 7


def test_kept_hosts_beyond_the_floor_let_one_go_a_start_while_memory_is_low(
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = _Fake()
    kept = KeptHosts()
    for entrant in range(KEPT_FLOOR + 4):
        kept.host(entrant, cast(Any, bot))
    assert len(kept) == KEPT_FLOOR + 4
    monkeypatch.setattr(machine, "memory_low", lambda: True)
    kept.host("one more", cast(Any, bot))
    assert len(kept) == KEPT_FLOOR + 4  # one started, the oldest let go
    kept.host(KEPT_FLOOR + 3, cast(Any, bot))  # kept already: nothing let go
    assert len(kept) == KEPT_FLOOR + 4


def test_a_worker_keeps_what_half_the_memory_available_holds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(machine, "memory", lambda: (400 * machine.KEPT_BYTES, 10**12))
    assert kept_that_fit(2) == min(100, machine.hosts_that_fit(KEPT_CAP))
    monkeypatch.setattr(machine, "memory", lambda: None)  # not known here: the open files
    assert kept_that_fit(2) == min(machine.hosts_that_fit(KEPT_CAP), len(sandbox.UIDS) // 4)
    monkeypatch.setattr(sandbox, "UIDS", range(40))  # a uid a sandboxed process, as root
    assert kept_that_fit(2) == 10


DICE_ONLY = """\
import arena


class DiceOnly(arena.Bot):
    name = "dice-only"
    rules = ("dice",)
    options = {"doubt": 0.5}

    def act(self, observation):
        return observation.legal_actions()[0]
"""


@pytest.mark.parametrize(("rules", "option", "said"), [
    ("cards", "", "does not play 'cards' (it plays dice)"),
    ("dice", "?nerve=1", "unknown option 'nerve' for bot "),
])
def test_every_command_refuses_a_bot_in_the_same_words(
        tmp_path: Path, rules: str, option: str, said: str) -> None:
    bot = tmp_path / "dice_only.py"
    bot.write_text(DICE_ONLY)
    config = tmp_path / "t.yaml"
    options = "\n    options: {nerve: 1}" if option else ""
    config.write_text(f"name: t\nrules: {rules}\nentrants:\n  - random\n  - honest\n"
                      f"  - bot: dice_only.py{options}\n")
    runner = CliRunner()
    outputs = [
        runner.invoke(cli, ["play", "--rules", rules, "--bots", f"random,{bot}{option},random"]),
        runner.invoke(cli, ["compare", f"{bot}{option}", "random", "--rules", rules]),
        runner.invoke(cli, ["validate", str(config)]),
    ]
    for result in outputs:
        assert result.exit_code == 2, result.output
        assert said in result.output
