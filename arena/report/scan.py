"""The one pass over a tournament's replays: each replay is read once, its claim and challenge
events counted, and (with the viewer) its bytes and chances (arena.report.chances) written
into the viewer's data packs.

The pass may be split over worker processes (arena.executor) for big tournaments, a pack of
games a task. The events are read from the replay text by arena.hosts.text, which wrote it
(one regular expression: parsing every line as JSON is ten times slower; tests pin it
against a full parse).

This module must not play or re-apply games, must not turn the counts into statistics
(arena.report.bluffing does) and writes nothing but replays/pack-*.js and replays/chances/pack-*.js.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path

from arena.executor.local import Job, ordered_map, pool_size
from arena.hosts.text import Found, claim_events
from arena.referee import GameRecord
from arena.report import viewer
from arena.report.chances import chances_stamp, viewer_json
from arena.report.folder import GamesLog
from arena.report.viewer import chances_name, chances_script, pack_name, pack_script
from arena.rules.base import Event
from arena.tournament.run import results as folder_files
from arena.tournament.run import safe_read

__all__ = [
    "PARALLEL_FROM",
    "TallyKey",
    "record_tally",
    "said_tally",
    "scan_all",
    "scan_pack",
    "scan_replay",
    "text_tally",
]

PARALLEL_FROM = 2000
"""Tournaments with at least this many replays are scanned on several processes."""

# (kind, entrant, claimant entrant, claim, blind, holds): what a tally counts
TallyKey = tuple[str, str, str, str, bool, bool]


@dataclass(slots=True)
class _Scan:
    """What one pass over some replays found (mutable while scanning, merged after)."""

    tally: Counter[TallyKey] = field(default_factory=Counter)
    missing: list[str] = field(default_factory=list)
    scanned: int = 0


def scan_replay(text: bytes) -> tuple[tuple[str, ...], Counter[Found]]:
    """The entrants by seat and the claim/challenge events of one replay's JSON-lines text."""
    first, _, rest = text.partition(b"\n")
    header = safe_read.json_object(first)
    names = tuple(str(e["name"]) for e in header.get("entrants", ()))
    return names, claim_events(rest)


def text_tally(text: bytes) -> Counter[TallyKey]:
    """What the pass tallies of one replay's JSON-lines text (`scan_replay`)."""
    names, found = scan_replay(text)
    tally: Counter[TallyKey] = Counter()
    _tally_game(tally, names, found)
    return tally


def record_tally(record: GameRecord) -> Counter[TallyKey]:
    """What the pass tallies of a `dice` game, from its record: its claim and challenge
    events, whose shapes are the rule set's (`said_tally`)."""
    said = [item for item in record.log if type(item) is Event and item.kind in _SAID]
    return said_tally([player.name for player in record.players], said)


_SAID = frozenset(("claim", "challenge"))


def said_tally(names: Sequence[str], said: Sequence[Event]) -> Counter[TallyKey]:
    """What the pass tallies of a `dice` game, from its claim and challenge events (by seat,
    `names`): the keys `_tally_game` makes of the expression's finds in its replay's text,
    in the order they first occur; only a public event of a seat's is found ("seat":N, no
    "to"). The events are counted first by kind, seat and data, each count's key made once
    after; a claim's key is kept by its claimant's name and data (one object per claim and
    blindness: arena.rules.dice_play), since the same claims recur game after game."""
    datas = list(map(_DATA, said))
    counted = Counter(zip(map(_HEAD, said), map(id, datas), strict=True))
    data_of = dict(zip(map(id, datas), datas, strict=True))
    tally: Counter[TallyKey] = Counter()
    kept = _CLAIM_KEYS
    for ((kind, seat, to), data_id), count in counted.items():
        if to is not None or seat is None or seat < 0:
            continue
        data = data_of[data_id]
        if kind == "claim":
            name = names[seat]
            found = kept.get((name, data_id))
            if found is not None and found[0] is data:  # (the data kept: its id not reused)
                key = found[1]
            else:
                key = ("claim", name, "", _text(data["claim"]), data.get("blind") is True,
                       False)
                if len(kept) >= _KEPT:
                    kept.clear()
                kept[(name, data_id)] = (data, key)
        elif kind == "challenge" and data["claimant"] >= 0:
            key = ("challenge", names[seat], names[data["claimant"]], _text(data["claim"]),
                   False, data["holds"] is True)
        else:
            continue
        tally[key] = tally.get(key, 0) + count
    return tally


_CLAIM_KEYS: dict[tuple[str, int], tuple[object, TallyKey]] = {}
_KEPT = 1 << 15
"""Claims' keys kept at most (by claimant and data), forgotten all at once when full."""
_HEAD, _DATA = itemgetter(0, 1, 3), itemgetter(2)
"""An event's kind, seat and `to`; its data (arena.rules.base.Event's fields)."""
_CLAIM_TEXT: dict[object, str] = {}


def _text(claim: object) -> str:
    """A claim's text in a replay (a claim recurs: made once)."""
    found = _CLAIM_TEXT.get(claim)
    if found is None:
        found = _CLAIM_TEXT[claim] = str(claim)
    return found


def _tally_game(tally: Counter[TallyKey], names: Sequence[str], found: Counter[Found]) -> None:
    for (kind, seat, claimant, claim, blind, holds), count in found.items():
        who = names[int(seat)]
        against = names[int(claimant)] if claimant else ""
        key = (kind.decode(), who, against, claim.decode(), blind == b"true", holds == b"true")
        tally[key] += count


def _scan(
    folder: str, pack: int, games: Sequence[tuple[str, str]], write_packs: bool
) -> _Scan:
    """Read each game's replay once: tally its claims; write the pack of viewer data."""
    root = Path(folder)
    scan = _Scan()
    packed: list[tuple[str, bytes]] = []
    texts: list[bytes] = []
    for game_id, replay in games:
        try:  # only a regular file under replays/, no bigger than the caps
            raw = safe_read.replay_bytes(replay, root)
            text = safe_read.unpack(raw)
            names, found = scan_replay(text)
            tally: Counter[TallyKey] = Counter()
            _tally_game(tally, names, found)
        except (safe_read.Unreadable, KeyError, TypeError, IndexError, ValueError):
            scan.missing.append(game_id)  # gone or unreadable: `arena replay --verify` says why
            continue
        packed.append((game_id, raw))
        texts.append(text)
        scan.tally.update(tally)
        scan.scanned += 1
    if write_packs:
        _write_packs(root / folder_files.REPLAYS, pack, packed, texts)
    return scan


def _write_packs(replays: Path, pack: int, packed: Sequence[tuple[str, bytes]],
                 texts: Sequence[bytes]) -> None:
    """A pack and its chances; the chances (most of a report's time) are computed again only
    when the pack's replays changed or another version of their code made them, so a live
    report's refresh and the report at the end redo only the last packs."""
    content = pack_script(packed)
    chances_path = replays / chances_name(pack)
    if not (_holds(replays / pack_name(pack), content) and _stamped(chances_path)):
        folder_files.own(chances_path.parent, folder=True, make=True)  # the chances first:
        computed = [(game_id, viewer_json(text))  # a kill -9 before the pack: redone
                    for (game_id, _), text in zip(packed, texts, strict=True)]
        _write_pack(chances_path, chances_stamp() + chances_script(computed))
    _write_pack(replays / pack_name(pack), content)


def _holds(path: Path, content: bytes) -> bool:
    """Whether a file holds these very bytes (a link, a device or a bigger file does not:
    it is replaced unread)."""
    try:
        return safe_read.read_file(path, len(content), follow=False) == content
    except safe_read.Unreadable:
        return False


def _stamped(path: Path) -> bool:
    """Whether a chances pack was made by the code that would make it now (a link, a device:
    no)."""
    stamp = chances_stamp()
    try:
        with safe_read.open_regular(path, follow=False) as handle:
            return handle.readline(len(stamp) + 1) == stamp
    except (safe_read.Unreadable, OSError):
        return False


def _write_pack(path: Path, content: bytes) -> None:
    """Write a pack unless the same bytes are there already.

    Rewriting a file in place is slow on ext4 (a file truncated and rewritten, or renamed
    over, is flushed when closed), and a resumed tournament changes only its last packs, so
    an unchanged pack is left alone and a changed one is removed before its new bytes,
    written beside it, are renamed into place: a live report's viewer (arena/report/live.py)
    never reads half a pack.
    """
    if _holds(path, content):
        return
    fresh = path.with_name(f".{path.name}{folder_files.TEMPORARY_SUFFIX}")  # kill -9: removed
    with folder_files.open_fresh(fresh) as handle:  # never through a symlink left there
        handle.write(content)
    path.unlink(missing_ok=True)
    fresh.rename(path)


def scan_pack(_: None, task: tuple[str, int, tuple[tuple[str, str], ...], bool]) -> _Scan:
    """A pool's task: scan one pack's games (the folder, the pack, (id, replay) each, and
    whether to write the pack)."""
    return _scan(*task)


def _packs(folder: Path, games: int) -> Iterator[tuple[int, tuple[tuple[str, str], ...]]]:
    """Games with a replay among the first `games` of the log, PACK at a time in log order:
    a resumed run only adds packs."""
    lines = itertools.islice(folder_files.iter_games(folder / folder_files.GAMES), games)
    listed = ((str(line["id"]), line["replay"]) for line in lines if line.get("replay"))
    for pack in itertools.count():
        chunk = tuple(itertools.islice(listed, viewer.PACK))
        if not chunk:
            return
        yield pack, chunk


def scan_all(folder: Path, log: GamesLog, workers: int | None, write_packs: bool,
             progress: Callable[[int, int], object] | None = None) -> _Scan:
    """Scan the replays of the games in `log`, a pack at a time: in this process for small
    tournaments, else on a process pool; `progress(done, total)` after each pack."""
    packs = _packs(folder, log.games)
    tasks = ((str(folder), pack, chunk, write_packs) for pack, chunk in packs)
    count = pool_size(workers, log.replays, PARALLEL_FROM)
    return _merge(_Scan(), ordered_map(Job(scan_pack), tasks, count), log.replays, progress)


def _merge(total: _Scan, parts: Iterable[_Scan], replays: int = 0,
           progress: Callable[[int, int], object] | None = None) -> _Scan:
    if progress is not None:
        progress(0, replays)
    for part in parts:
        total.tally.update(part.tally)
        total.missing.extend(part.missing)
        total.scanned += part.scanned
        if progress is not None:
            progress(total.scanned + len(total.missing), replays)
    return total
