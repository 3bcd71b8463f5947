"""The report's one pass over the games: from the last build's checkpoint (arena.report.built)
when it still holds, else from the first game, games.jsonl is read a pack of games at a
time, each pack's replays scanned (arena.report.scan, on a pool for big tournaments), and
the sums, the packs and the list's rows brought up to the last complete pack, where the next
build starts.

The list of games is kept encoded with each game's entrants as numbers in order of first
appearance, so a rebuild only renumbers them in the standings' order: the page is the same,
byte for byte, as a build from the first game would make.

This module must not play games or change what `arena run` wrote: it writes the packs, the
rows file and the state under replays/ only.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import tempfile
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from arena.executor.local import Job, ordered_map, pool_size
from arena.ratings.games import FAULT_KINDS
from arena.report import built as state
from arena.report import scan as scanning
from arena.report import viewer as packs
from arena.report.built import ROWS, Built
from arena.report.folder import GameRow, GamesLog, add_examples, game_row
from arena.report.markup import compact
from arena.report.scan import TallyKey, _Scan, scan_pack
from arena.report.viewer import CHANCES_FOLDER
from arena.tournament.run import results as folder_files
from arena.tournament.run import safe_read

__all__ = ["Ahead", "Passed", "pack_stats", "read_games"]

_BLOCK = 1 << 16
_MOD = 1 << 128


@dataclass(slots=True)
class Passed:
    """What the pass found: the sums over every game, and where the list's rows are."""

    built: Built
    kept: IO[bytes]
    """The rows file, opened while no other build could change it."""
    kept_rows: int
    """Bytes of the rows file that are the games before the checkpoint."""
    tail: list[bytes]
    """The rows of the games after it."""

    def log(self, entrants: Sequence[str]) -> GamesLog:
        done = self.built
        names = tuple(dict.fromkeys([*entrants, *done.names]))
        shown = {name: tuple(listed) for name, listed in done.examples.items()}
        return GamesLog(done.games, done.replays, names, tuple(done.stages), shown, done.links)

    def rows(self, names: Sequence[str]) -> Iterator[str]:
        """Each game's row of the list, its entrants numbered as in `names`."""
        index = {name: str(i) for i, name in enumerate(names)}
        number = [index[name] for name in self.built.names]
        with self.kept:
            yield from _rows(state.rows_lines(self.kept, self.kept_rows), number)
        yield from _rows(iter(self.tail), number)


def _rows(lines: Iterator[bytes], number: Sequence[str]) -> Iterator[str]:
    seated: dict[str, str] = {}  # the same tables recur: each renumbered once
    for line in lines:
        head, seats, tail, _ = line.decode("utf-8").split("\t", 3)
        mapped = seated.get(seats)
        if mapped is None:
            mapped = seated[seats] = ",".join(number[int(s)] for s in seats.split(","))
        yield f"{head},[{mapped}],{tail}"


@dataclass(slots=True)
class _Chunk:
    """Games of one pack (or PACK games without replays), and where the log is after them."""

    pack: int
    games: list[GameRow]
    offset: int
    digest: str
    complete: bool
    stats: int = 0
    """The sum of the chunk's replays' stat keys' digests."""


@dataclass(slots=True)
class Ahead:
    """Packs whose scan the run made as it played them (arena.report.as_played), in a row
    from pack `first`: each pack's `pack_stats` as the run wrote its replays, and what
    their games tally together. The pass takes them for those packs when it meets every
    one of them in turn with its replays unchanged, instead of reading the replays again."""

    first: int = 0
    stats: list[int] = field(default_factory=list)
    tally: Counter[TallyKey] = field(default_factory=Counter)

    def add(self, pack: int, stats: int, said: Iterable[TallyKey]) -> None:
        """The next pack's, its tally as its keys, each as often as it counts (counted here
        in one call); a pack not next in the row starts a new row from it."""
        if pack != self.first + len(self.stats):
            self.first, self.stats, self.tally = pack, [], Counter()
        self.stats.append(stats)
        self.tally.update(said)


class _Stale(Exception):
    """Packs the run scanned that the pass met changed or only in part: it reads them again."""


def read_games(root: Path, entrants: Sequence[str], linked: frozenset[str], *,
               workers: int | None, viewer: bool,
               progress: Callable[[int, int], object] | None,
               ahead: Ahead | None = None) -> Passed:  # fmt: skip
    """Bring the sums, packs and rows up to the end of games.jsonl; keep the checkpoint."""
    if not (root / folder_files.REPLAYS).is_dir():  # no replays, none made: a rebuild reads
        with tempfile.TemporaryDirectory(prefix="arena-report-") as scratch:  # the log only
            return _read(root, Path(scratch), entrants, linked, workers, viewer, progress)
    replays = folder_files.own(root / folder_files.REPLAYS, folder=True, make=True)
    chances = folder_files.own(replays / CHANCES_FOLDER, folder=True, make=True)
    lock = os.open(chances, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time appends to the rows
        try:
            return _read(root, chances, entrants, linked, workers, viewer, progress, ahead)
        except _Stale:  # nothing saved yet: the pass again, every replay read
            return _read(root, chances, entrants, linked, workers, viewer, progress)
    finally:
        os.close(lock)


def _read(root: Path, keep: Path, entrants: Sequence[str], linked: frozenset[str],
          workers: int | None, viewer: bool,
          progress: Callable[[int, int], object] | None,
          ahead: Ahead | None = None) -> Passed:  # fmt: skip
    stamp = state.code_stamp(viewer, linked)
    path = root / folder_files.GAMES
    rows_path = keep / ROWS
    with _open_log(path) as handle:
        hasher = hashlib.blake2b(digest_size=16)
        built, stats, prefix = _resume(root, stamp, handle, hasher, rows_path)
        if built.offset == 0:
            handle.seek(0)
            hasher = hashlib.blake2b(digest_size=16)
        total = built.replays + _count_replays(handle)
        chunks = _chunks(path, handle, hasher, built)
        start = _Start(stamp, prefix, stats, linked, viewer, ahead if viewer else None)
        return _merge(root, rows_path, built, chunks, start, workers, total, progress)


def _open_log(path: Path) -> IO[bytes]:
    try:
        return safe_read.open_regular(path)
    except safe_read.Unreadable as exc:
        raise folder_files.ResultsError(f"{path}: cannot read: {exc}") from None


def _resume(root: Path, stamp: str, handle: IO[bytes], hasher: Any,
            rows_path: Path) -> tuple[Built, int, str]:  # fmt: skip
    """The last build's sums and its replays' key if everything they came from is unchanged
    (the log read and hashed up to the checkpoint, the handle left there); else a start."""
    start = Built(), 0, hashlib.blake2b(digest_size=16).hexdigest()
    loaded = state.load_built(root, stamp)
    if loaded is None:
        return start
    built, keys, replays = loaded
    left = built.offset
    while left > 0 and (block := handle.read(min(left, _BLOCK))):
        hasher.update(block)
        left -= len(block)
    if left or hasher.hexdigest() != keys["prefix"]:
        return start
    try:
        with safe_read.open_regular(rows_path, follow=False) as rows:
            stats = _stats_sum(root, _listed(state.rows_lines(rows, built.rows)))
    except (safe_read.Unreadable, OSError, ValueError, IndexError):
        return start
    return (built, stats, keys["prefix"]) if str(stats) == replays else start


def _listed(lines: Iterator[bytes]) -> Iterator[bytes]:
    for line in lines:
        replay = line.rstrip(b"\n").rsplit(b"\t", 1)[1]
        if b"\\" in replay:  # a name with escapes: JSON's
            yield str(json.loads(replay)).encode()
        elif replay:
            yield replay[1:-1]


def _stats_sum(root: Path, listed: Iterable[bytes]) -> int:
    """The sum over packs of the digest of their replays' stat keys, PACK replays a pack in
    the rows' order (a sum, so it grows a pack at a time; the order is the rows file's,
    which its own key covers)."""
    total, keys = 0, []
    folder = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for replay in listed:
            try:
                found = os.stat(replay, dir_fd=folder, follow_symlinks=False)
                keys.append(b"%s\0%d %d %d %d %d;" % (
                    replay, found.st_ino, found.st_nlink, found.st_size, found.st_mtime_ns,
                    found.st_ctime_ns))  # fmt: skip
            except (OSError, ValueError):
                keys.append(b"%s\0;" % replay)
            if len(keys) == packs.PACK:
                total, keys = total + _digest(keys), []
    finally:
        os.close(folder)
    return (total + _digest(keys) if keys else total) % _MOD


def pack_stats(root: Path, replays: Iterable[str]) -> int:
    """The key a pack's replays are known by (`_stats_sum` of one pack): their names, inodes,
    sizes and times, as the pass finds them when it reads that pack."""
    return _stats_sum(root, [replay.encode() for replay in replays])


def _digest(keys: list[bytes]) -> int:
    return int.from_bytes(hashlib.blake2b(b"".join(keys), digest_size=16).digest(), "big")


def _count_replays(handle: IO[bytes]) -> int:
    """About how many of the games after the handle list a replay (for the progress and the
    pool's size only); the handle is left where it was."""
    start, count = handle.tell(), 0
    while block := handle.read(_BLOCK):
        count += block.count(b'"replay":"')
    handle.seek(start)
    return count


def _games(path: Path, handle: IO[bytes], hasher: Any, number: int) -> Iterator[GameRow]:
    """The games after the handle, each line checked as results.iter_games checks it."""
    while raw := handle.readline(safe_read.LINE_BYTES + 1):
        number += 1
        hasher.update(raw)
        try:  # in safe_read.lines' words, as results.iter_games says them
            if len(raw) > safe_read.LINE_BYTES:
                raise safe_read.Unreadable(f"longer than {safe_read.LINE_BYTES >> 20} MiB")
            line = safe_read.json_object(_text(raw))
        except safe_read.Unreadable as exc:
            raise folder_files.ResultsError(f"{path}:{number}: not a game record ({exc}); "
                                            "fix the line or start over with --force") from None
        problem = safe_read.listed_problem(line["replay"]) if line.get("replay") else None
        if problem is not None or not raw.endswith(b"\n"):
            why = f" ({problem})" if problem else ""
            raise folder_files.ResultsError(f"{path}:{number}: not a game record{why}; fix "
                                            "the line or start over with --force")
        yield game_row(path, number, line)


def _text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise safe_read.Unreadable(f"not UTF-8: {exc}") from None


def _chunks(path: Path, handle: IO[bytes], hasher: Any,
            built: Built) -> Iterator[_Chunk]:  # fmt: skip
    """The games a pack at a time: a chunk ends with its pack's last replay, or after PACK
    games while its pack has no replay yet, so every chunk's end is a checkpoint."""
    pack, replays = built.replays // packs.PACK, 0
    games: list[GameRow] = []
    for game in _games(path, handle, hasher, built.games):
        games.append(game)
        replays += bool(game.replay)
        if replays == packs.PACK or (not replays and len(games) == packs.PACK):
            yield _Chunk(pack, games, handle.tell(), hasher.hexdigest(), True)
            pack, replays, games = pack + (replays == packs.PACK), 0, []
    if games:
        yield _Chunk(pack, games, handle.tell(), hasher.hexdigest(), False)


_Task = tuple[str, int, tuple[tuple[str, str], ...], bool]


def _task(root: Path, chunk: _Chunk, viewer: bool) -> _Task:
    listed = tuple((g.id, g.replay) for g in chunk.games if g.replay)
    chunk.stats = _stats_sum(root, [replay.encode() for _, replay in listed])  # before reading
    return (str(root), chunk.pack, listed, viewer and bool(listed))


@dataclass(frozen=True, slots=True)
class _Start:
    """What the pass starts from besides the sums: the code's stamp, the checkpoint's log
    digest and replays' key, the games linked outside the list, whether there is a viewer."""

    stamp: str
    prefix: str
    stats: int
    linked: frozenset[str]
    viewer: bool
    ahead: Ahead | None = None


def _merge(root: Path, rows_path: Path, built: Built, chunks: Iterator[_Chunk], start: _Start,
           workers: int | None, total: int,
           progress: Callable[[int, int], object] | None) -> Passed:  # fmt: skip
    """Add each chunk's games and scan to the sums in log order; keep the last checkpoint."""
    pending: deque[_Chunk] = deque()

    taken = _Taken(start.ahead)

    def tasks() -> Iterator[_Task | _Scan]:
        for chunk in chunks:
            pending.append(chunk)
            task = _task(root, chunk, start.viewer)
            yield taken.scan(chunk, task) or task

    count = pool_size(workers, total - built.replays, scanning.PARALLEL_FROM)
    if progress is not None:
        progress(built.scanned + len(built.missing), total)
    tail: list[bytes] = []
    saved: dict[str, Any] | None = None
    prefix, stats = start.prefix, start.stats
    with _rows_file(rows_path, built) as rows:
        for scan in ordered_map(Job(_scan_task), tasks(), count):
            chunk = pending.popleft()
            if not chunk.complete:  # the last pack, not full: the next build redoes it
                saved = built.to_json()
            encoded = _add(built, chunk, scan, start)
            if chunk.complete:
                rows.write(b"".join(encoded))
                built.rows += sum(map(len, encoded))
                built.offset, prefix = chunk.offset, chunk.digest
                stats = (stats + chunk.stats) % _MOD
            else:
                tail = encoded
            if progress is not None:
                progress(built.scanned + len(built.missing), total)
    taken.finish()
    kept = built if saved is None else Built.from_json(saved)
    if rows_path.parent == root / folder_files.REPLAYS / CHANCES_FOLDER:  # not a scratch
        state.save_built(root, kept, start.stamp, prefix, str(stats))
    return Passed(built, safe_read.open_regular(rows_path, follow=False), kept.rows, tail)


class _Taken:
    """The packs the run scanned, taken in turn as the pass meets them: each pack's games
    counted, and their tally with the last one (it is one sum); any pack changed, out of
    turn or not met while others were, and the pass starts again reading them (`_Stale`)."""

    def __init__(self, ahead: Ahead | None) -> None:
        self.ahead, self.taken = ahead, 0

    def scan(self, chunk: _Chunk, task: _Task) -> _Scan | None:
        """The chunk's scan if the run made it, else None (its replays are read)."""
        ahead = self.ahead
        if ahead is None or not ahead.first <= chunk.pack < ahead.first + len(ahead.stats):
            return None
        if chunk.pack != ahead.first + self.taken or not chunk.complete \
                or chunk.stats != ahead.stats[self.taken]:
            raise _Stale
        self.taken += 1
        tally = ahead.tally if self.taken == len(ahead.stats) else Counter()
        return _Scan(tally, [], len(task[2]))

    def finish(self) -> None:
        """The pass is at the log's end: no pack the run scanned may be left half taken."""
        if self.ahead is not None and 0 < self.taken < len(self.ahead.stats):
            raise _Stale


def _scan_task(_: None, task: _Task | _Scan) -> _Scan:
    """A pool's task: a pack's scan the run made, or its replays read (`scan_pack`)."""
    return task if isinstance(task, _Scan) else scan_pack(None, task)


def _rows_file(path: Path, built: Built) -> IO[bytes]:
    """The rows file to append to: the last build's, cut at its checkpoint, else a new one."""
    if built.offset == 0:
        return folder_files.open_fresh(path)
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)
    os.ftruncate(descriptor, built.rows)
    return os.fdopen(descriptor, "ab")


def _add(built: Built, chunk: _Chunk, scan: _Scan, start: _Start) -> list[bytes]:
    """Add a chunk's games and scan to the sums; their rows, encoded."""
    built.tally.update(scan.tally)
    built.missing.extend(scan.missing)
    built.scanned += scan.scanned
    missing = frozenset(scan.missing)
    kinds = {kind: i for i, kind in enumerate(FAULT_KINDS)}
    names = {name: i for i, name in enumerate(built.names)}
    stages = {stage: i for i, stage in enumerate(built.stages)}
    encoded = []
    for game in chunk.games:
        built.games += 1
        for name in game.entrants:
            names.setdefault(name, len(names))
        built.names.update(dict.fromkeys(game.entrants))
        built.stages.setdefault(game.stage)
        stages.setdefault(game.stage, len(stages))
        found = add_examples(built.examples, game)
        pack = -1
        if game.replay:
            if found or game.id in start.linked:  # (the linked games are in the stamp)
                built.links[game.id] = built.replays // packs.PACK
            if start.viewer and game.id not in missing:
                pack = built.replays // packs.PACK
            built.replays += 1
        for name, score in zip(game.entrants, game.scores, strict=True):
            built.spreads.setdefault(name, Counter())[score] += 1
        encoded.append(_row(game, pack, (names, stages, kinds)))
    return encoded


def _row(game: GameRow, pack: int, order: tuple[dict[str, int], ...]) -> bytes:
    """A game's row of the list (as arena.report.games makes it), in four tab-separated
    parts: up to its entrants, their numbers in order of first appearance, the rest, and
    its replay's path (to check it is unchanged)."""
    names, stages, kinds = order
    head = compact([game.id, stages[game.stage], game.table])[:-1]
    rest: list[Any] = [list(game.placements), list(game.scores), len(game.faults),
                       game.decisions, pack]  # fmt: skip
    if game.faults:
        rest.append([[seat, kinds.get(kind, -1)] for seat, kind, *_ in game.faults])
    seats = ",".join(str(names[name]) for name in game.entrants)
    replay = compact(game.replay) if game.replay else ""  # a name with a tab: escaped
    return f"{head}\t{seats}\t{compact(rest)[1:]}\t{replay}\n".encode()
