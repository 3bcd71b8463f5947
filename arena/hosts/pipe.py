"""Hosts that run a bot outside the referee's process: `process` (a Python bot class in its own
OS process, started by the trusted `arena.hosts.launcher`) and `command` (any executable speaking
the JSON-lines protocol of docs/protocol.md). Both are `arena.hosts.inline.Host`s.

Every bot process (`arena.hosts.processes`) gets a clean environment, a fresh empty working folder,
resource limits (`ProcessLimits`), its own session and process group and, where the kernel
allows it, its own PID namespace. A hard fault kills the bot's whole process tree with
SIGKILL; the process is otherwise kept for the worker's next game, which builds a fresh bot
instance in it.

A bot's process is frozen whenever it is not asked for something (`arena.hosts.freezer`):
thawed once a message is written to it, frozen again once its reply is read, so the bots of
a table never run at once. Time is billed as in every host: a decision's wall time or, past its
limit, the smaller of its wall time and the bot's CPU time, with a wall-clock limit of
`limit × wall_factor` (`arena.bot.Limits`), neither counting the time the bot queued for a
CPU or the referee was not running (`arena.hosts.strain`), so a busy or paused machine does
not forfeit a bot that did not use its time, while a sleeping or blocked bot is stopped.

This module never sees the game state: it carries one seat's observations and events, encoded
by `arena.hosts.codec`, and turns what goes wrong into a `BotFault` (the lines, their deadlines
and the faults are `arena.hosts.pipe_lines`'). It does not decide what a fault costs (the
referee does) and never trusts a byte the bot writes.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

from arena.bot import BotContext, GameEnd
from arena.botcard import BotCard, read_card
from arena.botfile import BotFile
from arena.hosts import wire
from arena.hosts.codec import CodecError, action_from_json
from arena.hosts.inline import BotFault, Host, RefereeFailure, printable
from arena.hosts.pipe_lines import PipeGame, PipeLines, an, brief, is_number
from arena.hosts.processes import BotProcess, InputStuck, OutputClosed, ProcessLimits
from arena.hosts.sandbox import host_words
from arena.hosts.strain import PULSE
from arena.hosts.wire import PROTOCOL, SPOKEN
from arena.plugins import is_folder
from arena.rules.actions import Action
from arena.rules.base import Event, Observation

__all__ = ["CommandHost", "PipeHost", "ProcessHost", "ProcessLimits"]


LOAD_HINT = ("loading the bot did not finish (its module-level code runs as it is loaded, in "
             "its own process, under its limits).")
HELLO_HINT = ("the program runs but said nothing: does it flush stdout after each line "
              "(print(..., flush=True), fflush(stdout)), and does it name its files by "
              "absolute path (it runs in an empty folder)?")


def _context_json(context: BotContext, seed: int) -> dict[str, Any]:
    """The game context as sent in `start` (the seed fits a JSON double in any language)."""
    return {
        "seat": context.seat, "players": context.players, "rules": context.rules,
        "options": dict(context.options),
        "limits": {"decision": context.limits.decision, "bank": context.limits.bank,
                   "wall_factor": context.limits.wall_factor},
        "bot_options": dict(context.bot_options), "names": list(context.names), "seed": seed,
        "description": None if context.description is None else context.description.to_json(),
    }


class PipeHost(PipeLines, Host):
    """What ProcessHost and CommandHost share: the protocol, the clock and the fault policy."""

    mode = "pipe"
    hello_hint = HELLO_HINT
    """What a missing hello most likely means, for the bot's author."""
    sweeps_helpers = False
    """Whether helper processes the bot leaves running are killed at the end of each game."""

    def __init__(self, limits: ProcessLimits | None = None) -> None:
        self.limits = limits or ProcessLimits()
        self.process: BotProcess | None = None
        self.name = ""
        self.turn = 0
        self.games = 0
        self.game: PipeGame | None = None
        self.protocol = PROTOCOL
        self.last_wall = 0.0
        self.billed = 0.0
        self.wall_factor = 2.0
        self.last_reply: str | None = None
        """The text of the bot's last reply to a decision (what an illegal answer was)."""
        self.refused: BotFault | None = None
        """Why the bot's process could not be started (no hello): every later game faults
        at once with it, instead of waiting for a hello again."""
        self.card: BotCard | None = None
        """What the bot said about itself at hello (None until its process said it)."""
        self._asked_to_stop: BotProcess | None = None
        """The process already sent `shutdown` by `ask_to_stop`, not to be sent it twice."""

    def launch_config(self) -> dict[str, Any]:
        """What the launcher runs: {"bot": ref} or {"command": argv}."""
        raise NotImplementedError

    @property
    def isolation(self) -> str:
        """The isolation level the bot's process runs at (strict, standard or none)."""
        from arena.hosts.walls import level

        return level(self.limits.isolation).name

    # the Host protocol --------------------------------------------------------------------

    def start(self, context: BotContext) -> None:
        """Reuse (or start) the bot's process and build a fresh bot in it for this game."""
        self.games += 1
        PULSE.start()  # the referee's own pauses are never the bot's time
        state = context.rng.getstate()  # a Python bot continues the very stream it gets inline
        seed = context.rng.getrandbits(53)
        sof = bool(context.options.get("straight_over_full"))
        self.game = PipeGame(context, seed, sof, [state[0], list(state[1]), state[2]])
        self.wall_factor = context.limits.wall_factor
        self.last_reply = None
        if self.refused is not None:
            refused = BotFault(self.refused.kind, self.refused.message, self.refused.sent,
                               self.refused.trace)
            self.game.faults.append(refused)
            raise refused
        process = self.process
        if process is not None and (not process.alive() or self._worn(process)):
            self._kill()
        elif process is not None:
            self._check_quiet()
        if self.process is not None:
            self.process.drain()
            self._stderr_mark = self.process.stderr_seen
        self._boot()

    def act(self, observation: Observation, timeout: float) -> Action:
        """Send the observation and wait for the action, billing min(wall, CPU) time."""
        game = self._current()
        if self.process is None:
            self._boot()  # restarted after a fault earlier in this game (penalty mode)
        process = self.process
        assert process is not None
        self.turn += 1
        turn = self.turn
        request = game.log.act_line(turn, timeout, observation, self.protocol)
        self._send(game.log.flush(request), time.monotonic() + timeout * self.wall_factor)
        process.freezer.thaw()  # written while it was frozen: it wakes once, to its request
        started = time.monotonic()  # once it can run: frozen time is never the bot's
        cpu, waited = process.cpu_times(), process.waited()  # read while the bot works
        line = self._reply_in_time(turn, timeout, started, cpu, waited)
        message = self._parse(line)
        sent = self.last_reply
        if message["type"] == "error":
            raise self._fail("crash", str(message.get("message"))[:300], kill=False,
                             trace=message.get("trace"))
        if message["type"] != "action":
            raise self._fail("protocol", f"sent {an(brief(message['type']))} message where an "
                                         f"action was expected", sent=sent)
        answered = message.get("turn")
        if not is_number(answered) or answered != turn:
            raise self._fail("protocol", self._wrong_turn(answered, turn), sent=sent)
        if "action" not in message:
            raise self._fail("protocol", 'the action message has no "action" field', sent=sent)
        try:
            return action_from_json(message.get("action"), game.straight_over_full)
        except CodecError as exc:
            raise self._fail("protocol", f"sent an action arena cannot read: {exc}"[:300],
                             sent=sent) from None

    @staticmethod
    def _wrong_turn(answered: object, turn: int) -> str:
        if answered is None:
            return f"answered without a turn number (turn {turn} was asked)"
        if not is_number(answered):
            return f"turn must be a number, got {json.dumps(answered)} (turn {turn} was asked)"
        return f"answered turn {brief(answered)}, but turn {turn} was asked"

    def notify(self, event: Event) -> None:
        """Keep the event for the next request: a bot wakes once per decision, not per event
        (a bot restarted after a fault gets the events it missed)."""
        self._current().log.add(event)

    def deliver(self) -> None:
        """Send the events not sent yet, now, without waiting for anything (the next request
        would carry them): to time a decision apart from the events before it."""
        game = self._current()
        data = game.log.flush(b"")
        if data and self.process is not None:
            self._send(data, time.monotonic() + self.limits.start_timeout)
            self.process.freezer.freeze()  # it reads them at its next thaw

    def end(self, result: GameEnd) -> None:
        """Tell the bot the result and wait for it to say it is done."""
        game = self._current()
        if self.process is None:
            return
        r = result.result
        self._send(game.log.flush(wire.line({"type": "end", "place": result.place, "result": {
            "placements": list(r.placements), "scores": list(r.scores),
            "out_order": list(r.out_order)}})), time.monotonic() + 5)
        self._expect("done", self.limits.start_timeout)

    def close(self) -> None:
        """End the game: keep a healthy process for the next one, kill a faulted one."""
        if self.process is not None:
            if self.game is not None and self.game.faults:
                self._kill()
            elif self.sweeps_helpers:
                self.process.sweep()
        self.game = None

    # beyond the Host protocol -------------------------------------------------------------

    def shutdown(self, wait: float = 0.2) -> str | None:
        """Stop the bot process for good (at the end of a worker's games), giving it `wait`
        seconds to exit on its own; say how it ended ('exited with code 0', or that it was
        still running and was killed), or None when no process was running."""
        process = self.process
        if process is None:
            return None
        ended = None if process.alive() else process.exit_reason(0)
        if ended is None:
            self.ask_to_stop()
            ended = process.exit_reason(wait) or f"still running {wait:g}s after 'shutdown'"
        self._kill()
        return ended

    def ask_to_stop(self) -> None:
        """Send `shutdown` and thaw the process to exit on its own, without waiting: the first
        half of `shutdown`, so that many kept processes end side by side, not one by one."""
        process = self.process
        if process is None or process is self._asked_to_stop:
            return
        with contextlib.suppress(OutputClosed, InputStuck):
            process.send(wire.line({"type": "shutdown"}), time.monotonic() + 0.2)
        process.freezer.thaw()
        self._asked_to_stop = process

    def stderr_tail(self) -> str:
        """The last of what the bot wrote to stderr (bounded), for its author."""
        if self.process is None:
            return self._last_stderr
        self.process.drain()
        return self.process.stderr_tail()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    # internals ----------------------------------------------------------------------------

    def _current(self) -> PipeGame:
        if self.game is None:
            raise BotFault("crash", "the host was not started for a game")
        return self.game

    def _worn(self, process: BotProcess) -> bool:
        return self.limits.cpu is not None and process.cpu() > self.limits.cpu / 2

    def _boot(self) -> None:
        """Start the process if needed (launch, hello), then start this game in it."""
        game = self._current()
        if self.process is None:
            self._spawn()
        if self.process is not None and self.process.sandbox is not None:  # a game: gate shut
            self.process.sandbox.gate.shut(self.process.sweep(spare=True))
        game.log.rewind()
        self._send(wire.line({"type": "start", "game": self.games,
                          "context": _context_json(game.context, game.seed),
                          "rng_state": game.rng_state}),
                   time.monotonic() + self.limits.start_timeout)
        self._expect("ready", self.limits.start_timeout)
        assert self.process is not None
        self.process.track()
        self._cpu_mark = self.process.cpu_times()

    def _spawn(self) -> None:
        """Start the process and exchange hellos; a failure here is kept for later games."""
        if self.refused is not None:
            raise BotFault(self.refused.kind, self.refused.message, self.refused.sent,
                           self.refused.trace)
        try:
            self._hello()
        except BotFault as fault:
            self.refused = BotFault(fault.kind, self._shown(fault.message), fault.sent,
                                    fault.trace)
            raise self.refused from None

    def _shown(self, message: str) -> str:
        """A fault at hello in the user's words (a bot file named as the user wrote it)."""
        return host_words(message)

    def _hello(self) -> None:
        self._stderr_mark = 0  # a new process: all it writes belongs to this game
        try:
            self.process = BotProcess(self.launch_config(), self.limits)
        except OSError as exc:  # nothing of the bot ran yet: no fd, memory, process or tool
            raise RefereeFailure(f"the referee cannot start a bot process: {exc}") from None
        process, group = self.process, self.process.group
        try:
            self._send(wire.line({"type": "hello", "protocol": PROTOCOL,
                                  "bot": self._reference()}),
                       time.monotonic() + self.limits.start_timeout)
            hello = self._expect("hello", self.limits.start_timeout, self.hello_hint)
        except BotFault as fault:
            if group is not None and not group.ran():
                raise RefereeFailure("a bot process could not join its cgroup") from None
            if not process.launched():
                raise RefereeFailure(f"a bot process did not get as far as arena's launcher "
                                     f"({fault.kind}: {fault.message})") from None
            raise
        process.launched()  # read, and let go of the mark
        if hello.get("protocol") not in SPOKEN:
            raise self._fail("protocol", f"speaks protocol {brief(hello.get('protocol'))}, "
                                         f"the referee speaks {' or '.join(map(str, SPOKEN))}",
                             sent=self.last_reply)
        self.protocol = hello["protocol"]
        self.card = self._card(hello)
        self.name = self.card.name
        self.process.locate()

    def _card(self, hello: dict[str, Any]) -> BotCard:
        """What the bot said about itself at hello: a field it sent in a form arena cannot
        read is a protocol fault, a field it left out is not said."""
        card = read_card(hello, printable)
        if isinstance(card, str):
            raise self._fail("protocol", f"sent a hello whose {card}", sent=self.last_reply)
        return card

    def introduce(self) -> BotCard:
        """Start the bot's process if it is not running, and return what it said at hello
        (the start-up timeout holds); raise BotFault with why it did not say hello."""
        if self.process is None or self.card is None:
            self._spawn()
        assert self.card is not None
        return self.card

    def _reference(self) -> str:
        config = self.launch_config()
        return str(config.get("bot") or " ".join(config.get("command", ())))


def _absolute_reference(bot: str) -> str:
    """Make a bot file or folder reference absolute: the bot runs in its own empty folder;
    a built-in's registered name becomes its `module:Class` (`_built_in_module`)."""
    file = BotFile.parse(bot)
    if file is not None:
        return str(file.at(str(Path(file.path).resolve())))
    if is_folder(bot):
        return str(Path(bot).resolve())
    return bot if ":" in bot else _built_in_module(bot)


def _built_in_module(name: str) -> str:
    """The `module:Class` of the built-in this process's registry names so, which its own
    process imports alone (a name built every installed plugin's registry there, 100M
    instructions of its 390M start); any other name as it is, resolved there as before."""
    from arena.plugins import PluginError, default_registry

    try:
        spec = default_registry().bots.get(name)
    except PluginError:  # the bot's process says why, as it did
        return name
    return spec.module_class if spec is not None and spec.builtin else name


class ProcessHost(PipeHost):
    """A Python bot (registered name, `file.py[:Class]` or `module:Class`) in its own process,
    behind the trusted launcher; the process is reused across the games of one worker."""

    mode = "process"
    hello_hint = LOAD_HINT
    sweeps_helpers = True  # the launcher is the bot: anything it started belongs to one game

    def __init__(self, bot: str, limits: ProcessLimits | None = None,
                 shown: str | None = None) -> None:
        super().__init__(limits)
        self.written = shown or bot
        """The reference as the user wrote it (`bot` may be a copy's: a shipped bot)."""
        self.bot = _absolute_reference(bot)
        self._path = [str(Path(p or ".").resolve()) for p in sys.path]

    def _shown(self, message: str) -> str:
        """The launcher names a bot file by its absolute path: name it as the user did."""
        message = super()._shown(message)
        file, written = BotFile.parse(self.bot), BotFile.parse(self.written)
        if file is None or written is None or file.path == written.path:
            return message
        return message.replace(file.path, written.path)

    def launch_config(self) -> dict[str, Any]:
        """Serve the bot class found by its reference, importing like this process does."""
        return {"bot": self.bot, "path": self._path}


def _absolute_arguments(command: Sequence[str]) -> list[str]:
    """Put the current folder before relative arguments naming existing files, since the
    command runs in an empty folder; everything else exactly as written: no symlink is
    resolved and no `..` or trailing slash is taken away (`/lib/x` stays `/lib/x`). A
    program with a '/' is run at its absolute path, where the sandbox shows it
    (`../x/bot` from `/a/b` is `/a/x/bot`: the sandbox has no `/a/b` to go through)."""
    program, *arguments = command
    out = [os.path.abspath(program) if "/" in program else program]
    for arg in arguments:
        named = not arg.startswith("/") and ("/" in arg or Path(arg).suffix) and Path(arg).exists()
        out.append(os.path.join(os.getcwd(), arg) if named else arg)
    return out


class CommandHost(PipeHost):
    """Any executable that speaks the JSON-lines protocol (docs/protocol.md) on stdin/stdout,
    started through the trusted launcher, which sets the limits and then execs it. Its child
    processes (a wrapper script's bot, say) live on between games; all die with a fault."""

    mode = "command"

    def __init__(self, command: Sequence[str], limits: ProcessLimits | None = None) -> None:
        super().__init__(limits)
        if not command:
            raise ValueError("a bot command needs at least the program to run")
        self.command = _absolute_arguments(command)

    def launch_config(self) -> dict[str, Any]:
        """Exec the command after the limits are set."""
        return {"command": self.command}
