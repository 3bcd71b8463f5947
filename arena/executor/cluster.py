"""The executor's second backend: the specs played in batches on an existing Dask cluster.

    executor = Executor(job, lost=policy, cluster=Cluster("tcp://host:8786"), told=print)

The job is scattered once to every worker; a task plays a batch of specs (sized so that it
takes about TARGET_SECONDS on its worker, between SMALLEST and LARGEST specs) on that worker
thread's own executor (arena.executor.remote), whose state outlives the batch. Results are
taken batch by batch in the order of the specs, so the caller sees exactly what the local
backend gives. Dask plays a batch again elsewhere when its worker dies or leaves (specs are
seeded: the same results, and each batch's result is taken once); when every worker that
held the job died with it (one worker, restarted by its nanny), the job is scattered again
and the batches in flight sent again. A worker that refuses the job (`Refused`) is told of
once and given no more batches. With a `judge`, no result is taken on a worker's word:
each batch is judged before any result of it is given (arena.executor.trust), and a
worker caught lying is told of once, given no more batches, its batch played again
elsewhere and the specs it played before handed back by `recall`. The scheduler lost, or
a batch that killed Dask workers `distributed.scheduler.allowed-failures` times, stops the
map with `ClusterLost`: what was taken is the caller's, the rest can be played again.

Dask is an optional dependency (arena's extra `dask`), imported only here, in
arena.executor.dial (`Cluster`, the address to connect to) and arena.executor.remote, and
only when a cluster is asked for.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Sized
from dataclasses import replace
from typing import Any

from arena.executor.dial import Cluster, ClusterError, install_hint
from arena.executor.local import Death, Executor, Job
from arena.executor.members import POLL_SECONDS, Members
from arena.executor.pickles import PickleRefused, unreadable_error
from arena.executor.remote import Batch, Refused, fingerprint, play_batch, release
from arena.executor.serve import ExecutorError
from arena.executor.trust import Caught, Judge, Vetting

__all__ = ["Cluster", "ClusterError", "ClusterLost", "ClusterMap", "install_hint"]

TARGET_SECONDS = 1.0
"""How long a batch should take on its worker: the scheduler's cost per task (about a
millisecond) is then a thousandth of the work."""
FIRST, SMALLEST, LARGEST = 50, 1, 500
"""Specs in the first batch, and the bounds of every later one."""
AHEAD = 2
"""Unfinished batches per worker thread: one playing, one waiting there."""
WINDOW = 8
"""Batches per worker thread held here at most, finished or not (results wait in order)."""
SCATTERS = 4
"""Times the job is sent to the cluster: once, and again each time every worker holding it
died (a one-worker cluster whose nanny restarts it); more, and the cluster is lost."""
RESETS = 3
"""Connections cut in a row while a result is fetched before the cluster counts as lost."""
STREAM = 1000
"""Tasks of the scheduler's task stream looked through for the worker a batch erred on."""
AGAIN_FIRST = 1
"""Dask's priority of a batch played again elsewhere (a sampled check, a third play): this
process waits for it before it takes any other result, so it goes before the batches
waiting on that worker (priority 0), after the one being played there."""
WORKER_SECONDS = 60.0
"""How long a cluster with no worker left is waited for (a nanny restarting one)."""


class ClusterLost(ExecutorError):
    """The cluster went away mid-map (the scheduler, or the workers, over and over)."""


class _JobLost(Exception):
    """Every worker holding the scattered job died: the scheduler has forgotten it."""


class _Stranded(Exception):
    """Every worker a batch was allowed on has left (retired): no one will ever play it."""


class ClusterMap:
    """One executor's maps on a cluster: the job scattered once, batches in spec order."""

    def __init__(self, job: Job, cluster: Cluster, lost: Callable[[Death], Any],
                 told: Callable[[str], None] | None = None, judge: Judge | None = None,
                 ) -> None:
        self.cluster, self.lost = cluster, lost
        self.told = told or _quiet
        self.client = cluster.connect(accept=(Batch, Refused, *job.returns))
        self.token = uuid.uuid4().hex
        self.print = fingerprint()
        self.plain_job, self.scatters = job, 0
        self.job = self._scatter()
        self.size = FIRST
        self.left: int | None = None
        """Specs of the map not yet in a batch, when the map said how many it has."""
        self.members = Members(self.client, self.told)
        with contextlib.suppress(Exception):  # the scheduler's record of who erred a batch
            self.client.sync(self.client.scheduler.get_task_stream, count=0)
        self.refused: dict[str, str] = {}
        """Each refusing worker's address, and its refusal in the organiser's words."""
        self.pending: collections.deque[tuple[Any, list[Any]]] = collections.deque()
        self.specs: Iterator[Any] | None = None
        self.finished = threading.Event()
        self.allowed_on: dict[str, frozenset[str]] = {}
        """The workers each batch in flight is restricted to (by its key), if it is."""
        """Set when a batch in flight is done (Dask calls back on a thread of its own)."""
        self.vetting = None if judge is None else Vetting(judge, self._elsewhere, self._here,
                                                          self.told)
        self.given: dict[str, list[Any]] = {}
        """The specs whose results were given, by the worker that played them."""
        self.recalled: list[Any] = []
        """Specs given from a worker caught since: to be played again (`recall`)."""

    def _scatter(self) -> Any:
        """The job sent once to every worker (a worker joining later is given it by one)."""
        self.scatters += 1
        return self.client.scatter(self.plain_job, broadcast=True, hash=False)

    def map(self, specs: Iterable[Any]) -> Iterator[Any]:
        self._cancel()
        self.left = len(specs) if isinstance(specs, Sized) else None
        return self._run(iter(specs))

    def _run(self, specs: Iterator[Any]) -> Iterator[Any]:
        self.specs = specs
        try:
            while True:
                with self._closed_is_lost():
                    self._top_up(specs)
                    if not self.pending:
                        return
                    batch = self._next_batch()
                yield from batch.results
        finally:
            self._cancel()

    @contextlib.contextmanager
    def _closed_is_lost(self) -> Iterator[None]:
        """Any call on a client Dask closed (it gave up reconnecting to a scheduler gone
        meanwhile) is the cluster lost in one line, wherever the loop made it."""
        from distributed.client import ClosedClientError

        try:
            yield
        except ClosedClientError as exc:
            raise ClusterLost(f"the Dask scheduler at {self.cluster.address} is gone "
                              f"({_said(exc)})") from None

    def _top_up(self, specs: Iterator[Any]) -> None:
        """Keep AHEAD unfinished batches per worker thread that may play them: a batch done
        early waits for the ones before it without holding its thread idle, up to WINDOW
        batches per thread (finished or not) held here."""
        threads = max(1, self.members.threads(self.refused))
        unfinished = sum(not future.done() for future, _ in self.pending)
        while unfinished < AHEAD * threads and len(self.pending) < WINDOW * threads:
            chunk = list(itertools.islice(specs, self._batch_size(threads)))
            if not chunk:
                return
            if self.left is not None:
                self.left -= len(chunk)
            self.pending.append((self._submit(chunk), chunk))
            unfinished += 1

    def _batch_size(self, threads: int) -> int:
        """The sized batch, or an even share of what is left when that is smaller: the end of
        a map, and a short map (an elimination's stage), is played on every worker thread
        at once, not on one while the others wait."""
        if self.left is None:
            return self.size
        return max(SMALLEST, min(self.size, -(-self.left // (AHEAD * threads))))

    def _submit(self, chunk: list[Any], allowed: list[str] | None = None,
                priority: int = 0) -> Any:
        chosen = allowed or self.members.allowed(self.refused)
        future = self.client.submit(
            play_batch, self.token, self.job, self.lost, self.print, chunk,
            pure=False, workers=chosen, allow_other_workers=False, priority=priority)
        if chosen is not None:  # None: any worker, one joining later too
            self.allowed_on[future.key] = frozenset(chosen)
        future.add_done_callback(self._done)
        return future

    def _done(self, future: Any) -> None:
        """A batch is done (played, erred or cancelled): wake the wait for it."""
        self.allowed_on.pop(future.key, None)
        self.finished.set()

    def _next_batch(self) -> Batch:
        """The oldest batch's result, once it is there; a refused batch is sent elsewhere."""
        while True:
            future, chunk = self.pending[0]
            early = self.vetting.early.get(future.key) if self.vetting is not None else None
            try:
                batch: Batch = early[0] if early is not None else self._wait(future)
            except Refused as refusal:
                self._refuse(refusal)
                self.pending[0] = (self._submit(chunk), chunk)
                continue
            except _JobLost:
                self._scatter_again()
                continue
            except _Stranded:  # its workers retired before it ran: sent to those there now
                self.pending[0] = (self._submit(chunk), chunk)
                continue
            except Caught as caught:  # it sent a pickle naming code, or no batch
                self._catch(caught)
                self.pending[0] = (self._submit(chunk), chunk)
                continue
            try:
                batch = self._judged(future, chunk, batch)
            except Caught as caught:
                self._catch(caught)
                self.pending[0] = (self._submit(chunk), chunk)
                continue
            self.pending.popleft()
            self.members.look()  # a worker that left while results kept coming is told too
            for line in batch.told:
                _tell(self.lost, line)
            self._resize(len(chunk), batch.seconds)
            return batch

    def _judged(self, future: Any, chunk: list[Any], batch: Batch) -> Batch:
        """The batch as the judge rebuilt it (as it came, without a judge); Caught when its
        worker lied, or was caught before (its batches still coming are played again)."""
        if self.vetting is None:
            return batch
        worker = self._player(future)
        if worker in self.refused:
            self.vetting.early.pop(future.key, None)
            raise Caught(worker, "")
        results = self.vetting.batch(future.key, chunk, batch.results, worker)
        batch = replace(batch, results=results)
        self.given.setdefault(worker, []).extend(chunk)
        return batch

    def _player(self, future: Any) -> str:
        """The address of the worker that played a finished batch, as the scheduler saw it."""
        from concurrent.futures import CancelledError

        try:
            held = self.client.who_has(future).get(future.key) or ("?",)
        except (OSError, CancelledError) as exc:  # the scheduler went away meanwhile
            said = _reason(exc) if isinstance(exc, CancelledError) else _said(exc)
            raise ClusterLost(f"the Dask scheduler at {self.cluster.address} is gone "
                              f"({said})") from None
        return str(held[0])

    def _catch(self, caught: Caught) -> None:
        """A worker that lied: told once, given no more batches, its given specs recalled."""
        if caught.address in self.refused:
            return
        name = self.members.workers.get(caught.address, {}).get("name", "?")
        self.refused[caught.address] = f"worker {caught.address} ({name}) was caught lying"
        self.recalled.extend(self.given.pop(caught.address, ()))
        self.told(f"cluster: worker {caught.address} ({name}) is caught: {caught.lie}; it is "
                  "given no more games; its games are played again elsewhere")
        if not self.members.allowed(self.refused):
            raise ClusterError("no worker of the cluster can play these games: "
                               + "; ".join(self.refused.values()))

    def _elsewhere(self, specs: list[Any], avoid: set[str]) -> tuple[list[Any], str] | None:
        """Specs played on a worker not in `avoid` (nor refused): results and its address."""
        while True:
            self.members.look()
            allowed = [a for a in self.members.workers if a not in avoid | self.refused.keys()]
            if not allowed:
                return None
            future = self._submit(specs, allowed, AGAIN_FIRST)
            try:
                return list(self._wait(future).results), self._player(future)
            except Refused as refusal:
                self._refuse(refusal)
            except _Stranded:  # its workers retired before it ran: asked again of those left
                continue

    def _here(self, specs: list[Any]) -> list[Any]:
        """Specs played on this machine, to settle what two workers played differently."""
        executor = Executor(self.plain_job)
        try:
            return list(executor.map(specs))
        except Exception as exc:  # noqa: BLE001 - any reason: no third play, said in one line
            raise ClusterError(f"two workers played {len(specs)} game(s) differently and "
                               f"this machine cannot play them again to settle it ({_said(exc)})"
                               "; add a third worker to the cluster") from None
        finally:
            executor.close()

    def recall(self) -> list[Any]:
        """The specs given from workers caught since they were given: to play again."""
        recalled, self.recalled = self.recalled, []
        return recalled

    def _wait(self, future: Any) -> Any:
        from concurrent.futures import CancelledError  # Dask's Future(s)CancelledError

        from distributed import TimeoutError as DaskTimeout
        from distributed.comm.core import CommClosedError
        from distributed.scheduler import KilledWorker

        resets, patience = 0, POLL_SECONDS
        while True:
            if not future.done():
                self._meanwhile()
                self._stranded(future)
                continue
            try:
                return self._batch_of(future, future.result(timeout=patience))
            except PickleRefused as exc:
                raise Caught(self._player(future), str(exc)) from None
            except (DaskTimeout, TimeoutError):  # a fetch cut short starts again from nothing:
                patience *= 2  # a batch slower to fetch than one look is given longer each time
                self.members.look()
            except OSError as exc:  # CommClosedError: a connection cut while fetching
                resets += 1
                if self.client.status == "running" and resets < RESETS:
                    if isinstance(exc, CommClosedError):
                        continue  # a worker gone as it sent the result: fetched elsewhere
                    raise  # the batch's own OSError, raised on its worker
                raise ClusterLost(f"the Dask scheduler at {self.cluster.address} is gone "
                                  f"({_said(exc)})") from None
            except CancelledError as exc:
                if self.client.status == "running" and self.job.status != "finished":
                    raise _JobLost from None
                raise ClusterLost(f"the Dask scheduler at {self.cluster.address} is gone "
                                  f"({_reason(exc)})") from None
            except KilledWorker as exc:
                raise ClusterLost(f"a batch of games killed every Dask worker that took it "
                                  f"({_said(exc)})") from None
            except Exception as exc:  # noqa: BLE001 - read, then raised again
                raise self._erred(future, exc) from None

    def _stranded(self, future: Any) -> None:
        """Raise _Stranded (the batch cancelled) once none of its workers is in the cluster:
        Dask keeps such a task waiting for them for ever, and a retired worker never comes."""
        allowed = self.allowed_on.get(future.key)
        if allowed is not None and self.members.workers and \
                not allowed & self.members.workers.keys():
            with contextlib.suppress(Exception):
                future.cancel()
            raise _Stranded

    def _erred(self, future: Any, exc: Exception) -> Exception:
        """What a batch's error means: a refusal (its worker named by the scheduler, not by
        its word), a caught worker when the error was a pickle refused unread, else itself."""
        if isinstance(exc, Refused):
            erred_on = self._erred_on(future)
            return Refused(exc.worker, exc.reason, exc.address if erred_on == "?" else erred_on)
        if unreadable_error(exc):
            return Caught(self._erred_on(future), "it sent an error as a pickle that names "
                          "code: the organiser never runs code a worker sends")
        return exc

    def _erred_on(self, future: Any) -> str:
        """The worker a batch erred on, as the scheduler saw it ('?' when it cannot say)."""
        try:
            return str(self.client.sync(_erred_on, self.client, future.key))
        except Exception:  # noqa: BLE001 - the lie is told, its teller unnamed
            return "?"

    def _batch_of(self, future: Any, batch: object) -> Batch:
        """The batch a worker sent; Caught when it sent something else."""
        if not isinstance(batch, Batch) or not isinstance(batch.results, list) or not \
                isinstance(batch.told, list) or not isinstance(batch.seconds, float) or not \
                all(isinstance(line, str) for line in batch.told):
            raise Caught(self._player(future), f"it sent {type(batch).__name__}, not a batch")
        return batch

    def _meanwhile(self) -> None:
        """Top up, then wait until some batch in flight is done (or POLL_SECONDS pass) and
        look at the workers: a thread that finished its batch is given the next at once."""
        self.finished.clear()  # set by any batch done from now on (its done callback)
        if self.specs is not None:
            self._top_up(self.specs)
        self.finished.wait(POLL_SECONDS)
        self.members.look()
        if self.vetting is not None:  # each batch back is checked at once, not in its turn
            for future, chunk in self.pending:
                if future.status == "finished" and future.key not in self.vetting.early:
                    with contextlib.suppress(Exception):  # told when its turn comes
                        batch = future.result(timeout=POLL_SECONDS)
                        self.vetting.start(future.key, chunk, batch.results, batch)

    def _scatter_again(self) -> None:
        """The job died with every worker that held it: once a worker is there again, send
        it the job again and every batch in flight (seeded: the same results)."""
        if self.scatters >= SCATTERS:
            raise ClusterLost(f"every Dask worker of the cluster died {self.scatters} times "
                              "during the run")
        try:
            self.client.wait_for_workers(1, timeout=WORKER_SECONDS)
            self.job = self._scatter()
        except (OSError, TimeoutError) as exc:
            raise ClusterLost(f"no Dask worker is left in the cluster at "
                              f"{self.cluster.address} ({_said(exc)})") from None
        self.pending = collections.deque((self._submit(chunk), chunk)
                                         for _, chunk in self.pending)

    def _refuse(self, refusal: Refused) -> None:
        if refusal.address not in self.refused:
            self.refused[refusal.address] = str(refusal)
            self.told(f"cluster: {refusal}; it is given no more games")
        if not self.members.allowed(self.refused):
            raise ClusterError("no worker of the cluster can play these games: "
                               + "; ".join(self.refused.values()))

    def _resize(self, count: int, seconds: float) -> None:
        """Aim the next batches at TARGET_SECONDS, changing by at most a factor of two."""
        if count < self.size:
            return  # the tail of a map says little
        wanted = count * TARGET_SECONDS / max(seconds, 1e-3)
        self.size = int(max(SMALLEST, min(LARGEST, 2 * count, max(count / 2, wanted))))

    def _cancel(self) -> None:
        """Drop the batches still in flight (a map that was left, or a new one)."""
        if self.pending:
            with contextlib.suppress(Exception):
                self.client.cancel([future for future, _ in self.pending])
            self.pending.clear()
        if self.vetting is not None:
            self.vetting.early.clear()

    def close(self, *, abort: bool = False) -> None:
        """Stop this map's executors on every worker, and leave the cluster."""
        self._cancel()
        if self.vetting is not None:
            self.vetting.close()
        with contextlib.suppress(Exception):  # a cluster that is gone has nothing to stop
            if self.client.status == "running":  # run() waits: Dask has no wait=False
                self.client.run(release, self.token, abort)  # for a plain function
        with contextlib.suppress(Exception):
            self.client.close(timeout=2 if abort else 10)


async def _erred_on(client: Any, key: str) -> str:
    """Who erred `key`, from the scheduler's task stream, read without deserialising the
    errors it holds (they are the workers' pickles)."""
    from distributed.core import rpc

    async with rpc(client.scheduler.address, deserialize=False,  # type: ignore[no-untyped-call]
                   connection_args=client.connection_args) as scheduler:
        records = await scheduler.get_task_stream(count=STREAM)
    return next((str(r.get("worker")) for r in reversed(records) if r.get("key") == key), "?")


def _tell(lost: Any, line: str) -> None:
    """Give the policy a line its copy on a worker wrote (a worker process died there)."""
    tell = getattr(lost, "tell", None)
    if tell is not None:
        tell(line)


def _reason(exc: BaseException) -> str:
    said = str(exc)
    reason = said.rpartition("reason: ")[2].splitlines()[0] if "reason: " in said else ""
    return reason.rstrip(".") or "cancelled"


def _said(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__


def _quiet(_: str) -> None:
    pass
