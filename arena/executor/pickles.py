"""Nothing a cluster worker sends runs code in the organiser's process.

Dask moves a task's result, the error it raised and the events a worker logs as pickles, and
unpickling a pickle calls whatever functions it names: a worker with a patched arena (or
none) could send a result whose unpickling takes the organiser's process over. So every read
of arena's Dask client (`client`) happens under a `Guard`: a pickle read there may name only
the classes the caller expects back (arena's result records: dataclasses built field by
field, no code of the sender's), arena's own exception classes (of modules loaded already),
Python's built-in exception and value classes, Dask's own
`KilledWorker` and tblib's records of a traceback. A pickle naming anything else (a
function, a module's attribute, another class) is refused before the name is even looked up
(`PickleRefused`): Python's `pickle.find_class` audit event is checked by a hook installed
once per process, and only the reads of a guarded client are checked, so a Dask scheduler or
another client in the same process (the tests' LocalCluster) is left as it was. A pickle
that names nothing (lists, strings, bytes, numbers) cannot call anything.
"""

from __future__ import annotations

import builtins
import contextvars
import pickle
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

__all__ = ["Guard", "PickleRefused", "client", "unreadable_error"]

T = TypeVar("T")

DASK = frozenset({("distributed.scheduler", "KilledWorker")} | {
    ("tblib", name) for name in ("Code", "Frame", "Traceback")} | {
    ("tblib.pickling_support", name)
    for name in ("unpickle_exception", "unpickle_exception_with_attrs", "unpickle_traceback")})
"""The error the Dask scheduler itself pickles for a client, and tblib's records of an
exception and its traceback (Dask carries errors so): they build an instance of a class the
pickle may name, set its attributes, and make a traceback by running tblib's own one-line
stub (`raise`) under the file name and line the pickle gives; no code of the sender's."""
BUILTINS = frozenset(
    name for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)) | {
        "bytes", "bytearray", "str", "int", "float", "complex", "bool", "tuple", "list",
        "dict", "set", "frozenset"}
"""Built-in classes (the exceptions, and the plain values Dask names the type of): calling
one with any arguments a pickle can build builds a value and runs nothing else."""


class PickleRefused(pickle.UnpicklingError, TypeError):
    """A pickle from the cluster named code this process does not run: what, in one line.
    A TypeError too: Dask reads a task's traceback as gone when reading it raises one."""


class Guard:
    """What the reads of one client may name in a pickle, and what they refused."""

    def __init__(self, accept: Iterable[type]) -> None:
        self.accepted = frozenset((kind.__module__, kind.__qualname__) for kind in accept)
        self.refused: list[str] = []
        """Each name refused so far, `module.name`."""
        self.lock = threading.Lock()

    def allows(self, module: str, name: str) -> bool:
        """Whether a pickle read under this guard may look up `module.name`."""
        return ((module == "builtins" and name in BUILTINS) or (module, name) in DASK
                or (module, name) in self.accepted or _arena_error(module, name))

    def refuse(self, module: str, name: str) -> None:
        with self.lock:
            self.refused.append(f"{module}.{name}")
        raise PickleRefused(f"it sent a pickle that names {module}.{name}: the organiser "
                            "never runs code a worker sends")


def _arena_error(module: str, name: str) -> bool:
    """Whether `module.name` is one of arena's exception classes, in a module this process
    has loaded already (an honest worker's error carries the one it was handling)."""
    if module != "arena" and not module.startswith("arena."):
        return False
    found = getattr(sys.modules.get(module), name, None)
    return isinstance(found, type) and issubclass(found, BaseException)


_GUARD: contextvars.ContextVar[Guard | None] = contextvars.ContextVar("arena_pickle_guard",
                                                                    default=None)
_HOOKED: list[bool] = []
_HOOK_LOCK = threading.Lock()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    """Refuse a name a guarded read's pickle looks up that its guard does not allow."""
    if event == "pickle.find_class":
        guard = _GUARD.get()
        if guard is not None and not guard.allows(str(args[0]), str(args[1])):
            guard.refuse(str(args[0]), str(args[1]))


def _install() -> None:
    """The audit hook, once per process (hooks cannot be removed: it checks only guarded
    reads, and costs one context lookup per audited event otherwise)."""
    with _HOOK_LOCK:
        if not _HOOKED:
            sys.addaudithook(_audit)
            _HOOKED.append(True)


def guarded(guard: Guard, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`call(*args, **kwargs)` with every read it starts under `guard`: Dask's event loop
    runs each callback and task in the context of the thread that scheduled it, and
    carries it to the thread that deserialises large messages."""
    def run() -> T:
        _GUARD.set(guard)
        return call(*args, **kwargs)
    return contextvars.copy_context().run(run)


def client(guard: Guard, *args: Any, **kwargs: Any) -> Any:
    """A Dask client (distributed.Client's arguments) whose every read is under `guard`."""
    from distributed import Client

    class GuardedClient(Client):
        """Its background reads start in its constructor, the others in `sync`."""

        def sync(self, *args: Any, **kwargs: Any) -> Any:
            return guarded(guard, super().sync, *args, **kwargs)

    _install()
    return guarded(guard, GuardedClient, *args, **kwargs)


def unreadable_error(exc: BaseException) -> bool:
    """Whether a task's error is one Dask could not unpickle (a refused pickle): Dask then
    gives a plain Exception holding the pickle's bytes."""
    return type(exc) is Exception and len(exc.args) == 1 and isinstance(
        exc.args[0], bytes | bytearray)
