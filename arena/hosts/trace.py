"""Where a crashed bot raised: the last frames of its traceback that are its own code (its
file, its folder's other modules), never arena's internals or the standard library's, each
`file:line in function: source line`, so a `KeyError: 'central'` says where it came from.

The inline host takes them from the exception in the referee's process; the launcher takes
them in the bot's own process and sends them with its `error` answer (docs/protocol.md). A
bot writes this text (its file names, its source), so `BotFault` bounds it and makes it
printable, as it does the message. Plain standard library: the launcher imports it too.
"""

from __future__ import annotations

import linecache
import os
import sys
import sysconfig
import traceback
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

FRAMES = 4
"""How many of the bot's innermost frames a fault keeps."""
FRAME_CHARS = 200
"""How long one frame's text may be (then '...')."""
SOURCE_CHARS = 120
"""How much of a frame's source line is kept."""
_ARENA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def home_of(code: object) -> str | None:
    """The folder of the module that defines a bot class or factory (the bot's own files),
    or of the module itself."""
    module = code if isinstance(code, ModuleType) else \
        sys.modules.get(getattr(code, "__module__", "") or "")
    file = getattr(module, "__file__", None)
    return os.path.dirname(os.path.abspath(file)) if file else None


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _not_the_bots() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(arena, the bots it ships and the standard library: never the bot's; installed
    packages: the bot's only when its own class lives there, as a plugin's does)."""
    paths = sysconfig.get_paths()
    never = (_ARENA, *{paths[k] for k in ("stdlib", "platstdlib") if k in paths})
    shipped = home_of(sys.modules.get("arena_bots"))  # loaded if one of its bots ran
    if shipped is not None:
        never += (shipped,)
    installed = tuple({paths[k] for k in ("purelib", "platlib") if k in paths})
    return never, installed


def _shown_path(path: str, home: str | None) -> str:
    """The file as the bot's author knows it: from the bot's folder, else by its name."""
    if home is not None and _under(path, home):
        return os.path.relpath(path, home)
    return os.path.basename(path)


def bot_frames(exc: BaseException, home: str | None) -> tuple[str, ...]:
    """The last FRAMES frames of the exception's traceback in the bot's own code."""
    never, installed = _not_the_bots()
    kept: list[tuple[str, int, str]] = []
    for frame, line in traceback.walk_tb(exc.__traceback__):
        file = frame.f_code.co_filename
        if file.startswith("<"):
            continue
        path = os.path.abspath(file)
        theirs = any(_under(path, f) for f in never)
        ours = home is not None and _under(path, home)
        if theirs or (not ours and any(_under(path, f) for f in installed)):
            continue
        name = getattr(frame.f_code, "co_qualname", frame.f_code.co_name)
        kept.append((path, line or 0, name))
    return tuple(_frame(path, line, name, home) for path, line, name in kept[-FRAMES:])


def _frame(path: str, line: int, name: str, home: str | None) -> str:
    source = linecache.getline(path, line).strip()[:SOURCE_CHARS]
    text = f"{_shown_path(path, home)}:{line} in {name}"
    return f"{text}: {source}" if source else text


def bounded(trace: object, clean: Callable[[str], str]) -> tuple[str, ...]:
    """A trace as a bot's process sent it, made safe to keep: only a list of strings is one,
    its last FRAMES frames, each `clean`ed (made printable), then cut to FRAME_CHARS."""
    if not isinstance(trace, list | tuple) or not all(isinstance(f, str) for f in trace):
        return ()
    frames = [clean(f) for f in trace[-FRAMES:]]
    return tuple(f if len(f) <= FRAME_CHARS else f[:FRAME_CHARS] + "..." for f in frames)


def with_trace(message: str, trace: Sequence[str], indent: str = "    ") -> str:
    """A fault's message with its frames below it, innermost last, one per line."""
    return message + "".join(f"\n{indent}{frame}" for frame in trace)


def size_text(size: int) -> str:
    """A memory size as a limit is set: '1 GiB', '256 MiB', '640 KiB', '100 bytes'."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} bytes"


VIEW_VARIABLE = "ARENA_VIEW"
"""Set in a sandboxed bot's environment: its interpreter shows only part of site-packages."""
UNSEEN = (" (a sandboxed bot sees only the standard library, arena and the installed packages "
          "its own .py files name in an `import` line, with what they need: put `import "
          "{name}` in the bot's file, and ask the organiser to install it if it is not)")


def crash_text(exc: BaseException, memory: int | None = None) -> str:
    """An exception in one line, as a fault says it; a MemoryError names the memory limit
    the bot's process runs under, when it has one (that is what it broke). Never raises:
    the bot's exception says its message (its __str__), which may itself raise."""
    text = _message(exc)
    if isinstance(exc, MemoryError) and memory is not None:
        text = f"over its {size_text(memory)} memory limit" + (f" ({text})" if text else "")
    if isinstance(exc, ModuleNotFoundError) and os.environ.get(VIEW_VARIABLE):
        text += UNSEEN.format(name=(exc.name or "it").split(".")[0])
    return f"{type(exc).__name__}: {text}"[:500]


def _message(exc: BaseException) -> str:
    """The first line of an exception's message, or why it has none to show: a bot's
    __str__ that raises, or returns a str whose methods raise, is the bot's fault, never a
    referee bug."""
    try:
        lines = str.splitlines(str.__str__(str(exc)))
    except Exception as inner:  # noqa: BLE001 - the bot's code, whatever it raises
        return f"(its message could not be shown: {type(inner).__name__} in its __str__)"
    return lines[0] if lines else ""


def error_answer(exc: BaseException, code: object, memory: int | None,
                 words: str = "") -> dict[str, Any]:
    """The launcher's `error` answer for the bot's exception: the message and, where known,
    the trace (`code`: the bot's class or factory, None while it is being loaded)."""
    answer: dict[str, Any] = {"type": "error", "message": words + crash_text(exc, memory)}
    trace = bot_frames(exc, home_of(code))
    if trace:
        answer["trace"] = list(trace)
    return answer
