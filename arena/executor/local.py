"""The one executor: maps a job over specs on worker processes, results in input order.

Every command that plays or checks many things at once uses it (tournament games, compare
groups, report scans, `replay --verify`), so they share one way of running in parallel:

    job = Job(work, setup, argument, shutdown)       # module-level functions: they are pickled
    executor = Executor(job, workers, lost=policy)  # or ordered_map(job, specs, workers)
    for result in executor.map(specs):              # a sequence or an iterator of specs
        ...                                          # results in the order of the specs
    executor.close()                                 # close(abort=True) on Ctrl-C

- `setup(argument)` runs once in each worker and returns its state; `work(state, spec)`
  returns one result; `shutdown(state)` runs when the worker is stopped normally;
  `lanes(state)`, if given, how many specs a worker process plays at once (its lanes,
  threads that overlap specs waiting on other processes: arena.executor.serve), else one.
- One worker (see `pool_size`, the one "serial below N" rule) runs everything in this
  process: no processes, same results. Otherwise worker processes are started with the
  `forkserver` method on every platform (each is forked from a server that imported arena
  once, and inherits no threads, locks or open files of this process), ignore Ctrl-C (this
  process handles it and closes them), and exit when this process dies.
- A worker that dies (`kill -9`, the OOM killer, an inline bot calling `os._exit`) never
  stalls the map: its death is noticed on its process sentinel, and every spec it held is
  played again on a fresh worker (specs are seeded, so results are the same). `lost`, if
  given, decides what the spec that was running becomes: the same spec, another one (a
  tournament replays the game with the acting seat crashed), or an exception to stop.
  A worker marks where it is with `mark(where, count)` in a shared slot (two integers, no
  system call), so `lost` can tell whose call it died in, and counts there the specs it
  began: only those died with it (a spec sent to a worker killed before it read it, as when
  the machine kills two at once, is played again as if new). A worker with several lanes
  dies holding several specs in flight: each of them goes to `lost`.

Why own processes and pipes, not `multiprocessing.Pool`: a Pool never notices that a worker
died with a task, and waits for its result for ever; `concurrent.futures` notices, but then
breaks the whole pool and loses every task in flight. Here each worker has one pipe and
at most `DEPTH` specs, taken in the order sent, each result sent back at once: this
process knows exactly which specs a dead worker held, and which ones it was playing.

The other backend is a Dask cluster (`cluster=Cluster(address)`, arena/executor/cluster.py):
the same `map(specs) -> results in order` and `close(abort=...)`, the specs played in
batches by this module's own workers on the cluster's machines.
"""

from __future__ import annotations

import collections
import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.sharedctypes import RawArray
from typing import TYPE_CHECKING, Any

from arena.executor.serve import ExecutorError, serve

if TYPE_CHECKING:
    from arena.executor.cluster import Cluster
    from arena.executor.cluster import ClusterMap as _Cluster
    from arena.executor.trust import Judge

__all__ = [
    "DEPTH",
    "Death",
    "Executor",
    "ExecutorError",
    "Job",
    "ordered_map",
    "pool_size",
]

DEPTH = 8
"""Specs in flight per worker: enough that a worker never waits for its next spec. A worker
is topped up once it holds half of them, in one message (fewer, bigger writes)."""
WINDOW = 64
"""Specs per worker that may run ahead of the oldest unfinished one (results wait in order)."""
PRELOAD = ("arena.tournament.run.worker", "arena.compare.run", "arena.cli.replay",
           "arena_bots.prepared", "importlib.metadata", "arena.hosts.walls",
           "arena.tournament.run.trust")
"""Imported once by the fork server, so each worker starts with them loaded (and the built-in
bots prepared: their tables built once, before any worker's first game). Also what each
worker imported for itself before: importlib.metadata, which the plugins' registry reads
entry points with, the sandbox's walls, and a cluster's checkers' judge (arena.executor.trust):
30 ms of each forked worker's CPU, 40 ms of the server's once."""


@dataclass(frozen=True, slots=True)
class Job:
    """What each worker runs: `setup(argument)` once, `work(state, spec)` per spec,
    `shutdown(state)` at a normal stop, `lanes(state)` specs at once in a worker process.
    Functions must be importable (they are pickled)."""

    work: Callable[[Any, Any], Any]
    setup: Callable[[Any], Any] | None = None
    argument: Any = None
    shutdown: Callable[[Any], None] | None = None
    lanes: Callable[[Any], int] | None = None
    """How many specs a worker process plays at once with this state (None: one): more
    than one only for work that is thread-safe and never marks (`mark`) its calls."""
    returns: tuple[type, ...] = ()
    """The classes a result is made of: all a cluster's worker may name in what it sends
    back (arena.executor.pickles); plain lists, strings and numbers need none."""

    def start(self) -> Any:
        """The worker's state."""
        return None if self.setup is None else self.setup(self.argument)

    def stop(self, state: Any) -> None:
        """Release what the worker's state holds."""
        if self.shutdown is not None:
            self.shutdown(state)

    def lanes_of(self, state: Any) -> int:
        """How many specs a worker process plays at once."""
        return 1 if self.lanes is None else max(1, self.lanes(state))


@dataclass(frozen=True, slots=True)
class Death:
    """A worker died holding `spec`: how often this spec has now killed one, how it died,
    and the last mark it wrote (None when it was not inside a marked call)."""

    spec: Any
    deaths: int
    cause: str
    mark: tuple[int, int] | None


def cores() -> int:
    """CPUs this process may use, the default number of workers: a machine's cores, or fewer
    where a container's cpuset or `taskset` allows fewer (more workers than that only make
    them take turns, each with its own processes and bots)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def pool_size(workers: int | None, items: int | None = None, parallel_from: int = 0) -> int:
    """How many workers to use: one (this process) below `parallel_from` items, else the
    number asked, else one per core."""
    if items is not None and items < parallel_from:
        return 1
    return max(1, workers or cores())


def replay_once(death: Death) -> Any:
    """The default `lost` policy: play the spec once more, then stop."""
    if death.deaths >= 2:
        raise ExecutorError(f"a worker died twice on the same task ({death.cause})")
    return death.spec


class Executor:
    """Maps a `Job` over specs, in this process for one worker, else on worker processes."""

    def __init__(self, job: Job, workers: int = 1,
                 lost: Callable[[Death], Any] | None = None, *,
                 cluster: Cluster | None = None, told: Callable[[str], None] | None = None,
                 apart: bool = False, judge: Judge | None = None) -> None:
        self.job, self.workers = job, max(1, workers)
        self.lost = lost or replay_once
        self.cluster, self.told, self.apart, self.judge = cluster, told, apart, judge
        """`apart`: even one worker runs in its own process (a Dask worker's thread does, so
        that a bot killing its process cannot take the Dask worker down with it). `judge`:
        what a cluster's results are checked by (arena.executor.trust); none are judged
        on this machine, whose workers run this process's own code."""
        self._backend: _Local | _Workers | _Cluster | None = None

    def map(self, specs: Iterable[Any]) -> Iterator[Any]:
        """The results of `work` over `specs`, in the order of the specs."""
        if self._backend is None:
            self._backend = self._start()
        return self._backend.map(specs)

    def _start(self) -> _Local | _Workers | _Cluster:
        if self.cluster is not None:
            from arena.executor.cluster import ClusterMap

            return ClusterMap(self.job, self.cluster, self.lost, self.told, self.judge)
        if self.workers == 1 and not self.apart:
            return _Local(self.job)
        return _Workers(self.job, self.workers, self.lost)

    @property
    def cannot_start(self) -> bool:
        """Whether the map stopped because a worker's setup failed (not a spec's work)."""
        return isinstance(self._backend, _Workers) and self._backend.cannot_start

    def recall(self) -> list[Any]:
        """Specs whose results were given from a cluster worker caught lying since: each
        is to be played again (none on this machine)."""
        recall = getattr(self._backend, "recall", None)
        return list(recall()) if recall is not None else []

    def close(self, *, abort: bool = False) -> None:
        """Stop the workers: at once with `abort` (or when they hold specs whose results
        will not be read), else after their shutdown."""
        if self._backend is not None:
            self._backend.close(abort=abort)
            self._backend = None


def ordered_map(job: Job, specs: Iterable[Any], workers: int = 1,
                lost: Callable[[Death], Any] | None = None) -> Generator[Any, None, None]:
    """One map on a fresh executor, closed when the results end or are left."""
    executor = Executor(job, workers, lost)
    try:
        yield from executor.map(specs)
    finally:
        executor.close()


class _Local:
    """Everything in this process, one spec after another."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.state = job.start()

    def map(self, specs: Iterable[Any]) -> Iterator[Any]:
        work, state = self.job.work, self.state
        return (work(state, spec) for spec in specs)

    def close(self, *, abort: bool = False) -> None:
        self.job.stop(self.state)


@contextlib.contextmanager
def _safe_path() -> Iterator[None]:
    """PYTHONSAFEPATH while a worker starts: the fork server it may launch (`python -c`)
    puts no current folder first on its sys.path, so a `random.py` or an `arena_bots/` there
    cannot shadow arena's imports in the server or in the workers forked from it."""
    before = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTHONSAFEPATH"]
        else:
            os.environ["PYTHONSAFEPATH"] = before


class _Worker:
    """One worker process, its pipe, its slot, and the specs it holds (in the order sent)."""

    def __init__(self, context: Any, job: Job) -> None:
        self.slot = RawArray("q", 4)  # the mark (where, count), its lanes, specs it began
        self.slot[0], self.slot[2] = -1, 1
        self.conn, theirs = multiprocessing.Pipe()
        self.process = context.Process(target=serve, args=(theirs, job, self.slot, os.getpid()),
                                       daemon=True)
        with _safe_path():
            self.process.start()
        theirs.close()
        self.held: collections.OrderedDict[int, Any] = collections.OrderedDict()
        self.sent: dict[int, int] = {}  # each held spec's place in the order sent to it
        self.given = 0  # specs sent to it so far

    def cause(self) -> str:
        """How the process ended, in words."""
        self.process.join(1)
        code = self.process.exitcode
        if code is not None and code < 0:
            return f"killed by {signal.Signals(-code).name}"
        return f"exit status {code}"

    def last_mark(self) -> tuple[int, int] | None:
        return None if self.slot[0] < 0 else (int(self.slot[0]), int(self.slot[1]))

    def lanes(self) -> int:
        """How many specs the process plays at once (its oldest held are those in flight)."""
        return max(1, int(self.slot[2]))

    def give(self, batch: list[tuple[int, Any]]) -> None:
        """Hold a batch about to be sent, each spec numbered in the order sent."""
        for index, spec in batch:
            self.given += 1
            self.held[index], self.sent[index] = spec, self.given

    def answered(self, index: int) -> None:
        """A held spec's result came back."""
        self.held.pop(index, None)
        self.sent.pop(index, None)

    def in_flight(self) -> list[tuple[int, Any]]:
        """The held specs the process had begun (at most one a lane): one sent to a process
        that died before it read it was never played there, and is no death of its. A
        process that died before it began any spec died starting: that is blamed on the
        first it held (one a lane), so a worker that cannot start is not started for ever."""
        begun, held = int(self.slot[3]), list(self.held.items())
        if begun == 0:
            return held[:self.lanes()]
        return [(i, spec) for i, spec in held if self.sent[i] <= begun][:self.lanes()]


class _Workers:
    """Worker processes fed through their pipes; a dead one is replaced, its specs replayed."""

    def __init__(self, job: Job, count: int, lost: Callable[[Death], Any]) -> None:
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload(list(PRELOAD))
        self.job, self.lost = job, lost
        self.deaths: collections.Counter[int] = collections.Counter()
        self.workers = [_Worker(self.context, job) for _ in range(count)]
        self.generation = 0
        self.cannot_start = False

    def map(self, specs: Iterable[Any]) -> Iterator[Any]:
        self.generation += 1
        for worker in self.workers:  # still busy with a map that was left: start afresh
            if worker.held:
                worker.process.terminate()
                self._renew(worker)
        return self._run(iter(specs), self.generation)

    def _renew(self, worker: _Worker) -> None:
        worker.process.join()
        worker.conn.close()
        self.workers[self.workers.index(worker)] = _Worker(self.context, self.job)

    def _run(self, specs: Iterator[Any], generation: int) -> Iterator[Any]:
        todo: collections.deque[tuple[int, Any]] = collections.deque()
        done: dict[int, Any] = {}
        given = following = 0  # specs taken from the input; the next result to yield
        ended = False
        self.deaths.clear()
        while True:
            while following in done:
                yield done.pop(following)
                following += 1
            limit = following + WINDOW * len(self.workers)
            while not ended and len(todo) < len(self.workers) * DEPTH and given < limit:
                spec = next(specs, _END)
                if spec is _END:
                    ended = True
                    break
                todo.append((given, spec))
                given += 1
            if ended and not todo and following == given:
                return
            self._send(todo, generation)
            self._receive(todo, done, generation)

    def _send(self, todo: collections.deque[tuple[int, Any]], generation: int) -> None:
        """Top up each worker holding half of DEPTH or less to DEPTH, in one message."""
        for worker in sorted(self.workers, key=lambda w: len(w.held)):
            if not todo or len(worker.held) > DEPTH // 2:
                continue
            batch = [todo.popleft() for _ in range(min(len(todo), DEPTH - len(worker.held)))]
            worker.give(batch)
            _quietly(worker.conn.send, (generation, batch))  # dead: its sentinel says so

    def _receive(self, todo: collections.deque[tuple[int, Any]], done: dict[int, Any],
                 generation: int) -> None:
        """Wait for a result or a death, and take in every one that is ready."""
        busy = [w for w in self.workers if w.held]
        if not busy:
            return
        ready = set(multiprocessing.connection.wait(
            [w.conn for w in busy] + [w.process.sentinel for w in busy]))
        for worker in busy:
            if worker.conn in ready:
                self._take(worker, done, generation)
            if worker.process.sentinel in ready:
                self._replace(worker, todo, done, generation)

    def _take(self, worker: _Worker, done: dict[int, Any], generation: int) -> None:
        """Read every reply waiting in the worker's pipe."""
        try:
            while worker.conn.poll():
                sent_in, index, ok, value = worker.conn.recv()
                if sent_in == -1:
                    self.cannot_start = True
                    raise value
                if sent_in != generation:
                    continue
                worker.answered(index)
                if not ok:
                    raise value
                done[index] = value
        except (EOFError, OSError):
            pass  # it died: its sentinel says so

    def _replace(self, worker: _Worker, todo: collections.deque[tuple[int, Any]],
                 done: dict[int, Any], generation: int) -> None:
        """A worker died: start another, and play what it held again, those it was playing
        (one per lane) as `lost` decides."""
        self._take(worker, done, generation)
        cause, last = worker.cause(), worker.last_mark()
        held, playing = list(worker.held.items()), dict(worker.in_flight())
        self._renew(worker)
        for place, (index, spec) in enumerate(held):
            if index in playing:
                self.deaths[index] += 1
                held[place] = (index, self.lost(Death(spec, self.deaths[index], cause, last)))
        todo.extendleft(reversed(held))

    def close(self, *, abort: bool = False) -> None:
        for worker in self.workers:
            if abort or worker.held:  # work nobody will read is not waited for
                worker.process.terminate()
            else:
                _quietly(worker.conn.send, None)
        for worker in self.workers:
            worker.process.join()
            worker.conn.close()


_END = object()


def _quietly(call: Callable[..., Any], *args: Any) -> None:
    with contextlib.suppress(OSError, ValueError):  # the worker is gone already
        call(*args)
