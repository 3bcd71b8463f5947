"""The server of a Python bot in its own process: after the launcher (`arena.hosts.launcher`)
has put the limits in place, it loads the bot class and answers the referee's JSON-lines
protocol (docs/protocol.md), one fresh bot instance per game. It loads only what a bot needs:
no referee, no rules' engine, no plugin machinery for a bot file.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import sys
from collections.abc import Callable, Mapping
from typing import IO, Any

PROTOCOL = 2
EVENT_PREFIX = b'{"type":"event","event":'
"""How the referee's `event` lines begin: such a line is kept as it is and read only when the
bot needs it (its notify, or the history of a round it is asked to play)."""

_encode = json.JSONEncoder(separators=(",", ":")).encode
_decode = json.JSONDecoder().decode
KNOWN_EVENTS = 4096  # decoded event lines kept for each value of straight_over_full
_KNOWN: dict[bool, dict[bytes, Any]] = {}
"""Decoded events by the line the referee sent: immutable, and most recur in every game."""


def _event_data(messages: list[bytes | Mapping[str, Any]]) -> list[Any]:
    """The `event` objects of event messages; lines in the referee's form are parsed in one
    call, as one JSON array of the objects they hold."""
    lines = [m for m in messages if isinstance(m, bytes)]
    if len(lines) < len(messages):
        return [(json.loads(m) if isinstance(m, bytes) else m)["event"] for m in messages]
    start = len(EVENT_PREFIX)
    inner = b",".join(m[start:m.rindex(b"}")] for m in lines)
    return _decode((b"[" + inner + b"]").decode())  # type: ignore[no-any-return]


def _reap_orphans() -> None:
    """Collect finished helper processes a previous game left to this subreaper."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] != 0:
            pass


class BotServer:
    """Serves one Python bot class over the protocol: one fresh bot instance per game."""

    def __init__(self, ref: str, out: IO[bytes], memory: int | None = None) -> None:
        self.ref, self.out = ref, out
        self.memory = memory
        """The memory limit this process runs under (RLIMIT_AS), for a MemoryError's words."""
        self.factory: Callable[..., Any] | None = None
        self.bot: Any = None
        self.context: Any = None  # the game's BotContext: a bot not built is built from it
        self.listens = False
        self.seat, self.sof = 0, False
        self.hand: str | None = None
        """The rule set's hand kind, from the description sent in `start`."""
        self.pending: dict[str, Any] | None = None
        self.events: list[bytes | Mapping[str, Any]] = []
        """The `event` messages of this game as sent (a line, or its parsed form); an
        observation's history is the public events from its `history_from` on."""
        self.decoded: list[Any] = []
        """The events decoded so far, by index (None: not needed yet)."""
        self.last_history: tuple[int, int, tuple[Any, ...]] = (-1, 0, ())  # start, sent, it

    def events_from(self, start: int) -> list[Any]:
        """The events sent from index `start` on, each decoded once: a line seen before (a
        look, a claim, a point recur from game to game) from the cache, the rest in one parse."""
        from arena.hosts.codec import event_from_json

        decoded, events, known = self.decoded, self.events, _KNOWN.setdefault(self.sof, {})
        waiting = []
        for i in range(start, len(decoded)):
            if decoded[i] is None and isinstance(message := events[i], bytes):
                decoded[i] = known.get(message)
            if decoded[i] is None:
                waiting.append(i)
        if len(known) + len(waiting) > KNOWN_EVENTS:
            known.clear()
        found = _event_data([events[i] for i in waiting]) if waiting else []
        for i, data in zip(waiting, found, strict=True):
            message, decoded[i] = events[i], event_from_json(data, self.sof)
            if isinstance(message, bytes):
                known[message] = decoded[i]
        return decoded[start:]

    def observation(self, data: dict[str, Any]) -> Any:
        """Rebuild the observation, its history from the events already sent."""
        from arena.hosts.codec import observation_from_json

        return observation_from_json(data, self.sof, self.history(data["history_from"]), self.hand)

    def history(self, start: int) -> tuple[Any, ...]:
        """The public events sent from `start` on (a round's later decision adds the new ones)."""
        begun, upto, history = self.last_history
        if begun != start or upto > len(self.events):
            upto, history = start, ()
        history += tuple(e for e in self.events_from(upto) if e.to is None)
        self.last_history = (start, len(self.events), history)
        return history

    def reply(self, message: Mapping[str, Any] | bytes) -> None:
        """Write one protocol line whole (the stream is unbuffered: one write, one wake-up)."""
        line = message if isinstance(message, bytes) else (_encode(message) + "\n").encode()
        view = memoryview(line)
        while view:
            view = view[self.out.write(view) or 0:]

    def error(self, text: str | Mapping[str, Any], turn: int | None = None) -> None:
        """Report the bot's failure in place of the expected reply (`text`, or the answer
        `crashed` made of its exception)."""
        message: dict[str, Any] = \
            {"type": "error", "message": text} if isinstance(text, str) else dict(text)
        if turn is not None:
            message["turn"] = turn
        self.reply(message)

    def crashed(self, exc: BaseException, words: str = "") -> dict[str, Any]:
        """The `error` answer for the bot's exception, with where in its own code it raised."""
        from arena.hosts.trace import error_answer

        return error_answer(exc, self.factory, self.memory, words)

    def hello(self, message: Mapping[str, Any]) -> None:
        """Load the bot class (the first bot code this process runs) and say what it is:
        its name, rule sets, bot options with their defaults, version and summary, the card
        the organiser knows it by (it never loads the bot itself)."""
        from arena.botload import PluginError

        try:
            factory, card = _loaded(self.ref)
        except PluginError as exc:  # the organiser's words for a bot that does not load
            self.error(str(exc).splitlines()[0][:500] if str(exc) else self.crashed(exc))
            return
        except Exception as exc:  # noqa: BLE001 - the bot's import failed: report it
            self.error(self.crashed(exc, f"while loading {self.ref}: "))
            return
        self.factory = factory
        self.reply({"type": "hello", "protocol": PROTOCOL, **card})

    def start(self, message: Mapping[str, Any]) -> None:
        """Build a fresh bot for this game from the context sent."""
        from arena.bot import BotContext, Limits
        from arena.options import Options
        from arena.rules.base import Description

        _reap_orphans()
        self.bot, self.pending, self.context = None, None, None
        self.events, self.decoded, self.last_history = [], [], (-1, 0, ())
        c, state = message["context"], message.get("rng_state")
        limits, described = c.get("limits", {}), c.get("description")
        context = BotContext(
            c["seat"], c["players"], c["rules"], Options(c["options"]),
            Limits(limits.get("decision", 1.0), limits.get("bank"),
                   limits.get("wall_factor", 2.0)),
            random.Random(c["seed"]), Options.of(c.get("bot_options", {})),
            tuple(c.get("names", ())),
            # the launcher loads no plugin: a rule set registered by one reaches the bot as data
            None if described is None else Description.from_json(described),
        )
        if state is not None:  # the generator the bot would get inline, for identical games
            context.rng.setstate((state[0], tuple(state[1]), state[2]))
        self.seat, self.sof = context.seat, bool(context.options.get("straight_over_full"))
        self.hand = None if context.description is None else context.description.hand
        self.context = context
        failed = self.prepare() or self.build()
        self.reply(failed or {"type": "ready"})

    def prepare(self) -> dict[str, Any] | None:
        """Prepare the bot class before its first game in this process, under the start-up
        timeout and before any decision's clock, or say why it failed (it is asked again at
        the next start; the game's bot is built at its first act)."""
        from arena.bot import prepare

        try:
            prepare(self.factory)
        except Exception as exc:  # noqa: BLE001 - any failure of the bot is reported
            return self.crashed(exc, "while preparing: ")
        return None

    def build(self) -> dict[str, Any] | None:
        """Build the game's bot, or say why not (one exception, one fault: a bot whose start()
        raised plays on as it is, one whose constructor raised is built at its next act)."""
        from arena.bot import Bot

        if self.factory is None:
            return {"type": "error", "message": f"bot {self.ref} could not be loaded"}
        try:
            self.bot = self.factory(self.context)
            self.listens = type(self.bot).notify is not Bot.notify
            self.bot.start(self.context)
        except Exception as exc:  # noqa: BLE001 - any failure of the bot is reported
            return self.crashed(exc, "while starting: ")
        return None

    def act(self, message: Mapping[str, Any]) -> None:
        """Decode the observation, ask the bot, encode its action; a failure in notify, or in
        building the bot again, is reported once, at this request: one exception, one fault."""
        from arena.hosts.codec import CodecError, action_text

        turn = message["turn"]
        failed = self.build() if self.bot is None and self.context is not None else None
        if self.bot is None or self.pending is not None or failed:
            self.error(failed or self.pending or "no bot: the game was not started", turn)
            self.pending = None
            return
        observation = self.observation(message["observation"])
        try:
            action = self.bot.act(observation)
        except Exception as exc:  # noqa: BLE001 - any failure of the bot is reported
            self.error(self.crashed(exc), turn)
            return
        try:
            text = action_text(action)
        except CodecError:
            self.error(f"act returned {action!r:.200}, which is not an action", turn)
            return
        self.reply(b'{"type":"action","turn":%d,"action":%s}\n' % (turn, text) if type(turn) is int
                   else {"type": "action", "turn": turn, "action": json.loads(text)})

    def event(self, message: bytes | Mapping[str, Any]) -> None:
        """Keep an event and pass it on; a failure is reported at the next request."""
        self.events.append(message)
        self.decoded.append(None)
        if self.bot is None or not self.listens or self.pending is not None:
            return
        try:
            self.bot.notify(self.events_from(len(self.events) - 1)[0])
        except Exception as exc:  # noqa: BLE001 - any failure of the bot is reported
            self.pending = self.crashed(exc, "in notify: ")

    def end(self, message: Mapping[str, Any]) -> None:
        """Tell the bot the result of the game."""
        from arena.bot import GameEnd
        from arena.rules.base import Result

        if self.bot is None or self.pending is not None:  # notify failed after its last act
            failed, self.bot, self.pending = self.pending, None, None
            self.reply(failed or {"type": "done"})
            return
        r = message["result"]
        result = Result(tuple(r["placements"]), tuple(r["scores"]), tuple(r["out_order"]))
        try:
            self.bot.end(GameEnd(result, self.seat))
        except Exception as exc:  # noqa: BLE001 - any failure of the bot is reported
            self.error(self.crashed(exc, "in end: "))
            return
        finally:
            self.bot = None
        self.reply({"type": "done"})

    def handle(self, message: Mapping[str, Any]) -> bool:
        """Dispatch one message; return False when the referee says to shut down."""
        kind = message.get("type")
        handler = _HANDLERS.get(kind)  # type: ignore[arg-type]  # none for "shutdown"
        if handler is not None:
            handler(self, message)
        return kind != "shutdown"


def _loaded(ref: str) -> tuple[Any, dict[str, Any]]:
    """A bot's class and the card it says at hello. A file, folder or module:Class reference
    loads without looking for plugins; a bot file or module:Class (a built-in's, as the
    referee names it) with `arena.botload` alone, as `arena.plugins` would load it (which
    costs its start 6M instructions more)."""
    from arena.botfile import BotFile

    file = BotFile.parse(ref)
    if file is not None or ":" in ref:  # a file, or a module:Class (never a folder)
        from arena.botload import checked_name, file_class, module_class, own_name

        factory, origin = (file_class(file.path, file.cls or None) if file is not None
                           else module_class(ref))
        name = checked_name(factory, origin, own_name(factory))
        rules, summary, version = tuple(factory.rules), factory.summary(), ""
    else:
        from arena.plugins import default_registry, load_reference

        spec = load_reference(ref) or default_registry().resolve(ref)
        factory, name, rules, summary, version = (spec.factory, spec.name, spec.rules,
                                                  spec.description, spec.version)
    return factory, {"name": name, "rules": [str(r) for r in rules],
                     "options": _plain_options(factory.options), "version": version,
                     "summary": summary}


def _plain_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """A bot's options with their defaults as JSON carries them (arena.botcard's `plain`,
    loaded only for a bot that has options: its card class costs a start 6M instructions)."""
    if not options:
        return {}
    from arena.botcard import plain

    return {str(k): plain(v) for k, v in dict(options).items()}


_HANDLERS: dict[str, Callable[[BotServer, Mapping[str, Any]], None]] = {
    "hello": BotServer.hello, "start": BotServer.start, "act": BotServer.act,
    "event": BotServer.event, "end": BotServer.end,
}


def _protocol_streams() -> tuple[IO[bytes], IO[bytes]]:
    """Move the protocol off fds 0 and 1, so a bot's print() goes to stderr and its input()
    reads nothing, instead of corrupting the protocol."""
    reader = os.fdopen(os.dup(0), "rb")
    writer = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - stays open for the life of the process
    sys.stdout = sys.stderr
    return reader, writer


def serve(ref: str, memory: int | None = None) -> None:
    """Answer protocol messages on stdin until shutdown or end of input."""
    reader, writer = _protocol_streams()
    server = BotServer(ref, writer, memory)
    for line in reader:
        if line.startswith(EVENT_PREFIX):
            server.event(line)
        elif not server.handle(_decode(line.decode())):
            break
    writer.flush()
    os._exit(0)
